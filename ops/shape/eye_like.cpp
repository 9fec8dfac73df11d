// EyeLike: a 2-d identity-like matrix with the input's shape (dtype attribute optional).
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

DType eyeType(const Node& n) {
  if (!n.hasAttr("dtype")) return n.inputs[0]->type.dtype;
  // ONNX TensorProto data type codes.
  switch (n.attrInt("dtype", 1)) {
    case 1: return DType::F32;
    case 2: return DType::U8;
    case 3: return DType::I8;
    case 4: return DType::U16;
    case 5: return DType::I16;
    case 6: return DType::I32;
    case 7: return DType::I64;
    case 9: return DType::Bool;
    case 10: return DType::F16;
    case 11: return DType::F64;
    case 12: return DType::U32;
    case 13: return DType::U64;
    case 16: return DType::BF16;
    default: opError(n, "unsupported dtype");
  }
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
