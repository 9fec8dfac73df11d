// Gemm (ONNX): Y = alpha * A' x B' + beta * C, A' / B' optionally transposed, C optional
// (opset 11+) and unidirectionally broadcast to [M, N]. Lowers to the gemm kernel.
#include "ops/cube/gemm_lowering.h"

namespace atc {
namespace {

struct GemmDims {
  int64_t M, K, N;
  bool transA, transB;
};

GemmDims gemmDims(const Node& n) {
  Shape a = cubeOrigShape(n, 0), b = cubeOrigShape(n, 1);
  if (a.size() != 2 || b.size() != 2) opError(n, "A and B must be 2-D");
  GemmDims d;
  d.transA = n.attrInt("transA", 0) != 0;
  d.transB = n.attrInt("transB", 0) != 0;
  d.M = d.transA ? a[1] : a[0];
  d.K = d.transA ? a[0] : a[1];
  int64_t kb = d.transB ? b[1] : b[0];
  d.N = d.transB ? b[0] : b[1];
  if (kb != d.K) opError(n, "inner dimensions of A and B differ");
  return d;
}

void inferGemm(Graph&, Node& n) {
  GemmDims d = gemmDims(n);
  if (Value* c = n.input(2)) {
    const Shape& cs = c->type.shape;
    if (cs.size() > 2) opError(n, "C must have rank <= 2");
    Shape full = {d.M, d.N};
    for (size_t i = 0; i < cs.size(); ++i) {
      int64_t want = full[2 - cs.size() + i];
      if (cs[i] != 1 && cs[i] != want) opError(n, "C cannot be broadcast to [M, N]");
    }
  }
  DType od = n.hasAttr("_out_dtype") ? (DType)n.attrInt("_out_dtype", 1) : n.inputs[0]->type.dtype;
  n.outputs[0]->type = TensorType(od, {d.M, d.N});
}

KernelCall lowerGemm(LowerCtx& c) {
  Node& n = c.node;
  GemmDims d = gemmDims(n);
  GemmSpec s;
  s.M = d.M; s.N = d.N; s.K = d.K;
  s.aRs = d.transA ? 1 : d.K;
  s.aCs = d.transA ? d.M : 1;
  s.bRs = d.transB ? 1 : d.N;
  s.bCs = d.transB ? d.K : 1;
  s.alpha = n.attrFloat("alpha", 1.0);
  s.beta = n.attrFloat("beta", 1.0);
  if (Value* cv = n.input(2)) {
    const Shape& cs = cv->type.shape;
    s.hasC = s.beta != 0.0;
    if (cs.size() == 2) {
      s.cRs = cs[0] == 1 ? 0 : cs[1];
      s.cCs = cs[1] == 1 ? 0 : 1;
    } else if (cs.size() == 1) {
      s.cRs = 0;
      s.cCs = cs[0] == 1 ? 0 : 1;
    }
  }
  return lowerGemmSpec(c, s);
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "Gemm";
  d.category = OpCategory::Cube;
  d.minInputs = 2;
  d.maxInputs = 4;  // input 3: epilogue residual (TbeCommonRules0FusionPass)
  d.infer = inferGemm;
  d.lower = lowerGemm;
  return d;
}());

}  // namespace
}  // namespace atc
