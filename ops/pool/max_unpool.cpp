// MaxUnpool: kernel max_unpool (kernels/lib/max_unpool.cpp). The output shape is inferred from
// kernel_shape, strides and pads, or given by output_shape (input 2): a constant, or fed at run
// time (the output run-sized, docs/dynamic-shapes.md).
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

Shape inferredShape(const Node& n) {
  const Shape& x = dm::staticShape(n, 0);
  if (x.size() < 3 || x.size() > 5) opError(n, "X must be [N, C, D1...] with 1 to 3 spatial dims");
  const size_t nd = x.size() - 2;
  auto k = n.attrInts("kernel_shape");
  auto s = n.hasAttr("strides") ? n.attrInts("strides") : std::vector<int64_t>(nd, 1);
  auto p = n.hasAttr("pads") ? n.attrInts("pads") : std::vector<int64_t>(2 * nd, 0);
  if (k.size() != nd || s.size() != nd || p.size() != 2 * nd)
    opError(n, "kernel_shape, strides and pads must match X's spatial dims");
  Shape out = {x[0], x[1]};
  for (size_t d = 0; d < nd; ++d) {
    const int64_t v = (x[2 + d] - 1) * s[d] - (p[d] + p[nd + d]) + k[d];
    if (v < 0 || s[d] < 1) opError(n, "the inferred output shape is negative");
    out.push_back(v);
  }
  if (dm::staticShape(n, 1) != x) opError(n, "I must have X's shape");
  const DType it = n.inputs[1]->type.dtype;
  if (it != DType::I64 && it != DType::I32) opError(n, "I must be int64");
  return out;
}

void inferMaxUnpool(Graph&, Node& n) {
  const Shape inf = inferredShape(n);
  const DType dt = n.inputs[0]->type.dtype;
  int64_t len = 0;
  if (dm::hasInput(n, 2) && dm::runTimeShapeInput(n, 2, "output_shape", {DType::I64}, &len)) {
    if (len != (int64_t)inf.size()) opError(n, "output_shape must hold one value per dim of X");
    dm::setRunSized(n, 0, dt, Shape(inf.size(), -1));
    return;
  }
  Shape out = inf;
  if (dm::hasInput(n, 2)) {
    out = dm::constInts(n, 2, "output_shape");
    if (out.size() != inf.size()) opError(n, "output_shape must hold one value per dim of X");
    for (size_t d = 0; d < out.size(); ++d)
      if (out[d] < inf[d]) opError(n, "output_shape is smaller than the inferred shape");
  }
  n.outputs[0]->type = TensorType(dt, out);
}

KernelCall lowerMaxUnpool(LowerCtx& c) {
  const Node& n = c.node;
  const Shape inf = inferredShape(n);
  const bool rt = isRunSized(n.outputs[0]);
  KernelCall k{"max_unpool", {(int64_t)dtypeSize(n.inputs[0]->type.dtype), (int64_t)inf.size(),
                              (int64_t)n.inputs[1]->type.dtype, n.inputs[0]->type.numel(), (int64_t)n.inputs.size(),
                              rt ? 1 : 0}};
  k.params.insert(k.params.end(), inf.begin(), inf.end());
  const Shape& out = rt ? inf : n.outputs[0]->type.shape;
  k.params.insert(k.params.end(), out.begin(), out.end());
  k.sizesOutputs = rt;
  return k;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "MaxUnpool";
  d.category = OpCategory::DataMove;
  d.minInputs = 2;
  d.maxInputs = 3;
  d.infer = inferMaxUnpool;
  d.lower = lowerMaxUnpool;
  return d;
}());

}  // namespace
}  // namespace atc
