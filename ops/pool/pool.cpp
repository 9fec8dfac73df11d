// MaxPool (with optional Indices output, storage_order, dilations, ceil_mode; int8 and uint8
// through their own kernel), AveragePool
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
  const bool int8 = xt.dtype == DType::I8 || xt.dtype == DType::U8;
  if (!isFloat(xt.dtype) && !(int8 && n.type == "MaxPool"))
    opError(n, "pooling needs a floating-point input (MaxPool also takes int8 and uint8)");
  if (int8 && n.outputs.size() > 1) opError(n, "MaxPool's Indices output needs a floating-point input");
  Shape out = {xt.shape[0], xt.shape[1]};
  out.insert(out.end(), g.out.begin(), g.out.end());
  n.outputs[0]->type = TensorType(xt.dtype, out);
  if (n.outputs.size() > 1) {
    if (n.type != "MaxPool") opError(n, "only MaxPool has a second output");
    n.outputs[1]->type = TensorType(DType::I64, out);
  }
}

// MaxPool on int8 / uint8: kernel maxpool_int (kernels/lib/pool_int.cpp), params {dtype,
// N*C, nd, in[3], out[3], kernel[3], stride[3], dil[3], padBegin[3]} (unused dims 1, pads 0).
KernelCall lowerIntMaxPool(const Node& n, const WindowGeom& g) {
  const Shape& x = n.inputs[0]->type.shape;
  std::vector<int64_t> P = {(int64_t)n.inputs[0]->type.dtype, x[0] * x[1], g.nd};
  for (const std::vector<int64_t>* v : {&g.in, &g.out, &g.kernel, &g.stride, &g.dil, &g.padBegin}) {
    const int64_t fill = v == &g.padBegin ? 0 : 1;
    for (int i = 0; i < 3; ++i) P.push_back(i < g.nd ? (*v)[i] : fill);
  }
  return KernelCall{"maxpool_int", P};
}

KernelCall lowerPool(LowerCtx& c) {
  Node& n = c.node;
  WindowGeom g = poolGeometry(n);
  if (!isFloat(n.inputs[0]->type.dtype)) return lowerIntMaxPool(n, g);
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
