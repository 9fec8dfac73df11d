// The three internal ops of a Winograd F(4x4, 3x3) convolution (ConvWinogradPass puts them in
// place of a stride-1 3x3 Conv; kernels/lib/conv_wino.cpp, wino_params.h):
//   WinogradInput(X) -> V float32 [36, VPOS] (position p's [C][TP] block at p * VPOS)
//       attrs: pads = [top, left, bottom, right] (the Conv's)
//   WinogradGemm(V, W) -> M float32 [36, MPOS] (position p's [TP][OCP] block at p * MPOS)
//       attrs: tiles = T, panel = NR (optional; 16 on 256-bit targets)
//       W: the Conv's constant weights [OC, C, 3, 3] (float32/float16/bfloat16), transformed
//       (G g G^T, in double) and packed [36][OCP/NR][C][NR] at lowering (NR = panel, else wino_panel(OC))
//   WinogradOutput(M [, B [, R]]) -> Y [N, OC, OH, OW]
//       attrs: y_shape = [N, OC, OH, OW], panel (as WinogradGemm's), _out_dtype, the cube
//       epilogue (_epi_act, _epi_alpha, _epi_beta, _epi_res: input index of the residual R)
// Tiles: TH = ceil(OH / 4), TW = ceil(OW / 4), T = N * TH * TW, TP = T rounded up to 16; OCP =
// OC rounded up to the panel width NR (64 or 32; 16 on 256-bit targets).
#include <algorithm>
#include <memory>

#include "ir/op_registry.h"
#include "kernels/lib/cube_params.h"
#include "kernels/lib/wino_params.h"
#include "ops/cube/gemm_lowering.h"

