// GlobalAveragePool, GlobalMaxPool, GlobalLpPool: one window over all spatial dims.
// Lower to the pool kernel with the window = the input plane.
#include "ops/pool/pool_lowering.h"

namespace atc {
namespace {

void inferGlobalPool(Graph&, Node& n) {
  const TensorType& xt = n.inputs[0]->type;
  if (!xt.shapeKnown || xt.rank() < 3 || xt.rank() > 5)
    opError(n, "X must have rank 3..5 (N, C and 1-3 spatial dims)");
  if (!isFloat(xt.dtype)) opError(n, "pooling needs a floating-point input");
  Shape out(xt.shape.size(), 1);
  out[0] = xt.shape[0];
  out[1] = xt.shape[1];
  n.outputs[0]->type = TensorType(xt.dtype, out);
}

KernelCall lowerGlobalPool(LowerCtx& c) {
  Node& n = c.node;
  const TensorType& xt = n.inputs[0]->type;
  PoolSpec s;
  s.kind = n.type == "GlobalMaxPool" ? 0 : n.type == "GlobalAveragePool" ? 1 : 2;
  s.p = (double)n.attrInt("p", 2);
  int nd = (int)xt.rank() - 2;
  s.g.nd = nd;
  s.g.in.assign(xt.shape.begin() + 2, xt.shape.end());
  s.g.kernel = s.g.in;
  s.g.stride.assign(nd, 1);
  s.g.dil.assign(nd, 1);
  s.g.padBegin.assign(nd, 0);
  s.g.padEnd.assign(nd, 0);
  s.g.out.assign(nd, 1);
  return lowerPoolSpec(n, s);
}

OpDef globalDef(const char* type) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::Pool;
  d.infer = inferGlobalPool;
  d.lower = lowerGlobalPool;
  if (std::string(type) != "GlobalLpPool") d.reducedFloats = {DType::F16};  // pool kernels: float32, float16
  return d;
}

ATC_REGISTER_OP(globalDef("GlobalAveragePool"));
ATC_REGISTER_OP(globalDef("GlobalMaxPool"));
ATC_REGISTER_OP(globalDef("GlobalLpPool"));

}  // namespace
}  // namespace atc
