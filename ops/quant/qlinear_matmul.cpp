// MatMulInteger (int32 output) and QLinearMatMul (requantized int8/uint8 output): kernel
// "qgemm" (kernels/lib/qgemm.cpp). numpy matmul semantics: 1-D operands are promoted, batch
// dims broadcast when each operand's batch is either the output's or a single matrix. Zero
// points and scales: per tensor, per row of A (M values), per column of B (N values).
#include "ops/quant/quant_util.h"

namespace atc {
namespace {

struct QMatDims {
  Shape out;
  int64_t M = 0, K = 0, N = 0, batch = 1, aStride = 0, bStride = 0;
};

QMatDims qmatDims(const Node& n, size_t ai, size_t bi) {
  checkQuant8(n, ai, "A");
  checkQuant8(n, bi, "B");
  Shape a = n.inputs[ai]->type.shape, b = n.inputs[bi]->type.shape;
  if (a.empty() || b.empty()) opError(n, "A and B must have rank >= 1");
  const bool aVec = a.size() == 1, bVec = b.size() == 1;
  if (aVec) a.insert(a.begin(), 1);
  if (bVec) b.push_back(1);
  QMatDims d;
  d.M = a[a.size() - 2];
  d.K = a.back();
  d.N = b.back();
  if (b[b.size() - 2] != d.K)
    opError(n, "inner dimensions differ: A has K=" + std::to_string(d.K) + ", B has K=" + std::to_string(b[b.size() - 2]));
  Shape ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  Shape batch = broadcastShapes({ab, bb}, n);
  int64_t an = 1, bn = 1;
  for (int64_t v : ab) an *= v;
  for (int64_t v : bb) bn *= v;
  for (int64_t v : batch) d.batch *= v;
  if ((an != d.batch && an != 1) || (bn != d.batch && bn != 1))
    opError(n, "batch dims that broadcast inside each other (A's and B's both partly 1) are not supported");
  d.aStride = an == 1 ? 0 : d.M * d.K;
  d.bStride = bn == 1 ? 0 : d.K * d.N;
  d.out = batch;
  if (!aVec) d.out.push_back(d.M);
  if (!bVec) d.out.push_back(d.N);
  return d;
}

std::vector<int64_t> qgemmParams(const Node& n, const QMatDims& d, size_t ai, size_t bi) {
  std::vector<int64_t> P(QG_COUNT, 0);
  P[QG_M] = d.M;
  P[QG_N] = d.N;
  P[QG_K] = d.K;
  P[QG_BATCH] = d.batch;
  P[QG_ADT] = (int64_t)n.inputs[ai]->type.dtype;
  P[QG_BDT] = (int64_t)n.inputs[bi]->type.dtype;
  P[QG_YDT] = (int64_t)n.outputs[0]->type.dtype;
  P[QG_ASTRIDE] = d.aStride;
  P[QG_BSTRIDE] = d.bStride;
  P[QG_ABUF] = (int64_t)ai;
  P[QG_BBUF] = (int64_t)bi;
  P[QG_YBUF] = (int64_t)n.inputs.size();
  P[QG_YZBUF] = P[QG_YSBUF] = -1;
  return P;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "MatMulInteger";
  d.minInputs = 2;
  d.maxInputs = 4;
  d.infer = [](Graph&, Node& n) {
    QMatDims m = qmatDims(n, 0, 1);
    integerParams(n, "A", "B", m.M, m.N);
    n.outputs[0]->type = TensorType(DType::I32, m.out);
  };
  d.lower = [](LowerCtx& c) {
    QMatDims m = qmatDims(c.node, 0, 1);
    std::vector<int64_t> P = qgemmParams(c.node, m, 0, 1);
    P[QG_MODE] = QO_INT32;
    integerParams(c.node, "A", "B", m.M, m.N, P.data() + QG_AW, P.data() + QG_BW);
    return makeCall("qgemm", P);
  };
  return d;
}());

// Inputs: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point.
ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "QLinearMatMul";
  d.minInputs = 8;
  d.maxInputs = 8;
  d.infer = [](Graph&, Node& n) {
    QMatDims m = qmatDims(n, 0, 3);
    n.outputs[0]->type = TensorType(qlinearParams(n, "a", "b", m.M, m.N), m.out);
  };
  d.lower = [](LowerCtx& c) {
    QMatDims m = qmatDims(c.node, 0, 3);
    std::vector<int64_t> P = qgemmParams(c.node, m, 0, 3);
    P[QG_MODE] = QO_REQUANT;
    qlinearParams(c.node, "a", "b", m.M, m.N, P.data() + QG_AW, P.data() + QG_BW, P.data() + QG_YZBUF);
    return makeCall("qgemm", P);
  };
  return d;
}());

}  // namespace
}  // namespace atc
