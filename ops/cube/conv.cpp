// Conv (ONNX, opsets 1..17): 1-D, 2-D and 3-D, groups, dilations, strides, pads,
// auto_pad, optional bias. Lowers to kernel conv (implicit GEMM, weights pre-packed when
// constant) or conv_dw (depthwise 1-D/2-D). See docs/kernels-cube.md.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <memory>

#include "ir/op_registry.h"
#include "kernels/lib/cube_params.h"
#include "kernels/lib/math_eltwise_codes.h"
#include "ops/cube/conv_amx_lowering.h"
#include "ops/cube/conv_band_plan.h"
#include "ops/cube/conv_geometry.h"
#include "ops/cube/gemm_lowering.h"

namespace atc {
namespace {

// Original weight shape (weights may have been replaced by a packed copy in lower()).
Shape convWeightShape(const Node& n) {
  if (n.hasAttr("_cube_wshape")) return n.attrInts("_cube_wshape");
  return n.inputs[1]->type.shape;
}

struct ConvDims {
  int64_t N, C, OC, G;
  WindowGeom g;
};

ConvDims convDims(const Node& n) {
  const TensorType& xt = n.inputs[0]->type;
  Shape ws = convWeightShape(n);
  if (!xt.shapeKnown) opError(n, "input X has unknown rank");
  int64_t r = xt.rank();
  if (r < 3 || r > 5) opError(n, "only 1-D, 2-D and 3-D convolutions are supported (X rank 3..5)");
  if ((int64_t)ws.size() != r) opError(n, "W must have the same rank as X");
  ConvDims d;
  d.N = xt.shape[0];
  d.C = xt.shape[1];
  d.OC = ws[0];
  d.G = n.attrInt("group", 1);
  if (d.G < 1 || d.C % d.G != 0 || d.OC % d.G != 0)
    opError(n, "group must divide the input and output channels");
  if (ws[1] != d.C / d.G) opError(n, "W channels (dim 1) must be C / group");
  if (d.C == 0 || d.OC == 0) opError(n, "zero input or output channels");
  std::vector<int64_t> in(xt.shape.begin() + 2, xt.shape.end());
  std::vector<int64_t> k(ws.begin() + 2, ws.end());
  if (n.hasAttr("kernel_shape") && n.attrInts("kernel_shape") != k)
    opError(n, "kernel_shape does not match W");
  d.g = windowGeometry(n, in, k, false);
  return d;
}

void inferConv(Graph&, Node& n) {
  ConvDims d = convDims(n);
  const TensorType& xt = n.inputs[0]->type;
  if (n.input(2) && n.input(2)->type.shapeKnown &&
      (n.input(2)->type.rank() != 1 || n.input(2)->type.shape[0] != d.OC))
    opError(n, "bias B must be 1-D with one value per output channel");
  Shape out = {d.N, d.OC};
  for (int64_t o : d.g.out) out.push_back(o);
  // _out_dtype (precision pass / CastFoldingPass): the dtype the kernel writes (f32, f16, bf16).
  DType od = n.hasAttr("_out_dtype") ? (DType)n.attrInt("_out_dtype", 1) : xt.dtype;
  n.outputs[0]->type = TensorType(od, out);
}

// Pads a spatial vector to 3 dims (D, H, W) with `fill` in front.
std::vector<int64_t> to3(const std::vector<int64_t>& v, int64_t fill) {
  std::vector<int64_t> r(3 - v.size(), fill);
  r.insert(r.end(), v.begin(), v.end());
  return r;
}

// Pre-packs constant weights into [G][MP][K][MR] panels (the kernel's broadcast operand; MR =
// the target's microkernel rows); the original shape is kept in _cube_wshape. Returns whether
// the weights are packed.
bool packConvWeights(LowerCtx& c, int64_t G, int64_t M, int64_t K, int64_t MR) {
  Node& n = c.node;
  const int64_t MP = (M + MR - 1) / MR;
  Value* w = n.inputs[1];
  if (n.hasAttr("_cube_wshape")) return true;  // already packed by an earlier lowering of this node
  if (!w->isConstant()) return false;
  n.attrs["_cube_wshape"] = w->type.shape;
  const std::string how = "conv_panels " + std::to_string(G) + "x" + std::to_string(M) + "x" + std::to_string(K) +
                          "/" + std::to_string(MR);
  if (c.usePackedInput(1, how)) return true;  // another conv packed these weights already
  auto pk = std::make_shared<Tensor>(TensorType(DType::F32, {G * MP * K * MR}));
  std::vector<float> src = cubeFloats(*w->constant);  // f16/bf16 weights: exact values
  float* dst = pk->as<float>();
  for (int64_t gi = 0; gi < G; ++gi)
    for (int64_t p = 0; p < MP; ++p)
      for (int64_t kk = 0; kk < K; ++kk)
        for (int64_t i = 0; i < MR; ++i) {
          int64_t m = p * MR + i;
          dst[((gi * MP + p) * K + kk) * MR + i] = m < M ? src[(gi * M + m) * K + kk] : 0.0f;
        }
  c.replaceConstInput(1, pk, how);
  return true;
}

// The bfloat16 pair panels of the channel-major path (CV_BF16DP): [G][MP][KP][NR][2] with
// KP = ceil(Cg/2) * KHW pair rows (p, tap), input channels 2p and 2p + 1 side by side (zero past
// Cg); the weights are bfloat16 already (exact).
bool packConvWeightPairs(LowerCtx& c, int64_t G, int64_t M, int64_t Cg, int64_t KHW, int64_t NR) {
  Node& n = c.node;
  Value* w = n.inputs[1];
  if (n.hasAttr("_cube_wshape")) return true;
  if (!w->isConstant()) return false;
  n.attrs["_cube_wshape"] = w->type.shape;
  const int64_t MP = (M + NR - 1) / NR, CP = (Cg + 1) / 2, KP = CP * KHW;
  const std::string how = "conv_bf16_pairs " + std::to_string(G) + "x" + std::to_string(M) + "x" + std::to_string(Cg) +
                          "x" + std::to_string(KHW) + "/" + std::to_string(NR);
  if (c.usePackedInput(1, how)) return true;
  auto pk = std::make_shared<Tensor>(TensorType(DType::BF16, {G * MP * KP * NR * 2}));
  std::vector<float> src = cubeFloats(*w->constant);
  uint16_t* dst = pk->as<uint16_t>();
  for (int64_t gi = 0; gi < G; ++gi)
    for (int64_t p = 0; p < MP; ++p)
      for (int64_t kp = 0; kp < KP; ++kp)
        for (int64_t i = 0; i < NR; ++i)
          for (int64_t h = 0; h < 2; ++h) {
            const int64_t m = p * NR + i, ic = 2 * (kp / KHW) + h, tap = kp % KHW;
            dst[((((gi * MP + p) * KP + kp) * NR) + i) * 2 + h] =
                m < M && ic < Cg ? floatToBf16(src[((gi * M + m) * Cg + ic) * KHW + tap]) : uint16_t(0);
          }
  c.replaceConstInput(1, pk, how);
  return true;
}

// Whether cube_epilogue's activation code act costs more than a few cycles per output (an exp:
// SiLU, sigmoid, tanh, GELU); cheap: none, ReLU, Clip, leaky ReLU, the hard gates.
bool costlyEpilogue(int64_t act) {
  return act >= 0 && act != ATCK_E_RELU && act != ATCK_E_CLIP && act != ATCK_E_LEAKYRELU &&
         act != ATCK_E_HARDSIGMOID && act != ATCK_E_HARDSWISH;
}

// The channel-major path (CV_OCM, kernels/lib/conv_ocm.h): 64 (or 32; 16 on 256-bit targets)
// output channels per vector tile and any 6 (or 8) output pixels per broadcast tile, so small maps
// fill their lanes (a 7x7 map: 49 of 54 lanes, against 49 of 64 for 16-pixel tiles). Taken when
// its lane use, times the better load-to-FMA ratio of its microkernels (6x64: 265, 8x32: 251
// against 250 GFLOP/s for 16x16 alone on Zen 5), beats the pixel-major path's: `pixLanes` is the
// share of useful pixel lanes there. Returns the panel's vectors (4: 64 channels; 2: 32, for
// channel counts that 64-channel panels would pad, DenseNet's 32-channel 3x3 convs; 1: 16, the
// only width on 256-bit targets) or 0.
// ATC_CONV_OCM (atc's environment, for measuring): 0 never, 1 wherever it applies, 32 / 64 with
// that panel width. gain: the channel-major tiles' speed over their float32 form (2 for the
// bfloat16 pair tiles, which the pixel-major path does not have). band: the conv reads a band (not
// a 1x1 in place).
int ocmPanelVectors(int64_t M, int64_t K, int64_t MR, double pixLanes, bool costlyEpilogue, double gain, bool band) {
  auto chUse = [&](int64_t w) { return (double)M / (double)(((M + w - 1) / w) * w); };
  const double eff64 = chUse(64), eff32 = 0.95 * chUse(32);
  // 256-bit targets: 16-channel panels only (the 6 x 16 tile fills the 16 ymm registers).
  const int nv = MR != 16 ? 1 : eff64 >= eff32 ? 4 : 2;
  const double chEff = MR != 16 ? chUse(16) : std::max(eff64, eff32);
  // The store transposes 16x16 blocks: noticeable only when K is small. 0.85: the pixel-major
  // path's tile and store costs, fitted on Zen 5 (1 thread) to MobileNetV2 / EfficientNet-B0
  // layers forced both ways: M = 24-32 with K = 96-192 ran 1.1-1.3x faster channel-major, every
  // K <= 40 layer 1.2-2x slower (hence K >= 64).
  // 256-bit targets: both paths run 6 x 16 tiles of the same load-to-FMA ratio (1.0; RegNetY's
  // 8-channel groups on 7x7 maps ran 1.3x slower channel-major with 0.85).
  const double newEff = gain * chEff * (1.0 - 8.0 / (double)K),
               oldEff = (MR == 16 ? 0.85 : 1.0) * chUse(MR) * pixLanes;
  if (const char* e = std::getenv("ATC_CONV_OCM")) {
    const std::string v = e;
    return v == "0" ? 0 : MR != 16 ? 1 : v == "32" ? 2 : v == "64" ? 4 : nv;
  }
  // An activation with an exp (SiLU, sigmoid, tanh, GELU: ~1 cycle per output) adds to the
  // transposing store what the pixel-major path hides in its tile: EfficientNet-B0's
  // 112 -> 672 SiLU convs on 14x14 ran 1.5x slower channel-major, its K = 192 ones 1.3x faster.
  // 256-bit targets (6 x 16 tiles either way): the band convs ran 4-14% faster channel-major
  // (ResNet-50 / ResNet-18 3x3 layers from 56x56 to 7x7, 1 thread, Zen 5 at x86-64-v3), 1x1
  // convs only with K > 512 (MobileNetV2's 960 -> 160 on 7x7: 0.67x; K = 256-512 ran 1.05-1.17x,
  // K = 32-160 1.2-1.6x slower).
  if (MR != 16 && !band && K <= 512) return 0;
  const int64_t minK = (int64_t)((costlyEpilogue ? 128 : 64) / gain);
  return K >= minK && newEff > oldEff * 1.02 ? nv : 0;
}

// Blocking of the channel-major path: K blocks of <= 128 (a weight sub-panel of <= 32 KB stays in
// L1 across the pixel tiles), pixel blocks of ~256 (band: whole output rows), channel blocks of
// NR-channel panels (NR = 16 * nv) until there are 8 tasks; the slot holds off[K], gq[pixels]
// (and the pixels' input offsets), the band or converted rows, and the accumulator
// [panels][ROWS][NR].
// With the bfloat16 pair tiles (bf) K and the band's channels count pairs of input channels.
void planOcm(std::vector<int64_t>& P, const std::vector<int64_t>& out, const std::vector<int64_t>& k,
             const std::vector<int64_t>& s, const std::vector<int64_t>& dl, int64_t NG, int64_t M, int64_t K,
             int64_t Cg, bool band, int nv, bool bf) {
  if (bf) {
    K = K / Cg * ((Cg + 1) / 2);
    Cg = (Cg + 1) / 2;
  }
  const int64_t NR = 16 * nv, MP = (M + NR - 1) / NR, NPIX = out[1] * out[2];
  const int64_t nk = (K + 127) / 128, KC = (K + nk - 1) / nk;
  int64_t nblocks, npmax;
  if (band) {
    nblocks = bandRows(P, out, k, s, dl, 256, NG * MP);
    npmax = P[CV_BROWS] * out[2];
  } else {
    nblocks = (NPIX + 255) / 256;
    npmax = (NPIX + nblocks - 1) / nblocks;
    nblocks = (NPIX + npmax - 1) / npmax;
    P[CV_NB] = npmax;
  }
  const int64_t base = NG * nblocks;
  int64_t mblocks = base < 8 ? std::min<int64_t>(MP, (8 + base - 1) / base) : 1;
  const int64_t MBp = (MP + mblocks - 1) / mblocks;
  mblocks = (MP + MBp - 1) / MBp;
  if (!band && NG * nblocks * mblocks < 8) {
    // Few output channels on a small map (MobileNetV2's 14x14 projections to 64 channels: one
    // 64-channel panel, one task, no second thread): split the pixels too, >= 48 per block.
    const int64_t want = std::min((8 + NG * mblocks - 1) / (NG * mblocks), std::max<int64_t>(1, NPIX / 48));
    if (want > nblocks) {
      npmax = (NPIX + want - 1) / want;
      nblocks = (NPIX + npmax - 1) / npmax;
      P[CV_NB] = npmax;
    }
  }
  P[CV_OCM] = nv;
  P[CV_MB] = MBp * NR;
  P[CV_KC] = KC;
  P[CV_MSUB] = NR;
  P[CV_MBLOCKS] = mblocks;
  P[CV_NBLOCKS] = nblocks;
  P[CV_OCM_ROWS] = (npmax + 15) / 16 * 16;
  P[CV_OCM_GQ] = (K + 15) / 16 * 16;
  int64_t next = P[CV_OCM_GQ] + 2 * P[CV_OCM_ROWS];  // gq and (converted 1x1 inputs) the pixel offsets
  if (!band && (P[CV_DTYPE] != (int64_t)DType::F32 || bf)) {  // 1x1 on float16/bfloat16: rows converted per K block
    P[CV_BAND_OFF] = next;
    next += KC * P[CV_OCM_ROWS];
  }
  if (band) {
    const int64_t hbr = CUBE_CONV_BAND_HBR(P);
    P[CV_BAND_OFF] = next;
    P[CV_BPLANE] = (s[1] * s[2] * hbr * P[CV_PQ] + 15) / 16 * 16;
    if ((P[CV_BPLANE] / 16) % 2 == 0) P[CV_BPLANE] += 16;
    next = P[CV_BAND_OFF] + Cg * P[CV_BPLANE] + 32;
  }
  P[CV_ACC] = next;
  P[CV_SLOT] = next + MBp * NR * P[CV_OCM_ROWS];
}

// Lowers to the channel-major path (planOcm; weights packed in panels of 16 * nv channels).
KernelCall lowerConvOcm(LowerCtx& c, std::vector<int64_t>& P, int64_t NG, int64_t M, int64_t K, int64_t Cg, bool band,
                        const std::vector<int64_t>& out, const std::vector<int64_t>& k, const std::vector<int64_t>& s,
                        const std::vector<int64_t>& dl, int nv, bool bf) {
  planOcm(P, out, k, s, dl, NG, M, K, Cg, band, nv, bf);
  P[CV_BF16DP] = bf ? 1 : 0;
  if (!(bf ? packConvWeightPairs(c, P[CV_G], M, Cg, K / Cg, 16 * nv) : packConvWeights(c, P[CV_G], M, K, 16 * nv)))
    opError(c.node, "internal: channel-major conv needs constant weights");
  P[CV_W_PACKED] = 1;
  KernelCall kc{"conv", P};
  kc.workspaceBytes = NG * P[CV_MBLOCKS] * P[CV_NBLOCKS] * P[CV_SLOT] * 4 + 64;
  return kc;
}

// Padded input rows of a band of b output rows (conv_dw, conv_dwc).
int64_t dwBandRows(int64_t b, const std::vector<int64_t>& k, const std::vector<int64_t>& s,
                   const std::vector<int64_t>& dl) {
  return (b - 1) * s[1] + (k[1] - 1) * dl[1] + 1;
}

// Depthwise conv (kernel conv_dw): bands of output rows whose padded input rows fit in 32 KB;
// constant f16/bf16 weights are widened to f32 here.
KernelCall lowerConvDepthwise(LowerCtx& c, std::vector<int64_t>& P, int64_t NC, const std::vector<int64_t>& out,
                              const std::vector<int64_t>& k, const std::vector<int64_t>& s,
                              const std::vector<int64_t>& dl) {
  if (c.node.inputs[1]->type.dtype != DType::F32) {
    const Tensor& wt = *c.node.inputs[1]->constant;
    auto w32 = std::make_shared<Tensor>(TensorType(DType::F32, wt.type.shape));
    std::vector<float> src = cubeFloats(wt);
    std::copy(src.begin(), src.end(), w32->as<float>());
    c.replaceConstInput(1, w32);
  }
  int64_t owp = (out[2] + 15) / 16 * 16;
  P[CV_PADW] = (owp - 1) * s[2] + (k[2] - 1) * dl[2] + 1;
  // Rows stored as s[2] column phases (kernels/lib/conv.cpp): s[2] * ceil(PADW / s[2]) floats.
  const int64_t rowFloats = (P[CV_PADW] + s[2] - 1) / s[2] * s[2];
  // Bands of CV_MB output rows whose padded input rows (CV_PADH) fit in 32 KB.
  auto bandRows = [&](int64_t b) { return dwBandRows(b, k, s, dl); };
  int64_t ohb = out[1];
  while (ohb > 1 && bandRows(ohb) * rowFloats * 4 > 32768) ohb = (ohb + 1) / 2;
  P[CV_MB] = ohb;
  P[CV_PADH] = bandRows(ohb);
  P[CV_SLOT] = (P[CV_PADH] * rowFloats + 15) / 16 * 16;
  P[CV_MR] = c.cubeRows == 16 ? 16 : 6;  // accumulators per row group (kernels/lib/conv.cpp conv_dw_band)
  P[CV_NB] = planesPerTask(NC, P[CV_SLOT] * 4);
  KernelCall kc{"conv_dw", P};
  kc.workspaceBytes = (NC + P[CV_NB] - 1) / P[CV_NB] * P[CV_SLOT] * 4 + 64;
  return kc;
}

// Depthwise weights for conv_dwc: [ceil(C/16)][KH*KW][16] float32, zero past C; the original
// shape is kept in _cube_wshape and the node marked _dwc, so a second lowering (another gear)
// takes the same path.
void packDepthwiseLanes(LowerCtx& c, int64_t C, int64_t KHW) {
  Node& n = c.node;
  if (n.hasAttr("_dwc")) return;
  n.attrs["_cube_wshape"] = n.inputs[1]->type.shape;
  n.attrs["_dwc"] = (int64_t)1;
  const std::string how = "dw_lanes " + std::to_string(C) + "x" + std::to_string(KHW);
  if (c.usePackedInput(1, how)) return;
  const int64_t CB = (C + 15) / 16;
  auto pk = std::make_shared<Tensor>(TensorType(DType::F32, {CB * KHW * 16}));
  std::vector<float> src = cubeFloats(*n.inputs[1]->constant);  // f16/bf16 weights: exact values
  float* dst = pk->as<float>();
  for (int64_t cb = 0; cb < CB; ++cb)
    for (int64_t t = 0; t < KHW; ++t)
      for (int64_t l = 0; l < 16; ++l) {
        const int64_t ch = cb * 16 + l;
        dst[(cb * KHW + t) * 16 + l] = ch < C ? src[ch * KHW + t] : 0.0f;
      }
  c.replaceConstInput(1, pk, how);
}

// Whether a depthwise conv takes conv_dwc (channels in the lanes): rows of fewer than 28
// outputs, or of 28 from a strided input (conv_dw's 16-lane row chunks are then mostly padding,
// its strided rows gathered; measured per layer on MobileNetV2 and EfficientNet-B0, Zen 5: 7 and
// 14 wide 1.3-2.4x faster, 28 wide stride 1 and 56 wide 1.1-1.5x slower). Also: constant
// weights, an epilogue computed in a register. ATC_CONV_DWC=0/1 forces it off/on (measurements).
bool useDepthwiseLanes(const Node& n, const std::vector<int64_t>& out, const std::vector<int64_t>& s) {
  if (n.hasAttr("_dwc")) return true;
  if (!n.inputs[1]->isConstant()) return false;
  if (n.hasAttr("_epi_act") && !atck_act_in_regs(n.attrInt("_epi_act", 0))) return false;
  if (const char* e = getenv("ATC_CONV_DWC")) return e[0] == '1';
  return out[2] < 28 || (out[2] == 28 && s[2] > 1);
}

// conv_dwc (kernels/lib/conv_dwc.cpp): bands of CV_MB output rows whose pixel-major input tile
// and output tile fit in 32 KB each; CV_KC units (n, 16 channels) per task.
KernelCall lowerConvDepthwiseLanes(LowerCtx& c, std::vector<int64_t>& P, int64_t N, int64_t C,
                                   const std::vector<int64_t>& out, const std::vector<int64_t>& k,
                                   const std::vector<int64_t>& s, const std::vector<int64_t>& dl) {
  packDepthwiseLanes(c, C, k[1] * k[2]);
  P[CV_PADW] = (out[2] - 1) * s[2] + (k[2] - 1) * dl[2] + 1;
  auto bandRows = [&](int64_t b) { return dwBandRows(b, k, s, dl); };
  int64_t mb = out[1];
  // (32, 64 and 128 KB measured alike on MobileNetV2's strided 56x56 layer)
  while (mb > 1 && (bandRows(mb) * P[CV_PADW] * 64 > 32768 || mb * out[2] * 64 > 32768)) mb = (mb + 1) / 2;
  P[CV_MB] = mb;
  P[CV_PADH] = bandRows(mb);
  P[CV_SLOT] = P[CV_PADH] * P[CV_PADW] * 16 + (mb * out[2] + 15) / 16 * 256;
  P[CV_MR] = c.cubeRows == 16 ? 16 : 6;  // 8 output pixels at a time on 512-bit targets, else 4
  const int64_t units = N * ((C + 15) / 16);
  P[CV_KC] = planesPerTask(units, P[CV_SLOT] * 4);
  KernelCall kc{"conv_dwc", P};
  kc.workspaceBytes = (units + P[CV_KC] - 1) / P[CV_KC] * P[CV_SLOT] * 4 + 64;
  return kc;
}

KernelCall lowerConv(LowerCtx& c) {
  Node& n = c.node;
  ConvDims d = convDims(n);
  const DType xdt = n.inputs[0]->type.dtype, ydt = n.outputs[0]->type.dtype;
  auto fp = [](DType t) { return t == DType::F32 || t == DType::F16 || t == DType::BF16; };
  if (!fp(xdt) || !fp(ydt))
    opError(n, std::string("Conv reads and writes float32/float16/bfloat16 (got ") + dtypeName(xdt) + " -> " +
                   dtypeName(ydt) + ")");
  if (n.input(2) && n.input(2)->type.dtype != DType::F32) opError(n, "Conv bias must be float32");
  if (n.inputs[1]->type.dtype != DType::F32 && !n.inputs[1]->isConstant() && !n.hasAttr("_cube_wshape"))
    opError(n, "Conv: float16/bfloat16 weights must be constant");
  const WindowGeom& g = d.g;
  std::vector<int64_t> in = to3(g.in, 1), out = to3(g.out, 1), k = to3(g.kernel, 1),
                       s = to3(g.stride, 1), dl = to3(g.dil, 1), pb = to3(g.padBegin, 0);
  std::vector<int64_t> P(CV_COUNT, 0);
  P[CV_DTYPE] = (int64_t)xdt;
  P[CV_ODT] = (int64_t)ydt;
  P[CV_N] = d.N; P[CV_G] = d.G; P[CV_C] = d.C; P[CV_OC] = d.OC;
  for (int i = 0; i < 3; ++i) {
    P[CV_ID + i] = in[i]; P[CV_OD + i] = out[i]; P[CV_KD + i] = k[i];
    P[CV_SD + i] = s[i]; P[CV_DD + i] = dl[i]; P[CV_PD + i] = pb[i];
  }
  P[CV_HAS_BIAS] = n.input(2) ? 1 : 0;
  P[CV_YIDX] = (int64_t)n.inputs.size();
  setCubeEpilogue(n, P.data() + CV_EPI);

  // Depthwise (one input and one output channel per group), 1-D / 2-D.
  // Reads X as f32/f16/bf16, writes Y as f32/f16/bf16; constant f16/bf16 weights are widened
  // to f32 here.
  if (n.hasAttr("_dwc") || ((n.inputs[1]->type.dtype == DType::F32 || n.inputs[1]->isConstant()) &&
                             !n.hasAttr("_cube_wshape") && d.G == d.C && d.OC == d.C && d.G > 1 && in[0] == 1 &&
                             k[0] == 1)) {
    if (useDepthwiseLanes(n, out, s)) return lowerConvDepthwiseLanes(c, P, d.N, d.C, out, k, s, dl);
    return lowerConvDepthwise(c, P, d.N * d.C, out, k, s, dl);
  }

  const int64_t M = d.OC / d.G, K = d.C / d.G * k[0] * k[1] * k[2];
  const int64_t NPIX = out[0] * out[1] * out[2];
  const int64_t MR = c.cubeRows == 16 ? 16 : 6;  // microkernel family (kernels/lib/cube_gemm.h)
  P[CV_MR] = MR;
  const int64_t MP = (M + MR - 1) / MR;
  // K block: the whole K when small, else equal blocks of <= 320.
  int64_t nk = K <= 512 ? 1 : (K + 319) / 320;
  int64_t KC = (K + nk - 1) / nk;
  // Pixel block: ~128 KB of im2col rows per K block.
  int64_t NB = std::max<int64_t>(16, std::min<int64_t>(512, 32768 / KC / 16 * 16));
  int64_t nblocks = (NPIX + NB - 1) / NB;
  NB = ((NPIX + nblocks - 1) / nblocks + 15) / 16 * 16;
  nblocks = (NPIX + NB - 1) / NB;
  // Enough tasks for the thread pool: split output channels when there are few pixel blocks.
  // Prefer more pixel blocks (down to 64 pixels) over channel blocks: splitting channels
  // repeats the im2col of the block.
  while (d.N * d.G * nblocks < 8 && NB > 64) {
    NB = std::max<int64_t>(64, (NB / 2 + 15) / 16 * 16);
    nblocks = (NPIX + NB - 1) / NB;
  }
  // Band path: 1-D/2-D convs other than plain 1x1 ones, any stride (strided 1x1 convs take
  // im2col: their band would hold SH*SW times the pixels read). 1x1 stride-1 unpadded convs take
  // im2col, a plain copy of the rows there (faster than the band or reading the input in place:
  // measured, docs/kernels-cube.md). Strided windows read phase planes, so their tiles span
  // output rows like stride 1 (measured on Zen 5, 1 thread, against per-row tiles: ResNet-18 -4%,
  // ResNet-50 -2%, RegNetY-400MF -1.5%; a 14x14 -> 7x7 stride-2 conv fills 49 of 64 lanes instead
  // of 7 of 16 per row).
  const bool unit = s[1] == 1 && s[2] == 1;
  const bool plain1x1 = k[1] * k[2] == 1 && unit && g.padBegin == std::vector<int64_t>(g.nd, 0) &&
                        g.padEnd == g.padBegin;
  // The band's row offsets are int32: bands that could reach 2^30 floats take im2col.
  const double bandMax = (double)(d.C / d.G) *
                         ((double)((out[1] - 1) * s[1] + (k[1] - 1) * dl[1] + s[1]) *
                              (double)((out[2] - 1) * s[2] + (k[2] - 1) * dl[2] + s[2]) + 16.0);
  const bool band = !(plain1x1 || k[0] != 1 || in[0] != 1 || s[0] != 1 || K > (1 << 20) || bandMax > (1 << 30)) &&
                    (unit || k[1] * k[2] > 1);
  if (band) nblocks = bandRows(P, out, k, s, dl, std::max<int64_t>(NB, 224), d.N * d.G);
  int64_t mblocks = 1;
  int64_t base = d.N * d.G * nblocks;
  if (base < 8) mblocks = std::min<int64_t>(MP, (8 + base - 1) / base);
  int64_t MBp = (MP + mblocks - 1) / mblocks;
  mblocks = (MP + MBp - 1) / MBp;
  int64_t MSUB = std::max<int64_t>(MR, 24576 / KC / MR * MR);
  int64_t LDB = (NB / 16) % 2 ? NB : NB + 16;
  P[CV_MB] = MBp * MR; P[CV_NB] = NB; P[CV_KC] = KC; P[CV_MSUB] = MSUB;
  P[CV_MBLOCKS] = mblocks; P[CV_NBLOCKS] = nblocks;
  P[CV_LDB] = LDB;
  P[CV_SLOT] = KC * LDB;
  if (band) {  // row offsets (K int32), the padded band, the fp32 accumulator [MB][NQ]
    // SH x SW phase planes of HBR rows of PQ floats per input channel (kernels/lib/conv.cpp).
    const int64_t hbr = CUBE_CONV_BAND_HBR(P);
    P[CV_BAND_OFF] = (K + 15) / 16 * 16;
    P[CV_BPLANE] = (s[1] * s[2] * hbr * P[CV_PQ] + 15) / 16 * 16;
    if ((P[CV_BPLANE] / 16) % 2 == 0) P[CV_BPLANE] += 16;
    P[CV_ACC] = P[CV_BAND_OFF] + d.C / d.G * P[CV_BPLANE] + 32;
    P[CV_SLOT] = P[CV_ACC] + MBp * MR * P[CV_NQ];
  } else if (ydt != DType::F32) {  // fp32 accumulator block [MB][NB], rounded on store
    P[CV_ACC] = P[CV_SLOT];
    P[CV_SLOT] += MBp * MR * NB;
  }

  // The channel-major path, where it fills more lanes (ocmPays).
  const bool inPlace1x1 = k[1] * k[2] == 1 && g.padBegin == std::vector<int64_t>(g.nd, 0) && g.padEnd == g.padBegin;
  const bool ocmOk = n.inputs[1]->isConstant() && k[0] == 1 && in[0] == 1 && s[0] == 1 &&
                     (band || (inPlace1x1 && (double)(d.C / d.G) * in[1] * in[2] < (1 << 30)));
  const double lanes = band ? (double)NPIX / (double)(((P[CV_BROWS] - 1) * P[CV_PQ] + out[2] + 15) / 16 * 16 * nblocks)
                            : (double)NPIX / (double)((NB + 15) / 16 * 16 * nblocks);
  const bool bfXW = ocmOk && MR == 16 && xdt == DType::BF16 && n.inputs[1]->type.dtype == DType::BF16;
  // bfloat16 (or float16, as two bfloat16 parts: amxSplitParts) X and weights on an AMX target.
  const int64_t parts = bfXW ? 1 : amxSplitParts(n, ocmOk && MR == 16, xdt);
  if (parts && c.bf16Amx && convAmxForm(M, d.C / d.G, k[1] * k[2], band))
    return lowerConvAmx(c, P, d.N * d.G, M, d.C / d.G, band, out, k, s, dl, parts);
  // bfloat16 X and weights on a target with AVX512-BF16: the channel-major pair tiles (twice the
  // float32 rate; the pixel-major tiles have no pair form). Not on AMX targets (bf16_path amx):
  // Intel's cores issue vdpbf16ps at half the FMA rate, so the pairs win nothing there and the
  // converting tiles are faster (ResNet-50 bfloat16, docs/kernels-cube.md "AMX tiles").
  const bool bf = bfXW && c.bf16Dot && !c.bf16Amx;
  if (const int nv = ocmOk ? ocmPanelVectors(M, K, MR, lanes, costlyEpilogue(P[CV_EPI] - 1), bf ? 2.0 : 1.0, band) : 0)
    return lowerConvOcm(c, P, d.N * d.G, M, K, d.C / d.G, band, out, k, s, dl, nv, bf);
  P[CV_W_PACKED] = packConvWeights(c, d.G, M, K, MR) ? 1 : 0;
  KernelCall kc{"conv", P};
  kc.workspaceBytes = d.N * d.G * mblocks * nblocks * P[CV_SLOT] * 4 + 64;
  return kc;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "Conv";
  d.category = OpCategory::Cube;
  d.minInputs = 2;
  d.maxInputs = 4;  // input 3: residual of a fused epilogue (TbeCommonRules0FusionPass)
  d.infer = inferConv;
  d.lower = lowerConv;
  // The float16 / bfloat16 kernels read weights packed at compile time: weights computed at
  // run time (an input, or an op's output) keep the conv in float32.
  d.narrowIf = [](const Node& n) { return n.inputs.size() < 2 || !n.inputs[1] || n.inputs[1]->isConstant(); };
  return d;
}());

}  // namespace
}  // namespace atc