namespace atc {
namespace {

struct WinoGeom {
  int64_t N = 0, C = 0, H = 0, W = 0, OH = 0, OW = 0, TH = 0, TW = 0, T = 0, TP = 0;
  int64_t PT = 0, PL = 0;
};

WinoGeom inputGeom(const Node& n) {
  const TensorType& x = n.inputs[0]->type;
  if (!x.isStatic() || x.rank() != 4) opError(n, "WinogradInput needs a static 4-D input");
  std::vector<int64_t> p = n.attrInts("pads", {0, 0, 0, 0});
  if (p.size() != 4) opError(n, "pads must have 4 values");
  WinoGeom g;
  g.N = x.shape[0]; g.C = x.shape[1]; g.H = x.shape[2]; g.W = x.shape[3];
  g.PT = p[0]; g.PL = p[1];
  g.OH = g.H + p[0] + p[2] - 2;
  g.OW = g.W + p[1] + p[3] - 2;
  if (g.OH < 1 || g.OW < 1 || g.W > WINO_MAX_W || g.OW > WINO_MAX_W || p[0] < 0 || p[1] < 0)
    opError(n, "unsupported Winograd geometry (rows of at most " + std::to_string(WINO_MAX_W) + ", pads >= 0)");
  g.TH = (g.OH + 3) / 4; g.TW = (g.OW + 3) / 4;
  g.T = g.N * g.TH * g.TW;
  g.TP = (g.T + 15) / 16 * 16;
  return g;
}

void fillGeom(std::vector<int64_t>& P, const WinoGeom& g) {
  P[WI_N] = g.N; P[WI_C] = g.C; P[WI_H] = g.H; P[WI_W] = g.W; P[WI_PT] = g.PT; P[WI_PL] = g.PL;
  P[WI_OH] = g.OH; P[WI_OW] = g.OW; P[WI_TH] = g.TH; P[WI_TW] = g.TW; P[WI_TP] = g.TP;
}

// ---- WinogradInput -------------------------------------------------------------------------
void inferInput(Graph&, Node& n) {
  WinoGeom g = inputGeom(n);
  n.outputs[0]->type = TensorType(DType::F32, {36, wino_pos_stride(g.C * g.TP)});
}

KernelCall lowerInput(LowerCtx& c) {
  WinoGeom g = inputGeom(c.node);
  std::vector<int64_t> P(WI_COUNT, 0);
  fillGeom(P, g);
  P[WI_XDT] = (int64_t)c.node.inputs[0]->type.dtype;
  P[WI_VPOS] = wino_pos_stride(g.C * g.TP);
  return KernelCall{"wino_in", P};
}

// The output channels per weight panel: attribute `panel` (16 on 256-bit targets, set by
// ConvWinogradPass), else wino_panel (64 or 32, the 512-bit tiles).
int64_t panelWidth(const Node& n, int64_t OC) {
  const int64_t nr = n.attrInt("panel", 0);
  if (nr == 0) return wino_panel(OC);
  if (nr != 16 && nr != 32 && nr != 64) opError(n, "panel must be 16, 32 or 64");
  return nr;
}

// ---- WinogradGemm --------------------------------------------------------------------------
Shape gemmWeightShape(const Node& n) {
  if (n.hasAttr("_cube_wshape")) return n.attrInts("_cube_wshape");
  return n.inputs[1]->type.shape;
}

// Tiles T (attr), TP, and the channel counts of a WinogradGemm, checked against V's shape.
struct GemmDims {
  int64_t T, TP, C, OC, OCP;
};
GemmDims gemmDims(const Node& n) {
  const TensorType& v = n.inputs[0]->type;
  Shape w = gemmWeightShape(n);
  GemmDims d;
  d.T = n.attrInt("tiles", 0);
  d.TP = (d.T + 15) / 16 * 16;
  if (w.size() != 4 || w[2] != 3 || w[3] != 3 || d.T < 1) opError(n, "WinogradGemm needs weights [OC, C, 3, 3] and tiles");
  d.OC = w[0];
  d.C = w[1];
  const int64_t nr = panelWidth(n, d.OC);
  d.OCP = (d.OC + nr - 1) / nr * nr;
  if (!v.isStatic() || v.rank() != 2 || v.shape[0] != 36 || v.shape[1] != wino_pos_stride(d.C * d.TP))
    opError(n, "WinogradGemm: V does not match the weights and tiles");
  return d;
}

void inferGemm(Graph&, Node& n) {
  GemmDims d = gemmDims(n);
  n.outputs[0]->type = TensorType(DType::F32, {36, wino_pos_stride(d.TP * d.OCP)});
}

// U = G g G^T per (oc, c), in double, packed [36][OCP/NR][C][NR] (zero past OC).
void packWinogradWeights(LowerCtx& c, int64_t OC, int64_t C, int64_t NR) {
  Node& n = c.node;
  if (n.hasAttr("_cube_wshape")) return;
  if (!n.inputs[1]->isConstant()) opError(n, "WinogradGemm needs constant weights");
  n.attrs["_cube_wshape"] = n.inputs[1]->type.shape;
  const std::string how = "winograd_f4x4_3x3 " + std::to_string(OC) + "x" + std::to_string(C) + "/" + std::to_string(NR);
  if (c.usePackedInput(1, how)) return;
  // Points 0, 1, -1, 1/2, -2, infinity (kernels/lib/conv_wino.cpp has B^T and A^T).
  static const double G[6][3] = {{1, 0, 0},
                                 {1.0 / 3, 1.0 / 3, 1.0 / 3},
                                 {-1.0 / 3, 1.0 / 3, -1.0 / 3},
                                 {-16.0 / 15, -8.0 / 15, -4.0 / 15},
                                 {1.0 / 15, -2.0 / 15, 4.0 / 15},
                                 {0, 0, 1}};
  const int64_t OCP = (OC + NR - 1) / NR * NR, NP = OCP / NR;
  std::vector<float> w = cubeFloats(*n.inputs[1]->constant);
  auto pk = std::make_shared<Tensor>(TensorType(DType::F32, {36 * OCP * C}));
  float* d = pk->as<float>();
  std::fill(d, d + 36 * OCP * C, 0.0f);
  for (int64_t oc = 0; oc < OC; ++oc)
    for (int64_t ic = 0; ic < C; ++ic) {
      const float* g = w.data() + (oc * C + ic) * 9;
      double t[6][3];  // G g
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 3; ++j) t[i][j] = G[i][0] * g[j] + G[i][1] * g[3 + j] + G[i][2] * g[6 + j];
      for (int i = 0; i < 6; ++i)
        for (int k = 0; k < 6; ++k) {
          const double u = t[i][0] * G[k][0] + t[i][1] * G[k][1] + t[i][2] * G[k][2];
          d[(((i * 6 + k) * NP + oc / NR) * C + ic) * NR + oc % NR] = (float)u;
        }
    }
  c.replaceConstInput(1, pk, how);
}

KernelCall lowerGemm(LowerCtx& c) {
  Node& n = c.node;
  const GemmDims d = gemmDims(n);
  const int64_t OC = d.OC, C = d.C, TP = d.TP, OCP = d.OCP, T = d.T;
  std::vector<int64_t> P(WI_COUNT, 0);
  P[WI_VPOS] = wino_pos_stride(C * TP);
  P[WI_MPOS] = wino_pos_stride(TP * OCP);
  P[WI_T] = T;
  P[WI_C] = C; P[WI_TP] = TP; P[WI_OC] = OC; P[WI_OCP] = OCP;
  // K blocks of <= 128 (the 32 KB weight sub-panel stays in L1 across the tile rows), tile blocks
  // of <= 96 (multiples of 6), channel blocks of <= 256; more blocks while under 72 tasks.
  const int64_t nk = (C + 127) / 128;
  P[WI_KC] = (C + nk - 1) / nk;
  const int64_t NR = panelWidth(n, OC), PR = NR == 32 ? 8 : 6;
  P[WI_NR] = NR;
  int64_t TB = std::min<int64_t>(96, (T + PR - 1) / PR * PR), MB = std::min<int64_t>(256, OCP);
  auto tasks = [&] { return 36 * ((T + TB - 1) / TB) * ((OCP + MB - 1) / MB); };
  while (tasks() < 72 && MB > NR) MB = std::max<int64_t>(NR, MB / 2 / NR * NR);
  while (tasks() < 72 && TB > 4 * PR) TB = std::max<int64_t>(4 * PR, (TB / 2 + PR - 1) / PR * PR);
  P[WI_TB] = TB; P[WI_MB] = MB;
  P[WI_NTB] = (T + TB - 1) / TB;
  P[WI_NMB] = (OCP + MB - 1) / MB;
  packWinogradWeights(c, OC, C, NR);
  return KernelCall{"wino_gemm", P};
}

// ---- WinogradOutput ------------------------------------------------------------------------
void inferOutput(Graph&, Node& n) {
  const std::vector<int64_t> y = n.attrInts("y_shape");
  if (y.size() != 4) opError(n, "y_shape must have 4 values");
  DType od = n.hasAttr("_out_dtype") ? (DType)n.attrInt("_out_dtype", 1) : DType::F32;
  n.outputs[0]->type = TensorType(od, y);
}

KernelCall lowerOutput(LowerCtx& c) {
  Node& n = c.node;
  const std::vector<int64_t> y = n.attrInts("y_shape");
  const TensorType& m = n.inputs[0]->type;
  if (y.size() != 4 || y[0] < 1 || y[1] < 1 || y[2] < 1 || y[3] < 1) opError(n, "bad WinogradOutput y_shape");
  if (n.input(1) && (n.input(1)->type.dtype != DType::F32 || n.input(1)->type.numel() != y[1]))
    opError(n, "WinogradOutput bias must be float32 with one value per channel");
  std::vector<int64_t> P(WI_COUNT, 0);
  P[WI_N] = y[0]; P[WI_OC] = y[1]; P[WI_OH] = y[2]; P[WI_OW] = y[3];
  P[WI_TH] = (y[2] + 3) / 4; P[WI_TW] = (y[3] + 3) / 4;
  const int64_t T = y[0] * P[WI_TH] * P[WI_TW];
  P[WI_TP] = (T + 15) / 16 * 16;
  const int64_t nr = panelWidth(n, y[1]);
  P[WI_OCP] = (y[1] + nr - 1) / nr * nr;
  P[WI_MPOS] = wino_pos_stride(P[WI_TP] * P[WI_OCP]);
  if (!m.isStatic() || m.rank() != 2 || m.shape[0] != 36 || m.shape[1] != P[WI_MPOS])
    opError(n, "WinogradOutput: M does not match y_shape");
  P[WI_ODT] = (int64_t)n.outputs[0]->type.dtype;
  P[WI_HAS_BIAS] = n.input(1) ? 1 : 0;
  P[WI_YIDX] = (int64_t)n.inputs.size();
  setCubeEpilogue(n, P.data() + WI_EPI);
  return KernelCall{"wino_out", P};
}

OpDef makeOp(const char* type, int minIn, int maxIn, void (*infer)(Graph&, Node&), KernelCall (*lower)(LowerCtx&)) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::Cube;
  d.minInputs = minIn;
  d.maxInputs = maxIn;
  d.infer = infer;
  d.lower = lower;
  d.internal = true;
  return d;
}

ATC_REGISTER_OP(makeOp("WinogradInput", 1, 1, inferInput, lowerInput));
ATC_REGISTER_OP(makeOp("WinogradGemm", 2, 2, inferGemm, lowerGemm));
ATC_REGISTER_OP(makeOp("WinogradOutput", 1, 3, inferOutput, lowerOutput));

}  // namespace
}  // namespace atc
