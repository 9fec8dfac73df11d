// ReverseSequence (opset 10): kernel "reverse_sequence" (kernels/lib/reverse_sequence.cpp).
// time_axis and batch_axis are 0 and 1 (either order, as ONNX requires); sequence_lens int64 [B].
#include "ir/dtype.h"
#include "ir/op_registry.h"

namespace atc {
namespace {

void inferReverseSequence(Graph&, Node& n) {
  const TensorType& x = n.inputs[0]->type;
  const int64_t ta = n.attrInt("time_axis", 0), ba = n.attrInt("batch_axis", 1);
  if (!((ta == 0 && ba == 1) || (ta == 1 && ba == 0))) opError(n, "time_axis and batch_axis must be 0 and 1");
  if (!x.shapeKnown || x.rank() < 2) opError(n, "the input must have rank 2 or more");
  const TensorType& l = n.inputs[1]->type;
  if (l.dtype != DType::I64 || !l.shapeKnown || l.shape != Shape{x.shape[ba]})
    opError(n, "sequence_lens must be int64 [batch]");
  n.outputs[0]->type = x;
}

KernelCall lowerReverseSequence(LowerCtx& c) {
  const Node& n = c.node;
  const Shape& s = n.inputs[0]->type.shape;
  const int64_t ta = n.attrInt("time_axis", 0);
  int64_t inner = 1;
  for (size_t i = 2; i < s.size(); ++i) inner *= s[i];
  KernelCall kc;
  kc.kernel = "reverse_sequence";
  kc.params = {ta, s[ta], s[1 - ta], inner, (int64_t)dtypeSize(n.inputs[0]->type.dtype)};
  return kc;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "ReverseSequence";
  d.category = OpCategory::DataMove;
  d.minInputs = 2;
  d.maxInputs = 2;
  d.infer = inferReverseSequence;
  d.lower = lowerReverseSequence;
  return d;
}());

}  // namespace
}  // namespace atc
