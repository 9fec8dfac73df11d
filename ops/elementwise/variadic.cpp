// Variadic element-wise folds with broadcasting: Sum, Max, Min, Mean.
#include "ops/elementwise/eltwise_common.h"

namespace atc {
namespace {

struct VarRow {
  const char* type;
  int64_t code;
};
const VarRow kVariadic[] = {
    {"Sum", ATCK_E_ADD}, {"Max", ATCK_E_MAX}, {"Min", ATCK_E_MIN}, {"Mean", ATCK_E_MEAN}};

OpDef makeVariadic(const VarRow& r) {
  OpDef d;
  d.type = r.type;
  d.category = OpCategory::Elementwise;
  d.minInputs = 1;
  d.maxInputs = ATCK_ELT_MAX_IN;
  d.infer = [](Graph&, Node& n) {
    checkSameDtypes(n, 0, n.inputs.size());
    inferBroadcast(n);
  };
  int64_t code = r.code;
  d.lower = [code](LowerCtx& c) {
    auto ins = presentInputs(c.node);
    if (ins.size() == 1) return makeEltwiseCall(c.node, ATCK_E_COPY, ins, c.node.outputs[0]->type);
    return makeEltwiseCall(c.node, code, ins, c.node.outputs[0]->type);
  };
  return d;
}

const bool kRegistered = [] {
  for (const auto& r : kVariadic) OpRegistry::instance().add(makeVariadic(r));
  return true;
}();

}  // namespace
}  // namespace atc
