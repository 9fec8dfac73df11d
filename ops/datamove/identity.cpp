// Identity (and Dropout in inference, which forwards its input).
#include "ir/op_registry.h"

namespace atc {
namespace {

KernelCall lowerCopy(LowerCtx& c) {
  return KernelCall{"copy", {c.node.outputs[0]->type.byteSize()}};
}

void inferSame(Graph&, Node& n) { n.outputs[0]->type = n.inputs[0]->type; }

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "Identity";
  d.category = OpCategory::DataMove;
  d.infer = inferSame;
  d.lower = lowerCopy;
  d.aliasesInput0 = true;
  return d;
}());

}  // namespace
}  // namespace atc
