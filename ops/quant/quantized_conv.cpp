// QuantizedConv (internal op, made by QdqConvFoldPass from DequantizeLinear -> Conv of a QDQ
// model): a 2-D convolution of an 8-bit input with constant int8 weights, kernels "qconv8"
// and "qdwconv8" (kernels/lib/qconv8.cpp, qdwconv8.cpp; layouts in quant_params.h).
//   inputs: x (float32, quantized in the kernel as QuantizeLinear(x, x_scale, x_zero_point)
//           does; or uint8 / int8, already quantized), x_scale (float32 scalar),
//           x_zero_point (uint8 / int8 scalar, constant), w (int8 [OC, C, KH, KW], constant),
//           mult (float32 [OC], constant), B (float32 [OC], constant, optional),
//           R (float32, y's shape, optional: a residual; or uint8 / int8, a quantized block
//           output, read as (R - r_zero_point) * r_scale: attributes r_scale, r_zero_point)
//   y[oc] = float(sum (xq - x_zero_point) * w[oc]) * mult[oc] + B[oc], then the activation
//   (attribute activation: "Relu", or "Clip" to [clip_min, clip_max]), then + R and the
//   activation after it (post_activation, post_clip_min/max: a ResNet block's Add and Relu),
//   then, when attribute out_scale is set, QuantizeLinear + DequantizeLinear with out_scale,
//   out_zero_point and out_dtype ("uint8" / "int8"), or with out_quantize = 1 QuantizeLinear
//   alone: y is then uint8 / int8 (its readers are int8 convs). Conv's attributes; group 1
//   (kernel qconv8) or depthwise, group == C == OC (kernel qdwconv8, no residual R).
// mult is x_scale * w_scale[oc] (times a folded BatchNormalization's scale).
#include <algorithm>
#include <array>
#include <cmath>

#include "ops/cube/conv_geometry.h"
#include "ops/quant/q8_pack.h"
#include "ops/quant/quant_util.h"
#include "support/strings.h"

