// Identity, and Dropout in inference (output 0 = input, optional mask output = all true).
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

void inferSame(Graph&, Node& n) { n.outputs[0]->type = n.inputs[0]->type; }

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "Identity";
  d.category = OpCategory::DataMove;
  d.infer = inferSame;
  d.lower = [](LowerCtx& c) { return dm::copyInput0(c.node); };
  d.aliasesInput0 = true;
  return d;
}());

// Dropout: inputs data, ratio, training_mode (opset 12+); training mode is not supported.
void inferDropout(Graph&, Node& n) {
  n.outputs[0]->type = n.inputs[0]->type;
  if (n.input(2)) {
    if (!n.input(2)->isConstant() || n.input(2)->constant->intAt(0) != 0)
      opError(n, "training_mode must be a constant false (inference only)");
  }
  if (n.outputs.size() > 1) n.outputs[1]->type = TensorType(DType::Bool, n.inputs[0]->type.shape);
}

KernelCall lowerDropout(LowerCtx& c) {
  int64_t mask = c.node.outputs.size() > 1 ? c.node.outputs[1]->type.numel() : 0;
  int64_t nin = (int64_t)c.node.inputs.size();
  return KernelCall{"copy_mask", {c.node.outputs[0]->type.byteSize(), mask, nin}};
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "Dropout";
  d.category = OpCategory::DataMove;
  d.minInputs = 1;
  d.maxInputs = 3;
  d.maxOutputs = 2;
  d.infer = inferDropout;
  d.lower = lowerDropout;
  return d;
}());

}  // namespace
}  // namespace atc
