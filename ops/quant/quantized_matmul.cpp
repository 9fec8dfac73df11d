// QuantizedMatMul (internal op, made by QdqConvFoldPass from DequantizeLinear -> MatMul / Gemm
// of a QDQ model): the product of an 8-bit input with constant int8 weights, kernel
// "qmatmul8" (kernels/lib/qmatmul8.cpp; layouts in quant_params.h QMatMul8Param).
//   inputs: x (float32 [..., K], quantized in the kernel as QuantizeLinear(x, x_scale,
//           x_zero_point) does; or uint8 / int8, already quantized), x_scale (float32
//           scalar), x_zero_point (uint8 / int8 scalar, constant), w (int8 [N, K], constant:
//           the weights transposed, one row per output column), mult (float32 [N], constant),
//           B (float32 [N], constant, optional)
//   y[..., n] = float(sum_k (xq[..., k] - x_zero_point) * w[n, k]) * mult[n] + B[n]
//           (float32 [..., N])
// mult is x_scale * w_scale[n].
#include <algorithm>

#include "ops/quant/q8_pack.h"
#include "ops/quant/quant_util.h"
#include "support/strings.h"

namespace atc {
namespace {

struct QmDims {
  int64_t M = 1, K = 0, N = 0;
};

QmDims quantizedMatMulDims(const Node& n) {
  const TensorType& xt = n.inputs[0]->type;
  // After lowering, w and mult are the kernel's packed weights and aux words; the shape w had
  // is kept in _q8_wshape (inference runs again on lowered graphs).
  const bool packed = n.hasAttr("_q8_wshape");
  const Shape ws = packed ? n.attrInts("_q8_wshape") : n.inputs[3]->type.shape;
  if (xt.dtype != DType::F32 && !isQuant8(xt.dtype)) opError(n, "x must be float32, uint8 or int8");
  if (n.inputs[3]->type.dtype != DType::I8) opError(n, "w must be int8");
  if (!xt.isStatic() || xt.shape.empty() || !n.inputs[3]->type.shapeKnown || ws.size() != 2)
    opError(n, "x must have a static shape [..., K] and w must be 2-D [N, K]");
  QmDims d;
  d.K = xt.shape.back();
  d.N = ws[0];
  for (size_t i = 0; i + 1 < xt.shape.size(); ++i) d.M *= xt.shape[i];
  if (ws[1] != d.K) opError(n, "w has " + std::to_string(ws[1]) + " columns (K), x has " + std::to_string(d.K));
  checkQ8Operands(n, d.N, packed, "output column");
  if (n.inputs.size() > 6) opError(n, "takes at most 6 inputs");
  return d;
}

void inferQuantizedMatMul(Graph&, Node& n) {
  const QmDims d = quantizedMatMulDims(n);
  Shape ys = n.inputs[0]->type.shape;
  ys.back() = d.N;
  n.outputs[0]->type = TensorType(DType::F32, ys);
}

// Row blocks of at most 64 rows (their quantized rows stay in L2 while every panel group
// passes over them) and groups of panels (multiples of the kernel's 3-panel tile), at least 8
// tasks where the output allows it.
void qmTasks(std::vector<int64_t>& P, int64_t M, int64_t npanels) {
  const int64_t MB = std::min<int64_t>(64, (M + 7) / 8 * 8);
  const int64_t nmb = (M + MB - 1) / MB;
  const int64_t strips = (npanels + 2) / 3;
  const int64_t wantGroups = std::min<int64_t>(strips, (8 + nmb - 1) / nmb);
  const int64_t perGroup = (strips + wantGroups - 1) / wantGroups;
  P[QM_MB] = MB;
  P[QM_NMB] = nmb;
  P[QM_PANELS] = perGroup * 3;
  P[QM_NPG] = (strips + perGroup - 1) / perGroup;
}

KernelCall lowerQuantizedMatMul(LowerCtx& c) {
  Node& n = c.node;
  const QmDims d = quantizedMatMulDims(n);
  for (size_t i : {(size_t)1, (size_t)2, (size_t)3, (size_t)4})
    if (!n.inputs[i]->isConstant()) opError(n, "x_scale, x_zero_point, w and mult must be constants");
  if (n.input(5) && !n.input(5)->isConstant()) opError(n, "B must be a constant");
  const int64_t KQ = (d.K + 3) / 4, NP = (d.N + 15) / 16 * 16;
  std::vector<int64_t> P(QM_COUNT, 0);
  P[QM_M] = d.M; P[QM_K] = d.K; P[QM_N] = d.N; P[QM_KQ] = KQ; P[QM_NP] = NP;
  P[QM_XDT] = (int64_t)n.inputs[0]->type.dtype;
  P[QM_QDT] = (int64_t)n.inputs[2]->type.dtype;
  P[QM_XSCALE] = paramFromDouble(n.inputs[1]->constant->floatAt(0));
  P[QM_XZP] = n.inputs[2]->constant->intAt(0);
  P[QM_VNNI] = c.int8Amx ? 3 : c.int8Path;
  qmTasks(P, d.M, NP / 16);
  const int64_t TR = P[QM_VNNI] == 3 ? 16 : 8;  // rows per tile (AMX: 16)
  const int64_t mbp = (P[QM_MB] + TR - 1) / TR * TR;
  P[QM_SLOT] = (mbp * KQ * 4 + TR * 3 * 16 * 4 + 63) / 64 * 64;  // rows, accumulators
  P[QM_XBUF] = 0; P[QM_WBUF] = 3; P[QM_ABUF] = 4; P[QM_YBUF] = (int64_t)n.inputs.size();
  if (!n.hasAttr("_q8_wshape")) {
    const int32_t zpFlipped = (int32_t)P[QM_XZP] + (P[QM_QDT] == (int64_t)DType::I8 ? 128 : 0);
    c.replaceConstInput(4, q8Aux(n, d.N, NP, d.K, zpFlipped));
    const std::string how = "qmatmul8_panels " + std::to_string(d.N) + "x" + std::to_string(d.K);
    const bool wide = Q8_IS_WIDE(P[QM_VNNI]);
    const std::string key = wide ? how + " int16" : how;
    if (!c.usePackedInput(3, key)) {
      TensorPtr pk = packQ8Weights(*n.inputs[3]->constant, d.N, d.K, 1, 1, NP, KQ);
      c.replaceConstInput(3, wide ? widenQ8Weights(*pk) : pk, key);
    }
    n.attrs["_q8_wshape"] = Shape{d.N, d.K};
  }
  KernelCall kc = makeCall("qmatmul8", P);
  kc.workspaceBytes = P[QM_NMB] * P[QM_NPG] * P[QM_SLOT] + 64;
  return kc;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "QuantizedMatMul";
  d.internal = true;
  d.minInputs = 5;
  d.maxInputs = 6;
  d.infer = inferQuantizedMatMul;
  d.lower = lowerQuantizedMatMul;
  return d;
}());

}  // namespace
}  // namespace atc
