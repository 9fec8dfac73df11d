// NonZero (opset 9, 13): the indices of X's non-zero elements, int64 [rank, count]. On a
// constant X it folds to a constant; otherwise its output's shape depends on data
// (Value::shapeFromData: count bounded by X's element count).
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

void inferNonZero(Graph&, Node& n) {
  const TensorType& x = n.inputs[0]->type;
  if (!x.isStatic()) opError(n, "needs a static input shape");
  if (x.rank() == 0) opError(n, "a scalar input is not supported (its indices have no dims)");
  n.outputs[0]->type = TensorType(DType::I64, {x.rank(), x.numel()});
  n.outputs[0]->shapeFromData = true;
}

KernelCall lowerNonZero(LowerCtx& c) {
  const Node& n = c.node;
  const TensorType& x = n.inputs[0]->type;
  KernelCall call;
  call.kernel = "nonzero";
  call.params = {(int64_t)x.dtype, x.numel(), dataShapeOffset(n.outputs[0]->type), x.rank()};
  for (int64_t d : x.shape) call.params.push_back(d);
  return call;
}

const bool kRegistered = [] {
  OpDef d;
  d.type = "NonZero";
  d.category = OpCategory::DataMove;
  d.infer = inferNonZero;
  d.lower = lowerNonZero;
  OpRegistry::instance().add(d);
  return true;
}();

}  // namespace
}  // namespace atc
