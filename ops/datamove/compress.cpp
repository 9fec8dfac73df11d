// Compress (opset 9, 11): the slices of X along `axis` (or the elements of flattened X) whose
// condition is true; a condition shorter than the axis drops the rest. A constant condition
// gives a static output; one fed at run time an output whose shape depends on data
// (Value::shapeFromData: the axis bounded by min(condition length, axis dim)).
#include <algorithm>

#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

constexpr int64_t kMaxCompressRank = 8;  // kernels/lib/select.cpp's dims

// X's slices; the axis dim of `shape` becomes the output's bound.
dm::AxisSlices geometry(const Node& n) {
  const TensorType& x = n.inputs[0]->type;
  const TensorType& c = n.inputs[1]->type;
  if (!x.isStatic() || !c.isStatic()) opError(n, "needs static input shapes");
  if (c.dtype != DType::Bool || c.rank() != 1) opError(n, "condition must be a 1-D bool tensor, got " + c.str());
  dm::AxisSlices g = dm::axisSlices(n, x, kMaxCompressRank);
  if (c.shape[0] > g.n) opError(n, "condition has " + std::to_string(c.shape[0]) + " values, more than the " +
                                       std::to_string(g.n) + " slices it selects from");
  g.shape[g.axis] = std::min(c.shape[0], g.n);
  return g;
}

void inferCompress(Graph&, Node& n) {
  dm::AxisSlices g = geometry(n);
  const Value* cond = n.inputs[1];
  if (cond->isConstant()) {
    std::vector<int64_t> v = cond->constant->toInts();
    g.shape[g.axis] = (int64_t)std::count_if(v.begin(), v.end(), [](int64_t b) { return b != 0; });
  }
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, g.shape);
  n.outputs[0]->shapeFromData = !cond->isConstant();
}

KernelCall lowerCompress(LowerCtx& c) {
  const Node& n = c.node;
  dm::AxisSlices g = geometry(n);
  const Value* y = n.outputs[0];
  KernelCall call;
  call.kernel = "compress";
  call.params = {(int64_t)dtypeSize(n.inputs[0]->type.dtype), g.outer, g.n, g.inner, n.inputs[1]->type.shape[0],
                 y->shapeFromData ? dataShapeOffset(y->type) : -1, g.axis, (int64_t)g.shape.size()};
  for (int64_t d : g.shape) call.params.push_back(d);
  return call;
}

const bool kRegistered = [] {
  OpDef d;
  d.type = "Compress";
  d.category = OpCategory::DataMove;
  d.minInputs = d.maxInputs = 2;
  d.infer = inferCompress;
  d.lower = lowerCompress;
  OpRegistry::instance().add(d);
  return true;
}();

}  // namespace
}  // namespace atc
