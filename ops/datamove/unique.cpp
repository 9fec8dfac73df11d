// Unique (opset 11): the distinct elements of X (or distinct slices along `axis`), sorted or
// in order of first occurrence, with the first-occurrence indices, inverse_indices and counts.
// Y, indices and counts have shapes that depend on data (Value::shapeFromData, bounded by the
// element count or the axis dim); inverse_indices is static.
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

constexpr int64_t kMaxUniqueRank = 8;  // kernels/lib/unique.cpp's dims

dm::AxisSlices geometry(const Node& n) {
  const TensorType& x = n.inputs[0]->type;
  if (!x.isStatic()) opError(n, "needs a static input shape");
  return dm::axisSlices(n, x, kMaxUniqueRank);
}

void inferUnique(Graph&, Node& n) {
  dm::AxisSlices g = geometry(n);
  const Shape perSlice{g.n};
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, g.shape);
  for (size_t i = 1; i < n.outputs.size(); ++i) n.outputs[i]->type = TensorType(DType::I64, perSlice);
  for (size_t i = 0; i < n.outputs.size(); ++i) n.outputs[i]->shapeFromData = i != 2;  // inverse_indices: static
}

KernelCall lowerUnique(LowerCtx& c) {
  const Node& n = c.node;
  dm::AxisSlices g = geometry(n);
  auto at = [&](size_t i) { return i < n.outputs.size() ? dataShapeOffset(n.outputs[i]->type) : -1; };
  KernelCall call;
  call.kernel = "unique";
  call.params = {(int64_t)n.inputs[0]->type.dtype, (int64_t)dtypeSize(n.inputs[0]->type.dtype), g.outer, g.n,
                 g.inner, n.attrInt("sorted", 1) ? 1 : 0, (int64_t)n.outputs.size(), g.axis, at(0), at(1), at(3),
                 (int64_t)g.shape.size()};
  for (int64_t d : g.shape) call.params.push_back(d);
  call.workspaceBytes = 5 * std::max<int64_t>(g.n, 1) * 8;
  return call;
}

const bool kRegistered = [] {
  OpDef d;
  d.type = "Unique";
  d.category = OpCategory::DataMove;
  d.minOutputs = 1;
  d.maxOutputs = 4;
  d.infer = inferUnique;
  d.lower = lowerUnique;
  OpRegistry::instance().add(d);
  return true;
}();

}  // namespace
}  // namespace atc
