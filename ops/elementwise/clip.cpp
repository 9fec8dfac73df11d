// Clip: opset < 11 reads attributes min/max; opset >= 11 reads optional inputs 1 and 2.
// Constant bounds (the usual case, e.g. Relu6) are baked into the kernel params; runtime
// bounds (scalars) are read by the kernel (Max / Min / the ternary CLIP3 op code).
#include <limits>

#include "ops/elementwise/eltwise_common.h"

namespace atc {
namespace {

const Value* boundInput(const Node& n, size_t i) {
  const Value* v = n.input(i);
  if (v && v->type.isStatic() && v->type.numel() != 1) opError(n, "min/max must be scalars");
  return v;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "Clip";
  d.category = OpCategory::Elementwise;
  d.storesF16AndBf16(1);  // min/max keep their dtype (read as scalars)
  d.minInputs = 1;
  d.maxInputs = 3;
  d.infer = [](Graph&, Node& n) {
    boundInput(n, 1);
    boundInput(n, 2);
    n.outputs[0]->type = n.inputs[0]->type;
  };
  d.lower = [](LowerCtx& c) {
    const Node& n = c.node;
    const Value* lo = boundInput(n, 1);
    const Value* hi = boundInput(n, 2);
    if ((lo && !lo->isConstant()) || (hi && !hi->isConstant())) {
      const TensorType& out = n.outputs[0]->type;
      if (lo && hi) return makeEltwiseCall(n, ATCK_E_CLIP3, {n.inputs[0], lo, hi}, out);
      return makeEltwiseCall(n, lo ? ATCK_E_MAX : ATCK_E_MIN, {n.inputs[0], lo ? lo : hi}, out);
    }
    EltScalars s;
    const double inf = std::numeric_limits<double>::infinity();
    s.alpha = n.attrFloat("min", -inf);
    s.beta = n.attrFloat("max", inf);
    s.ia = std::numeric_limits<int64_t>::min();
    s.ib = std::numeric_limits<int64_t>::max();
    if (lo) {
      s.alpha = lo->constant->floatAt(0);
      s.ia = lo->constant->intAt(0);
    }
    if (hi) {
      s.beta = hi->constant->floatAt(0);
      s.ib = hi->constant->intAt(0);
    }
    return makeEltwiseCall(c.node, ATCK_E_CLIP, {n.inputs[0]}, n.outputs[0]->type, -1, s);
  };
  return d;
}());

}  // namespace
}  // namespace atc
