// Pad: constant / reflect / edge. Pads (and the constant value) come from attributes
// (opset < 11) or inputs (opset 11+; axes input of opset 18). Negative pads crop. The pads
// must be constants (they decide the output's shape); the constant value may be fed at run time.
#include <cmath>

#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

struct PadSpec {
  std::vector<int64_t> begin, end;
  int64_t mode;  // 0 constant, 1 reflect, 2 edge
  int64_t bits;  // pad value bytes
};

PadSpec padSpec(const Node& n) {
  const Shape& in = dm::staticShape(n, 0);
  size_t r = in.size();
  DType dt = n.inputs[0]->type.dtype;
  std::vector<int64_t> pads;
  PadSpec s;
  s.bits = 0;
  if (n.hasAttr("pads") || n.hasAttr("paddings")) {
    pads = n.attrInts(n.hasAttr("pads") ? "pads" : "paddings");
    s.bits = dm::elementBits(n.attrFloat("value", 0.0), dt);
  } else {
    pads = dm::constInts(n, 1, "pads");
    if (n.input(2) && !n.input(2)->isConstant()) {  // fed at run time: the kernel reads it (valueBuf)
      if (n.input(2)->type.dtype != dt)
        opError(n, "constant_value is " + std::string(dtypeName(n.input(2)->type.dtype)) + " but the input is " +
                       dtypeName(dt));
      if (!n.input(2)->type.shapeKnown || n.input(2)->type.numel() > 1)
        opError(n, "constant_value must hold one value (or none)");
    } else if (n.input(2)) {
      const Tensor& v = *n.input(2)->constant;
      if (v.type.numel() >= 1) {
        s.bits = v.type.dtype == dt ? dm::elementBits(v) : dm::elementBits(v.floatAt(0), dt);
      }
    }
  }
  std::vector<int64_t> axes;
  if (n.input(3)) {
    axes = dm::constInts(n, 3, "axes");
  } else {
    for (size_t i = 0; i < r; ++i) axes.push_back((int64_t)i);
  }
  if (pads.size() != 2 * axes.size())
    opError(n, "pads has " + std::to_string(pads.size()) + " values for " + std::to_string(axes.size()) + " axes");
  s.begin.assign(r, 0);
  s.end.assign(r, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = normalizeAxis(axes[i], (int64_t)r, n);
    s.begin[(size_t)a] = pads[i];
    s.end[(size_t)a] = pads[i + axes.size()];
  }
  std::string mode = n.attrString("mode", "constant");
  if (mode == "constant") s.mode = 0;
  else if (mode == "reflect") s.mode = 1;
  else if (mode == "edge") s.mode = 2;
  else opError(n, "unsupported pad mode '" + mode + "'");
  return s;
}

void inferPad(Graph&, Node& n) {
  const Shape& in = dm::staticShape(n, 0);
  PadSpec s = padSpec(n);
  Shape out = in;
  for (size_t d = 0; d < in.size(); ++d) {
    out[d] = in[d] + s.begin[d] + s.end[d];
    if (out[d] < 0) opError(n, "negative output dim");
    if (s.mode != 0 && in[d] == 0 && out[d] > 0) opError(n, "cannot reflect/edge-pad an empty dim");
  }
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, out);
}

KernelCall lowerPad(LowerCtx& c) {
  Node& n = c.node;
  PadSpec s = padSpec(n);
  const Shape& in = n.inputs[0]->type.shape;
  const Shape& out = n.outputs[0]->type.shape;
  KernelCall k;
  k.kernel = "pad";
  k.params = {(int64_t)dtypeSize(n.inputs[0]->type.dtype), (int64_t)in.size(), s.mode, s.bits,
              (int64_t)n.inputs.size()};
  for (auto d : out) k.params.push_back(d);
  for (auto d : in) k.params.push_back(d);
  for (auto b : s.begin) k.params.push_back(b);
  // valueBuf: the buffer of a constant_value fed at run time (one element of X's dtype; an empty
  // one pads with 0), or -1 (the value is valueBits).
  const Value* cv = n.input(2);
  k.params.push_back(!n.hasAttr("pads") && !n.hasAttr("paddings") && cv && !cv->isConstant() && cv->type.numel() == 1
                         ? 2
                         : -1);
  return k;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "Pad";
  d.category = OpCategory::DataMove;
  d.minInputs = 1;
  d.maxInputs = 4;
  d.infer = inferPad;
  d.lower = lowerPad;
  d.storesF16AndBf16(1);  // bytes moved; the pad value converted to X's dtype
  return d;
}());

}  // namespace
}  // namespace atc
