// FusedEltwise (internal, made by the UB-fusion passes): a connected group of element-wise
// ops as one node. Attributes: program/op_params/out_reg (ops/fused/fused_program.h) and
// fused_ops (the original op types, for reports). Output: broadcast of the inputs, float32, or
// float16/bfloat16 when every input is (a precision mode chose it: narrowIf below).
#include "ops/elementwise/eltwise_common.h"
#include "ops/fused/fused_program.h"

namespace atc {
namespace {

// The inputs' common narrow float dtype (float16 or bfloat16), else float32.
DType fusedStorage(const Node& n) {
  const DType t = n.inputs.empty() || !n.inputs[0] ? DType::F32 : n.inputs[0]->type.dtype;
  if (t != DType::F16 && t != DType::BF16) return DType::F32;
  for (const Value* v : n.inputs)
    if (!v || v->type.dtype != t) return DType::F32;
  return t;
}

void inferFused(Graph&, Node& n) {
  loadFeProgram(n);  // validates
  inferBroadcast(n, fusedStorage(n));
}

// Narrow storage only for groups of ops that each store narrow floats themselves (a group with
// Exp, Div or Pow keeps the model dtype, as those ops would alone).
bool fusedNarrowOk(const Node& n) {
  auto it = n.attrs.find("fused_ops");
  const auto* types = it == n.attrs.end() ? nullptr : std::get_if<std::vector<std::string>>(&it->second);
  if (!types || types->empty()) return false;
  for (const std::string& t : *types) {
    const OpDef* d = OpRegistry::instance().find(t);
    if (!d || d->reducedFloats.empty() || d->narrowIf) return false;
  }
  return true;
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
  d.storesF16AndBf16();
  d.narrowIf = fusedNarrowOk;
  return d;
}());

}  // namespace
}  // namespace atc
