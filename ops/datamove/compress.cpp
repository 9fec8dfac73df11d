// Compress (opset 9, 11): the slices of X along `axis` (or the elements of flattened X) whose
// condition is true; a condition shorter than the axis drops the rest. A constant condition
// gives a static output; one fed at run time an output whose shape depends on data
// (Value::shapeFromData: the axis bounded by min(condition length, axis dim)).
#include <algorithm>

#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

constexpr int64_t kMaxCompressRank = 8;  // kernels/lib/select.cpp's dims

struct CompressGeom {
  int64_t axis = 0, outer = 1, n = 1, inner = 1;
  Shape out;  // the axis dim: the bound
};

CompressGeom geometry(const Node& n) {
  const TensorType& x = n.inputs[0]->type;
  const TensorType& c = n.inputs[1]->type;
  if (!x.isStatic() || !c.isStatic()) opError(n, "needs static input shapes");
  if (c.dtype != DType::Bool || c.rank() != 1) opError(n, "condition must be a 1-D bool tensor, got " + c.str());
  CompressGeom g;
  if (n.hasAttr("axis")) {
    if (x.rank() > kMaxCompressRank) opError(n, "supports rank <= 8, got " + x.str());
    g.axis = normalizeAxis(n.attrInt("axis", 0), x.rank(), n);
    for (int64_t d = 0; d < g.axis; ++d) g.outer *= x.shape[d];
    for (int64_t d = g.axis + 1; d < x.rank(); ++d) g.inner *= x.shape[d];
    g.n = x.shape[g.axis];
    g.out = x.shape;
  } else {
    g.n = x.numel();
    g.out = {g.n};
  }
  if (c.shape[0] > g.n) opError(n, "condition has " + std::to_string(c.shape[0]) + " values, more than the " +
                                       std::to_string(g.n) + " slices it selects from");
  g.out[g.axis] = std::min(c.shape[0], g.n);
  return g;
}

void inferCompress(Graph&, Node& n) {
  CompressGeom g = geometry(n);
  const Value* cond = n.inputs[1];
  if (cond->isConstant()) {
    std::vector<int64_t> v = cond->constant->toInts();
    g.out[g.axis] = (int64_t)std::count_if(v.begin(), v.end(), [](int64_t b) { return b != 0; });
  }
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, g.out);
  n.outputs[0]->shapeFromData = !cond->isConstant();
}

KernelCall lowerCompress(LowerCtx& c) {
  const Node& n = c.node;
  CompressGeom g = geometry(n);
  const Value* y = n.outputs[0];
  KernelCall call;
  call.kernel = "compress";
  call.params = {(int64_t)dtypeSize(n.inputs[0]->type.dtype), g.outer, g.n, g.inner, n.inputs[1]->type.shape[0],
                 y->shapeFromData ? dataShapeOffset(y->type) : -1, g.axis, (int64_t)g.out.size()};
  for (int64_t d : g.out) call.params.push_back(d);
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
