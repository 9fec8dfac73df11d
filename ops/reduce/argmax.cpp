// ArgMax / ArgMin along one axis (keepdims, select_last_index); int64 output.
#include "kernels/lib/math_reduce_codes.h"
#include "ops/elementwise/eltwise_common.h"

namespace atc {
namespace {

void inferArg(Graph&, Node& n) {
  const TensorType& in = n.inputs[0]->type;
  if (!in.shapeKnown) opError(n, "input rank must be known");
  int64_t axis = normalizeAxis(n.attrInt("axis", 0), in.rank(), n);
  Shape out;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (d != axis) out.push_back(in.shape[d]);
    else if (n.attrInt("keepdims", 1)) out.push_back(1);
  }
  n.outputs[0]->type = TensorType(DType::I64, out);
}

KernelCall lowerArg(const Node& n, bool isMax) {
  const TensorType& in = n.inputs[0]->type;
  int64_t axis = normalizeAxis(n.attrInt("axis", 0), in.rank(), n);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= in.shape[d];
  for (int64_t d = axis + 1; d < in.rank(); ++d) inner *= in.shape[d];
  KernelCall c;
  c.kernel = "argreduce";
  c.params = {isMax ? 1 : 0, n.attrInt("select_last_index", 0) ? 1 : 0, (int64_t)in.dtype,
              outer, in.rank() ? in.shape[axis] : 1, inner, (int64_t)n.inputs.size()};
  return c;
}

OpDef makeArg(const char* type, bool isMax) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::Reduce;
  d.infer = inferArg;
  d.lower = [isMax](LowerCtx& c) { return lowerArg(c.node, isMax); };
  return d;
}

const bool kRegistered = [] {
  OpRegistry::instance().add(makeArg("ArgMax", true));
  OpRegistry::instance().add(makeArg("ArgMin", false));
  return true;
}();

}  // namespace
}  // namespace atc