namespace atc {
namespace {

struct QcDims {
  int64_t N = 0, C = 0, OC = 0, group = 1;
  WindowGeom g;
};

QcDims quantizedConvDims(const Node& n) {
  const TensorType& xt = n.inputs[0]->type;
  // After lowering, w and mult are the kernel's packed weights and aux words; the shapes they
  // had are kept in _q8_wshape (inference runs again on lowered graphs).
  const bool packed = n.hasAttr("_q8_wshape");
  const Shape ws = packed ? n.attrInts("_q8_wshape") : n.inputs[3]->type.shape;
  if (xt.dtype != DType::F32 && !isQuant8(xt.dtype)) opError(n, "x must be float32, uint8 or int8");
  if (n.inputs[3]->type.dtype != DType::I8) opError(n, "w must be int8");
  if (!xt.shapeKnown || xt.shape.size() != 4 || !n.inputs[3]->type.shapeKnown || ws.size() != 4)
    opError(n, "x and w must be 4-D (N x C x H x W, OC x C x KH x KW)");
  QcDims d;
  d.N = xt.shape[0];
  d.C = xt.shape[1];
  d.OC = ws[0];
  d.group = n.attrInt("group", 1);
  if (d.group != 1 && !(d.group == d.C && d.OC == d.C && ws[1] == 1))
    opError(n, "group must be 1 or, for a depthwise conv, the channel count with one output channel per input channel");
  if (ws[1] * d.group != d.C)
    opError(n, "w has " + std::to_string(ws[1]) + " input channels per group, x has " + std::to_string(d.C));
  checkQ8Operands(n, d.OC, packed, "output channel");
  d.g = windowGeometry(n, {xt.shape[2], xt.shape[3]}, {ws[2], ws[3]}, false);
  for (const char* a : {"activation", "post_activation"}) {
    const std::string act = n.attrString(a, "");
    if (!act.empty() && act != "Relu" && act != "Clip")
      opError(n, std::string(a) + " must be Relu, Clip or absent, not " + act);
  }
  if (n.hasAttr("post_activation") && !n.input(6)) opError(n, "post_activation needs the residual input R");
  if (d.group != 1 && n.input(6)) opError(n, "a depthwise QuantizedConv takes no residual input R");
  if (const Value* r = n.input(6)) {
    const Shape want = {d.N, d.OC, d.g.out[0], d.g.out[1]};
    if ((r->type.dtype != DType::F32 && !isQuant8(r->type.dtype)) || !r->type.shapeKnown || r->type.shape != want)
      opError(n, "R must be float32, uint8 or int8 of y's shape [" + joinInts(want) + "], not " +
                     dtypeName(r->type.dtype) + " [" + joinInts(r->type.shape) + "]");
    if (isQuant8(r->type.dtype) && !(n.hasAttr("r_scale") && n.hasAttr("r_zero_point")))
      opError(n, "a uint8 / int8 R needs the attributes r_scale and r_zero_point");
  }
  if (n.hasAttr("out_scale")) {
    const std::string qdt = n.attrString("out_dtype", "");
    if (qdt != "uint8" && qdt != "int8") opError(n, "out_dtype must be uint8 or int8");
    const int64_t z = n.attrInt("out_zero_point", 0);
    if (z < (qdt == "int8" ? -128 : 0) || z > (qdt == "int8" ? 127 : 255))
      opError(n, "out_zero_point is outside out_dtype's range");
  } else if (n.attrInt("out_quantize", 0) != 0) {
    opError(n, "out_quantize needs out_scale, out_zero_point and out_dtype");
  }
  return d;
}

void inferQuantizedConv(Graph&, Node& n) {
  QcDims d = quantizedConvDims(n);
  DType yt = DType::F32;
  if (n.attrInt("out_quantize", 0) != 0) yt = n.attrString("out_dtype", "") == "int8" ? DType::I8 : DType::U8;
  n.outputs[0]->type = TensorType(yt, {d.N, d.OC, d.g.out[0], d.g.out[1]});
}

// Cost of a run of n neighbouring 16-lane tiles per k-quad of one 16-channel panel, in
// instructions of the single 16 x 16 tile (17: 16 vpdpbusd and a load). With vpdpbusd the
// kernel takes runs of three (two) tiles as 8 x 48 (8 x 32) tiles in two halves, measured
// at 6.0 (5.4) against 4.7 vpdpbusd per ns on Zen 5: 40 (30) instead of 51 (34).
double q8RunCost(int64_t n, bool vnni) {
  if (!vnni) return 17.0 * (double)n;
  return 40.0 * (double)(n / 3) + (n % 3 == 2 ? 30.0 : n % 3 == 1 ? 17.0 : 0.0);
}

// Rows per task and channel groups. Each task packs (and quantizes) the input rows of its
// row block for all channels (once for consecutive tasks of one block on a thread), so
// splitting the output channels can repeat that work while splitting rows repeats only the
// rows the windows share, and small row blocks waste lanes.
// Chosen by a cost model in instructions: ~0.6 per packed element, q8RunCost per tile run and
// k-quad of one 16-channel panel; at least 8 tasks where the output allows it.
void q8Tasks(std::vector<int64_t>& P, int64_t N, int64_t C4, int64_t npanels, int64_t KQ, int64_t WQ, int64_t PQ,
             bool vnni) {
  const int64_t OH = P[Q8_OH], OW = P[Q8_OW], SH = P[Q8_SH], KH = P[Q8_KH], DH = P[Q8_DH];
  const int64_t want = std::min<int64_t>(8, N * OH * npanels);
  double best = -1;
  for (int64_t rb = 1; rb <= OH; ++rb) {
    const int64_t nrb = (OH + rb - 1) / rb;
    if (rb > 1 && (OH + rb - 2) / (rb - 1) == nrb) continue;  // same blocks as rb - 1
    const int64_t hb = (rb - 1) * SH + (KH - 1) * DH + 1;
    if ((double)C4 * hb * WQ * 4 > (32 << 10) && rb > 1) break;  // band over 32 KB: out of L1
    // Tiles flat over the rows (row pitch PQ) or 16 columns of one row, as qconv8's q8_flat chooses.
    const bool flat = (SH == 1 && P[Q8_SW] == 1) || PQ < (OW + 15) / 16 * 16;
    const double tiles = flat ? q8RunCost(((rb - 1) * PQ + OW + 15) / 16, vnni) : rb * q8RunCost((OW + 15) / 16, vnni);
    for (int64_t panels = npanels; panels >= 1; --panels) {
      const int64_t nocg = (npanels + panels - 1) / panels;
      if (panels < npanels && (npanels + panels) / (panels + 1) == nocg) continue;
      // A thread packs a row block's band once for the channel groups it runs in a row:
      // count two packs per block when there are several groups (chunk boundaries).
      const double packs = (double)N * nrb * (nocg > 1 ? 2 : 1);
      const double cost = packs * (4.0 * C4 * hb * WQ) * 0.6 + (double)N * nrb * tiles * npanels * KQ;
      const bool enough = N * nrb * nocg >= want;
      if (enough && (best < 0 || cost < best)) {
        best = cost;
        P[Q8_RB] = rb;
        P[Q8_NRB] = nrb;
        P[Q8_PANELS] = panels;
        P[Q8_NOCG] = nocg;
      }
    }
  }
}

// The output stage (Q8_OQ / QD_OQ): 0 float32, 1 Q/DQ to float32, 2 quantized (out_quantize).
int64_t outStage(const Node& n) {
  if (!n.hasAttr("out_scale")) return 0;
  return n.attrInt("out_quantize", 0) != 0 ? 2 : 1;
}

// The activation and output-stage params of both kernels, at the indices `at` gives:
// {act, act_lo, act_hi, out stage, out_scale, out_zero_point, saturation low, high}.
void epilogueParams(const Node& n, std::vector<int64_t>& P, const std::array<int, 8>& at) {
  const std::string act = n.attrString("activation", "");
  P[at[0]] = act == "Relu" ? 1 : act == "Clip" ? 2 : 0;
  P[at[1]] = paramFromDouble(n.attrFloat("clip_min", -INFINITY));
  P[at[2]] = paramFromDouble(n.attrFloat("clip_max", INFINITY));
  P[at[3]] = outStage(n);
  P[at[4]] = paramFromDouble(n.attrFloat("out_scale", 1.0));
  P[at[5]] = n.attrInt("out_zero_point", 0);
  const bool osgn = n.attrString("out_dtype", "") == "int8";
  P[at[6]] = osgn ? -128 : 0;
  P[at[7]] = osgn ? 127 : 255;
}

// Depthwise weights as tap words: int8 [C][KH][NQ][4], quad g holding kernel columns 4g..4g+3.
TensorPtr packDwWeights(const Tensor& w, int64_t C, int64_t KH, int64_t KW, int64_t NQ) {
  auto pk = std::make_shared<Tensor>(TensorType(DType::I8, {C * KH * NQ * 4}));
  int8_t* dst = pk->as<int8_t>();
  std::fill(dst, dst + C * KH * NQ * 4, (int8_t)0);
  const int8_t* src = w.as<int8_t>();
  for (int64_t ch = 0; ch < C; ++ch)
    for (int64_t kh = 0; kh < KH; ++kh)
      for (int64_t kw = 0; kw < KW; ++kw) dst[((ch * KH + kh) * NQ + kw / 4) * 4 + kw % 4] = src[(ch * KH + kh) * KW + kw];
  return pk;
}

// Depthwise (group == C): kernel qdwconv8, bands of output rows whose tap words and padded rows
// take <= 24 KB.
KernelCall lowerQuantizedDwConv(LowerCtx& c, const QcDims& d) {
  Node& n = c.node;
  const WindowGeom& g = d.g;
  const int64_t KH = g.kernel[0], KW = g.kernel[1], OH = g.out[0], OW = g.out[1], NQ = (KW + 3) / 4;
  const int64_t SH = g.stride[0], SW = g.stride[1], DH = g.dil[0], DW = g.dil[1];
  if (KH * NQ > 64) opError(n, "a depthwise QuantizedConv takes kernels of at most 64 rows of 4 columns");
  std::vector<int64_t> P(QD_COUNT, 0);
  P[QD_N] = d.N; P[QD_C] = d.C; P[QD_IH] = g.in[0]; P[QD_IW] = g.in[1]; P[QD_OH] = OH; P[QD_OW] = OW;
  P[QD_KH] = KH; P[QD_KW] = KW; P[QD_SH] = SH; P[QD_SW] = SW; P[QD_DH] = DH; P[QD_DW] = DW;
  P[QD_PH] = g.padBegin[0]; P[QD_PW] = g.padBegin[1];
  P[QD_XDT] = (int64_t)n.inputs[0]->type.dtype;
  P[QD_QDT] = (int64_t)n.inputs[2]->type.dtype;
  P[QD_XSCALE] = paramFromDouble(n.inputs[1]->constant->floatAt(0));
  P[QD_XZP] = n.inputs[2]->constant->intAt(0);
  epilogueParams(n, P, {QD_ACT, QD_ACTLO, QD_ACTHI, QD_OQ, QD_OSCALE, QD_OZP, QD_OQLO, QD_OQHI});
  // vpdpbusd on 512 / 256 bits or vpmaddwd (AVX2), over the same tap words and weight words;
  // portable code otherwise (the test-only path 5 included: depthwise weights are never widened).
  P[QD_VNNI] = c.int8Path == 1 || c.int8Path == 2 || c.int8Path == Q8_WIDE_PATH ? c.int8Path : 0;
  P[QD_NQ] = NQ;
  // The tap-word build reads 64 bytes from column ow * SW + 4g * DW, ow < OW rounded down to 16.
  P[QD_PADW] = SW * OW + (KW - 1) * DW + 64;
  const int64_t prowBytes = (P[QD_PADW] + 63) / 64 * 64;
  // Output rows per band: its tap words and padded rows within 24 KB (L1).
  const int64_t extra = (KH - 1) * DH / SH, perRow = SH * NQ * OW * 4 + SH * prowBytes;
  P[QD_MB] = std::min<int64_t>(OH, std::max<int64_t>(1, (24 << 10) / perRow - extra));
  P[QD_WROWS] = P[QD_MB] + extra;
  P[QD_PPT] = std::max<int64_t>(1, d.N * d.C / 64);
  const int64_t region = (P[QD_WROWS] * OW + 16 + 15) / 16 * 16;  // words, qdwconv8.cpp qd_region
  const int64_t prows = (P[QD_MB] - 1) * SH + (KH - 1) * DH + 1;
  P[QD_SLOT] = SH * NQ * region * 4 + prows * prowBytes + 4 * 16 * 4;
  P[QD_XBUF] = 0; P[QD_WBUF] = 3; P[QD_ABUF] = 4; P[QD_YBUF] = (int64_t)n.inputs.size();
  if (!n.hasAttr("_q8_wshape")) {
    const int32_t zpFlipped = (int32_t)P[QD_XZP] + (P[QD_QDT] == (int64_t)DType::I8 ? 128 : 0);
    c.replaceConstInput(4, q8Aux(n, d.C, d.C, KH * KW, zpFlipped));
    const std::string how = "qdwconv8_words " + std::to_string(d.C) + "x" + std::to_string(KH) + "x" + std::to_string(KW);
    if (!c.usePackedInput(3, how)) c.replaceConstInput(3, packDwWeights(*n.inputs[3]->constant, d.C, KH, KW, NQ), how);
    n.attrs["_q8_wshape"] = Shape{d.C, 1, KH, KW};
  }
  KernelCall kc = makeCall("qdwconv8", P);
  const int64_t ntasks = (d.N * d.C + P[QD_PPT] - 1) / P[QD_PPT];
  kc.workspaceBytes = ntasks * P[QD_SLOT] + 64;
  return kc;
}

KernelCall lowerQuantizedConv(LowerCtx& c) {
  Node& n = c.node;
  QcDims d = quantizedConvDims(n);
  for (size_t i : {(size_t)1, (size_t)2, (size_t)3, (size_t)4})
    if (!n.inputs[i]->isConstant()) opError(n, "x_scale, x_zero_point, w and mult must be constants");
  if (n.input(5) && !n.input(5)->isConstant()) opError(n, "B must be a constant");
  if (d.group != 1) return lowerQuantizedDwConv(c, d);
  const WindowGeom& g = d.g;
  const int64_t KH = g.kernel[0], KW = g.kernel[1], OH = g.out[0], OW = g.out[1];
  const int64_t C4 = (d.C + 3) / 4, KQ = C4 * KH * KW, OCP = (d.OC + 15) / 16 * 16;
  std::vector<int64_t> P(Q8_COUNT, 0);
  P[Q8_N] = d.N; P[Q8_C] = d.C; P[Q8_OC] = d.OC;
  P[Q8_IH] = g.in[0]; P[Q8_IW] = g.in[1]; P[Q8_OH] = OH; P[Q8_OW] = OW;
  P[Q8_KH] = KH; P[Q8_KW] = KW; P[Q8_SH] = g.stride[0]; P[Q8_SW] = g.stride[1];
  P[Q8_DH] = g.dil[0]; P[Q8_DW] = g.dil[1]; P[Q8_PH] = g.padBegin[0]; P[Q8_PW] = g.padBegin[1];
  P[Q8_XDT] = (int64_t)n.inputs[0]->type.dtype;
  P[Q8_QDT] = (int64_t)n.inputs[2]->type.dtype;
  P[Q8_XSCALE] = paramFromDouble(n.inputs[1]->constant->floatAt(0));
  P[Q8_XZP] = n.inputs[2]->constant->intAt(0);
  epilogueParams(n, P, {Q8_ACT, Q8_ACTLO, Q8_ACTHI, Q8_OQ, Q8_OSCALE, Q8_OZP, Q8_OQLO, Q8_OQHI});
  const std::string post = n.attrString("post_activation", "");
  P[Q8_RBUF] = n.input(6) ? 6 : -1;
  P[Q8_PACT] = post == "Relu" ? 1 : post == "Clip" ? 2 : 0;
  P[Q8_PACTLO] = paramFromDouble(n.attrFloat("post_clip_min", -INFINITY));
  P[Q8_PACTHI] = paramFromDouble(n.attrFloat("post_clip_max", INFINITY));
  P[Q8_RDT] = n.input(6) ? (int64_t)n.input(6)->type.dtype : (int64_t)DType::F32;
  P[Q8_RSCALE] = paramFromDouble(n.attrFloat("r_scale", 1.0));
  P[Q8_RZP] = n.attrInt("r_zero_point", 0);
  P[Q8_VNNI] = c.int8Path;
  P[Q8_C4] = C4; P[Q8_KQ] = KQ; P[Q8_OCP] = OCP;
  // Band: the rows of the largest row block as SH row phases, each row's WQ padded columns as
  // SW column phases of PQ words ([SH][SW][HBP][PQ] per quad plane; stride 1: [HB][WQ]), so
  // every tap reads a window whose output (oh, ow) is word oh * PQ + ow and tiles run flat
  // over the rows; slack words so that the discarded lanes of the last tile stay inside.
  const int64_t SH = g.stride[0], SW = g.stride[1];
  const int64_t WQ = (OW - 1) * SW + (KW - 1) * g.dil[1] + 1;
  P[Q8_PQ] = (WQ + SW - 1) / SW;
  q8Tasks(P, d.N, C4, OCP / 16, KQ, WQ, P[Q8_PQ], c.int8Path == 1 && KQ >= 32);  // when qconv8 groups tiles
  P[Q8_WPP] = P[Q8_PQ];  // the flat run's row pitch
  P[Q8_HB] = (P[Q8_RB] - 1) * SH + (KH - 1) * g.dil[0] + 1;
  const int64_t HBP = (P[Q8_HB] + SH - 1) / SH;
  P[Q8_PLANE] = (SH * SW * HBP * P[Q8_PQ] + 32 + 15) / 16 * 16;
  const int64_t bytes = C4 * P[Q8_PLANE] * 4 + (KQ + 15) / 16 * 16 * 4 + 24 * 16 * 4;  // band, offsets, acc
  P[Q8_SLOT] = (bytes + 63) / 64 * 64;
  P[Q8_XBUF] = 0; P[Q8_WBUF] = 3; P[Q8_ABUF] = 4; P[Q8_YBUF] = (int64_t)n.inputs.size();
  if (!n.hasAttr("_q8_wshape")) {
    const int32_t zpFlipped = (int32_t)P[Q8_XZP] + (P[Q8_QDT] == (int64_t)DType::I8 ? 128 : 0);
    c.replaceConstInput(4, q8Aux(n, d.OC, OCP, d.C * KH * KW, zpFlipped));
    const std::string how = "qconv8_panels " + std::to_string(d.OC) + "x" + std::to_string(d.C) + "x" +
                            std::to_string(KH) + "x" + std::to_string(KW);
    const bool wide = Q8_IS_WIDE(c.int8Path);
    const std::string key = wide ? how + " int16" : how;
    if (!c.usePackedInput(3, key)) {
      TensorPtr pk = packQ8Weights(*n.inputs[3]->constant, d.OC, d.C, KH, KW, OCP, C4);
      c.replaceConstInput(3, wide ? widenQ8Weights(*pk) : pk, key);
    }
    n.attrs["_q8_wshape"] = Shape{d.OC, d.C, KH, KW};
  }
  KernelCall kc = makeCall("qconv8", P);
  kc.workspaceBytes = d.N * P[Q8_NRB] * P[Q8_NOCG] * P[Q8_SLOT] + 64;
  return kc;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "QuantizedConv";
  d.internal = true;
  d.minInputs = 5;
  d.maxInputs = 7;
  d.infer = inferQuantizedConv;
  d.lower = lowerQuantizedConv;
  return d;
}());

}  // namespace
}  // namespace atc
