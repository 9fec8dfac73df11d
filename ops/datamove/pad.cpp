// Pad: constant / reflect / edge / wrap (opset 19). Pads (and the constant value) come from attributes
// (opset < 11) or inputs (opset 11+; axes input of opset 18). Negative pads crop. Pads or axes
// fed at run time make the output run-sized (pad_rt); the constant value may be fed at run time.
#include <cmath>

#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

struct PadSpec {
  std::vector<int64_t> begin, end;
  int64_t mode;  // 0 constant, 1 reflect, 2 edge, 3 wrap
  int64_t bits;  // pad value bytes
};

bool runTimeAxes(const Node& n) { return n.input(3) && !n.input(3)->isConstant(); }

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
    const int64_t naxes = n.input(3) ? n.input(3)->type.numel() : (int64_t)r;
    // pads or axes fed at run time: pad_rt reads them
    if (!n.input(1) || !n.input(1)->isConstant() || runTimeAxes(n)) pads.assign((size_t)(2 * naxes), 0);
    else pads = dm::constInts(n, 1, "pads");
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
  if (runTimeAxes(n)) {
    axes.assign((size_t)n.input(3)->type.numel(), 0);  // placeholders: the kernel reads them
    for (size_t i = 0; i < axes.size() && i < r; ++i) axes[i] = (int64_t)i;
  } else if (n.input(3)) {
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
  else if (mode == "wrap") s.mode = 3;
  else opError(n, "unsupported pad mode '" + mode + "'");
  return s;
}

// Pads or axes fed at run time (opset 11+ / 18+): the output is run-sized (pad_rt).
bool runTimePads(const Node& n) {
  int64_t len = 0, naxes = 0;
  if (n.hasAttr("pads") || n.hasAttr("paddings")) return false;
  const bool axesRt = runTimeAxes(n) && dm::runTimeShapeInput(n, 3, "axes", {DType::I64, DType::I32}, &naxes,
                                                               kRunSizedMaxRank);
  if (!dm::runTimeShapeInput(n, 1, "pads", {DType::I64}, &len, 2 * kRunSizedMaxRank)) {
    if (!axesRt) return false;
    len = n.input(1)->type.numel();
  }
  if (!axesRt) naxes = n.input(3) ? n.input(3)->type.numel() : n.inputs[0]->type.rank();
  if (len != 2 * naxes) opError(n, "pads must hold 2 values per axis");
  return true;
}

void inferPad(Graph&, Node& n) {
  const Shape& in = dm::staticShape(n, 0);
  PadSpec s = padSpec(n);
  if (runTimePads(n)) {
    if ((int64_t)in.size() > kRunSizedMaxRank) opError(n, "at most 8 dims are supported with pads fed at run time");
    Shape out = in;
    if (!n.input(3) || runTimeAxes(n)) out.assign(in.size(), -1);
    else
      for (int64_t a : dm::constInts(n, 3, "axes")) out[(size_t)normalizeAxis(a, (int64_t)in.size(), n)] = -1;
    dm::setRunSized(n, 0, n.inputs[0]->type.dtype, out);
    return;
  }
  Shape out = in;
  for (size_t d = 0; d < in.size(); ++d) {
    out[d] = in[d] + s.begin[d] + s.end[d];
    if (out[d] < 0) opError(n, "negative output dim");
    if (s.mode != 0 && in[d] == 0 && out[d] > 0) opError(n, "cannot reflect/edge/wrap-pad an empty dim");
  }
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, out);
}

KernelCall lowerPadRunTime(const Node& n, const PadSpec& s) {
  const Shape& in = n.inputs[0]->type.shape;
  std::vector<int64_t> axes;
  const bool axesRt = runTimeAxes(n);  // the kernel reads them from bufs[3]
  if (axesRt) {
  } else if (n.input(3)) {
    for (int64_t a : dm::constInts(n, 3, "axes")) axes.push_back(normalizeAxis(a, (int64_t)in.size(), n));
  } else {
    for (size_t d = 0; d < in.size(); ++d) axes.push_back((int64_t)d);
  }
  const Value* cv = n.input(2);
  KernelCall k{"pad_rt",
               {(int64_t)dtypeSize(n.inputs[0]->type.dtype), (int64_t)in.size(), s.mode, s.bits,
                cv && !cv->isConstant() && cv->type.numel() == 1 ? 2 : -1, (int64_t)n.inputs.size(),
                axesRt ? n.input(3)->type.numel() : (int64_t)axes.size(), (int64_t)n.inputs[1]->type.dtype,
                axesRt ? (int64_t)n.input(3)->type.dtype : -1}};
  k.params.insert(k.params.end(), axes.begin(), axes.end());
  k.params.insert(k.params.end(), in.begin(), in.end());
  k.sizesOutputs = true;
  return k;
}

KernelCall lowerPad(LowerCtx& c) {
  Node& n = c.node;
  PadSpec s = padSpec(n);
  if (runTimePads(n)) return lowerPadRunTime(n, s);
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
