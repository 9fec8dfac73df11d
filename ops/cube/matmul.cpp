// MatMul (ONNX, numpy semantics): batched, broadcast batch dims, 1-D operands. Lowers to
// the gemm kernel; batch dims of A are folded into M when B has none.
#include "ops/cube/gemm_lowering.h"

namespace atc {
namespace {

struct MatMulDims {
  Shape a, b;          // operand shapes promoted to rank >= 2
  bool aVec, bVec;     // 1-D operands
  Shape batch;         // broadcast batch dims
  int64_t M, K, N;
};

MatMulDims matmulDims(const Node& n) {
  if (!n.inputs[0]->type.shapeKnown || !n.inputs[1]->type.shapeKnown)
    opError(n, "inputs have unknown rank");
  MatMulDims d;
  d.a = cubeOrigShape(n, 0);
  d.b = cubeOrigShape(n, 1);
  if (d.a.empty() || d.b.empty()) opError(n, "MatMul inputs must have rank >= 1");
  d.aVec = d.a.size() == 1;
  d.bVec = d.b.size() == 1;
  if (d.aVec) d.a.insert(d.a.begin(), 1);
  if (d.bVec) d.b.push_back(1);
  d.M = d.a[d.a.size() - 2];
  d.K = d.a.back();
  d.N = d.b.back();
  if (d.b[d.b.size() - 2] != d.K)
    opError(n, "inner dimensions differ: A has K=" + std::to_string(d.K) + ", B has K=" +
                   std::to_string(d.b[d.b.size() - 2]));
  Shape ab(d.a.begin(), d.a.end() - 2), bb(d.b.begin(), d.b.end() - 2);
  d.batch = broadcastShapes({ab, bb}, n);
  return d;
}

void inferMatMul(Graph&, Node& n) {
  MatMulDims d = matmulDims(n);
  Shape out = d.batch;
  if (!d.aVec) out.push_back(d.M);
  if (!d.bVec) out.push_back(d.N);
  DType od = n.hasAttr("_out_dtype") ? (DType)n.attrInt("_out_dtype", 1) : n.inputs[0]->type.dtype;
  n.outputs[0]->type = TensorType(od, out);
}

// Strides of the batch dims of a contiguous operand `s` (rank >= 2), right-aligned to
// `batch`; broadcast dims get stride 0.
std::vector<int64_t> batchStrides(const Shape& s, const Shape& batch) {
  std::vector<int64_t> st(batch.size(), 0);
  int64_t stride = s[s.size() - 1] * s[s.size() - 2];
  int64_t nb = (int64_t)s.size() - 2;
  for (int64_t i = nb - 1; i >= 0; --i) {
    size_t bi = batch.size() - (nb - i);
    st[bi] = s[i] == 1 ? 0 : stride;
    stride *= s[i];
  }
  return st;
}

KernelCall lowerMatMul(LowerCtx& c) {
  Node& n = c.node;
  MatMulDims d = matmulDims(n);
  if (!isFloat(n.inputs[0]->type.dtype))
    opError(n, std::string("MatMul on ") + dtypeName(n.inputs[0]->type.dtype) +
                   " is not supported by the kernel library (float32 only)");
  GemmSpec s;
  s.M = d.M; s.N = d.N; s.K = d.K;
  if (n.input(2)) {  // bias over N (MatMulBiasAddFusionPass)
    if (n.input(2)->type.numel() != d.N) opError(n, "bias must have N elements");
    s.hasC = true; s.cRs = 0; s.cCs = 1; s.beta = 1.0;
  }
  s.aRs = d.K; s.aCs = 1; s.bRs = d.N; s.bCs = 1;
  int64_t bBatchElems = 1;
  for (size_t i = 0; i + 2 < d.b.size(); ++i) bBatchElems *= d.b[i];
  int64_t aBatchElems = 1;
  for (size_t i = 0; i + 2 < d.a.size(); ++i) aBatchElems *= d.a[i];
  int64_t outBatchElems = 1;
  for (auto x : d.batch) outBatchElems *= x;
  if (bBatchElems == 1 && aBatchElems == outBatchElems) {
    // B is shared by all batches and A is contiguous: one big (batch*M) x N product.
    s.M = d.M * outBatchElems;
  } else {
    s.batch = d.batch;
    s.aBatchStride = batchStrides(d.a, d.batch);
    s.bBatchStride = batchStrides(d.b, d.batch);
  }
  return lowerGemmSpec(c, s);
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "MatMul";
  d.category = OpCategory::Cube;
  d.minInputs = 2;
  d.maxInputs = 4;  // 2: bias (MatMulBiasAddFusionPass), 3: epilogue residual
  d.infer = inferMatMul;
  d.lower = lowerMatMul;
  return d;
}());

}  // namespace
}  // namespace atc
