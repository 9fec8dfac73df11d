// Where(condition, X, Y) with numpy broadcasting of all three inputs.
#include "ops/elementwise/eltwise_common.h"

namespace atc {
namespace {

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "Where";
  d.category = OpCategory::Elementwise;
  d.minInputs = d.maxInputs = 3;
  d.infer = [](Graph&, Node& n) {
    if (n.inputs[0]->type.dtype != DType::Bool) opError(n, "condition must be bool");
    checkSameDtypes(n, 1, 2);
    inferBroadcast(n, n.inputs[1]->type.dtype);
  };
  d.lower = [](LowerCtx& c) {
    const Node& n = c.node;
    return makeEltwiseCall(c.node, ATCK_E_WHERE, {n.inputs[0], n.inputs[1], n.inputs[2]},
                           n.outputs[0]->type, eltComputeType(n.inputs[1]->type.dtype));
  };
  return d;
}());

}  // namespace
}  // namespace atc
