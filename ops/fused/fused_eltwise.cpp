// FusedEltwise (internal, made by the UB-fusion passes): a connected group of element-wise
// ops as one node. Attributes: program/op_params/out_reg (ops/fused/fused_program.h) and
// fused_ops (the original op types, for reports). Output: broadcast of the inputs, float32.
#include "ops/elementwise/eltwise_common.h"
#include "ops/fused/fused_program.h"

namespace atc {
namespace {

void inferFused(Graph&, Node& n) {
  loadFeProgram(n);  // validates
  inferBroadcast(n, DType::F32);
}

KernelCall lowerFused(LowerCtx& c) {
  return makeFusedEltwiseCall(c.node, loadFeProgram(c.node), c.node.outputs[0]->type);
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "FusedEltwise";
  d.internal = true;
  d.category = OpCategory::Elementwise;
  d.minInputs = 1;
  d.maxInputs = FE_MAX_IN;
  d.infer = inferFused;
  d.lower = lowerFused;
  return d;
}());

}  // namespace
}  // namespace atc
