// OneHot: depth must be a constant; values [off, on] give the output dtype.
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

int64_t depthOf(const Node& n) {
  auto d = dm::constFloats(n, 1, "depth");
  if (d.size() != 1 || d[0] < 1) opError(n, "depth must be a positive scalar");
  return (int64_t)d[0];
}

void inferOneHot(Graph&, Node& n) {
  const Shape& s = dm::staticShape(n, 0);
  DType it = n.inputs[0]->type.dtype;
  if (it != DType::I64 && it != DType::I32 && it != DType::F32) opError(n, "indices must be int64, int32 or float32");
  if (dm::staticShape(n, 2) != Shape{2}) opError(n, "values must hold 2 elements");
  int64_t r = (int64_t)s.size() + 1;
  int64_t axis = n.attrInt("axis", -1);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) opError(n, "axis out of range");
  Shape out = s;
  out.insert(out.begin() + axis, depthOf(n));
  n.outputs[0]->type = TensorType(n.inputs[2]->type.dtype, out);
}

KernelCall lowerOneHot(LowerCtx& c) {
  const Shape& s = c.node.inputs[0]->type.shape;
  int64_t r = (int64_t)s.size() + 1;
  int64_t axis = c.node.attrInt("axis", -1);
  if (axis < 0) axis += r;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < (int64_t)s.size(); ++i) (i < axis ? outer : inner) *= s[(size_t)i];
  return KernelCall{"one_hot", {(int64_t)dtypeSize(c.node.inputs[2]->type.dtype),
                                (int64_t)c.node.inputs[0]->type.dtype, outer, depthOf(c.node), inner}};
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "OneHot";
  d.category = OpCategory::DataMove;
  d.minInputs = d.maxInputs = 3;
  d.infer = inferOneHot;
  d.lower = lowerOneHot;
  return d;
}());

}  // namespace
}  // namespace atc
