// OneHot: values [off, on] give the output dtype; a depth fed at run time makes the output
// run-sized (one_hot_rt).
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

int64_t depthOf(const Node& n) {
  auto d = dm::constFloats(n, 1, "depth");
  if (d.size() != 1 || d[0] < 1) opError(n, "depth must be a positive scalar");
  return (int64_t)d[0];
}

// depth fed at run time: the output is run-sized (kernel one_hot_rt).
bool runTimeDepth(const Node& n) {
  int64_t len = 0;
  bool rt = dm::runTimeShapeInput(n, 1, "depth",
                                  {DType::I64, DType::I32, DType::I16, DType::I8, DType::U64, DType::U32, DType::U16,
                                   DType::U8, DType::F32, DType::F64},
                                  &len);
  if (rt && len != 1) opError(n, "depth must hold one value");
  return rt;
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
  if (runTimeDepth(n)) {
    out.insert(out.begin() + axis, -1);
    dm::setRunSized(n, 0, n.inputs[2]->type.dtype, out);
    return;
  }
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
  if (runTimeDepth(c.node)) {
    KernelCall k{"one_hot_rt", {(int64_t)dtypeSize(c.node.inputs[2]->type.dtype), (int64_t)c.node.inputs[0]->type.dtype,
                                outer, inner, (int64_t)c.node.inputs[1]->type.dtype, axis, (int64_t)s.size()}};
    k.params.insert(k.params.end(), s.begin(), s.end());
    k.sizesOutputs = true;
    return k;
  }
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
