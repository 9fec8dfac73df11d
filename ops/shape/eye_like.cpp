// EyeLike: a 2-d identity-like matrix with the input's shape (dtype attribute optional).
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

DType eyeType(const Node& n) {
  if (!n.hasAttr("dtype")) return n.inputs[0]->type.dtype;
  DType t = dtypeFromOnnxCode(n.attrInt("dtype", 1));
  if (t == DType::Undefined) opError(n, "unsupported dtype");
  return t;
}

void inferEyeLike(Graph&, Node& n) {
  const Shape& s = dm::staticShape(n, 0);
  if (s.size() != 2) opError(n, "input must be 2-d");
  n.outputs[0]->type = TensorType(eyeType(n), s);
}

KernelCall lowerEyeLike(LowerCtx& c) {
  const Shape& s = c.node.inputs[0]->type.shape;
  return KernelCall{"eye_like", {(int64_t)eyeType(c.node), s[0], s[1], c.node.attrInt("k", 0)}};
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "EyeLike";
  d.category = OpCategory::DataMove;
  d.infer = inferEyeLike;
  d.lower = lowerEyeLike;
  return d;
}());

}  // namespace
}  // namespace atc
