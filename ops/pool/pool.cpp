// MaxPool (with optional Indices output, storage_order, dilations, ceil_mode), AveragePool
// (count_include_pad, ceil_mode) and LpPool: 1-D, 2-D and 3-D windows. Lower to the pool
// kernel (kernels/lib/pool.cpp).
#include "ops/pool/pool_lowering.h"

namespace atc {
namespace {

WindowGeom poolGeometry(const Node& n) {
  const TensorType& xt = n.inputs[0]->type;
  if (!xt.shapeKnown || xt.rank() < 3 || xt.rank() > 5)
    opError(n, "X must have rank 3..5 (N, C and 1-3 spatial dims)");
  if (!n.hasAttr("kernel_shape")) opError(n, "attribute kernel_shape is required");
  std::vector<int64_t> k = n.attrInts("kernel_shape");
  std::vector<int64_t> in(xt.shape.begin() + 2, xt.shape.end());
  if (k.size() != in.size()) opError(n, "kernel_shape must have one value per spatial dim");
  bool ceilMode = n.attrInt("ceil_mode", 0) != 0;
  return windowGeometry(n, in, k, ceilMode);
}

void inferPool(Graph&, Node& n) {
  WindowGeom g = poolGeometry(n);
  const TensorType& xt = n.inputs[0]->type;
  if (!isFloat(xt.dtype)) opError(n, "pooling needs a floating-point input");
  Shape out = {xt.shape[0], xt.shape[1]};
  out.insert(out.end(), g.out.begin(), g.out.end());
  n.outputs[0]->type = TensorType(xt.dtype, out);
  if (n.outputs.size() > 1) {
    if (n.type != "MaxPool") opError(n, "only MaxPool has a second output");
    n.outputs[1]->type = TensorType(DType::I64, out);
  }
}

KernelCall lowerPool(LowerCtx& c) {
  Node& n = c.node;
  WindowGeom g = poolGeometry(n);
  int kind = n.type == "MaxPool" ? 0 : n.type == "AveragePool" ? 1 : 2;
  PoolSpec s;
  s.kind = kind;
  s.g = g;
  s.countIncludePad = kind == 1 && n.attrInt("count_include_pad", 0) != 0;
  s.p = (double)n.attrInt("p", 2);
  s.indices = kind == 0 && n.outputs.size() > 1;
  s.storageOrder = n.attrInt("storage_order", 0);
  return lowerPoolSpec(n, s);
}

OpDef poolDef(const char* type, int maxOutputs) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::Pool;
  d.minInputs = 1;
  d.maxInputs = 1;
  d.maxOutputs = maxOutputs;
  d.infer = inferPool;
  d.lower = lowerPool;
  if (std::string(type) != "LpPool") d.reducedFloats = {DType::F16};  // pool kernels: float32, float16
  return d;
}

ATC_REGISTER_OP(poolDef("MaxPool", 2));
ATC_REGISTER_OP(poolDef("AveragePool", 1));
ATC_REGISTER_OP(poolDef("LpPool", 1));

}  // namespace
}  // namespace atc
