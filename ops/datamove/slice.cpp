// Slice: opset 1 (starts/ends/axes attributes) and opset 10+ (starts, ends, axes, steps
// inputs). Negative steps and out-of-range clamping as in ONNX. With constant inputs: lowered
// to strided_copy (offset + step strides). When any of them comes at run time the output's
// shape depends on data (Value::shapeFromData, bounded by X's shape): kernel slice_rt reads
// them each run (kernels/lib/slice_rt.cpp).
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

struct SliceSpec {
  Shape outDims;
  std::vector<int64_t> start, step;  // per input dim
};

SliceSpec sliceSpec(const Node& n) {
  const Shape& in = dm::staticShape(n, 0);
  int64_t r = (int64_t)in.size();
  std::vector<int64_t> starts, ends, axes, steps;
  if (n.hasAttr("starts")) {
    starts = n.attrInts("starts");
    ends = n.attrInts("ends");
    axes = n.attrInts("axes");
  } else {
    starts = dm::constInts(n, 1, "starts");
    ends = dm::constInts(n, 2, "ends");
    if (n.input(3)) axes = dm::constInts(n, 3, "axes");
    if (n.input(4)) steps = dm::constInts(n, 4, "steps");
  }
  if (starts.size() != ends.size()) opError(n, "starts and ends differ in length");
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back((int64_t)i);
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    opError(n, "starts, ends, axes and steps differ in length");
  SliceSpec s;
  s.outDims = in;
  s.start.assign((size_t)r, 0);
  s.step.assign((size_t)r, 1);
  std::vector<bool> seen((size_t)r, false);
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t a = normalizeAxis(axes[i], r, n);
    if (seen[(size_t)a]) opError(n, "repeated axis");
    seen[(size_t)a] = true;
    int64_t dim = in[(size_t)a], st = steps[i];
    if (st == 0) opError(n, "step must not be 0");
    int64_t b = starts[i], e = ends[i];
    if (b < 0) b += dim;  // may stay negative: clamped below
    if (e < 0) e += dim;
    if (st > 0) {
      b = std::max<int64_t>(0, std::min(b, dim));
      e = std::max<int64_t>(0, std::min(e, dim));
    } else {
      b = std::max<int64_t>(0, std::min(b, dim - 1));
      e = std::max<int64_t>(-1, std::min(e, dim - 1));
    }
    int64_t len = st > 0 ? (e - b + st - 1) / st : (b - e + (-st) - 1) / (-st);
    if (len < 0 || dim == 0) len = 0;
    s.outDims[(size_t)a] = len;
    s.start[(size_t)a] = len > 0 ? b : 0;
    s.step[(size_t)a] = st;
  }
  return s;
}

// Opset 10+ with starts, ends, axes or steps fed at run time: checks them (same int type, static
// 1-D shapes of one length) and returns that length; -1 when they are all constants.
int64_t runtimeSliceLength(const Node& n) {
  if (n.hasAttr("starts")) return -1;
  bool rt = isRunSized(n.inputs[0]);  // a run-sized X: slice_rs reads its dims
  for (size_t i = 1; i < n.inputs.size(); ++i) rt = rt || (n.input(i) && !n.input(i)->isConstant());
  if (!rt) return -1;
  const TensorType& x = n.inputs[0]->type;
  if ((!x.isStatic() && !isRunSized(n.inputs[0])) || x.rank() < 1 || x.rank() > 16)
    opError(n, "run-time starts/ends need X of static rank 1..16");
  const DType t = n.inputs[1]->type.dtype;
  int64_t len = -1;
  for (size_t i = 1; i < n.inputs.size(); ++i) {
    const Value* v = n.input(i);
    if (!v) continue;
    if (v->type.dtype != t || (t != DType::I32 && t != DType::I64))
      opError(n, "starts, ends, axes and steps must all be int32 or all int64");
    if (!v->type.isStatic() || v->type.rank() != 1) opError(n, "starts, ends, axes and steps must be 1-D");
    if (len >= 0 && v->type.shape[0] != len) opError(n, "starts, ends, axes and steps differ in length");
    len = v->type.shape[0];
  }
  if (len > x.rank()) opError(n, "more starts than X has dims");
  return len;
}

void inferSlice(Graph&, Node& n) {
  if (runtimeSliceLength(n) >= 0 && isRunSized(n.inputs[0])) {
    dm::setRunSized(n, 0, n.inputs[0]->type.dtype, Shape((size_t)n.inputs[0]->type.rank(), -1));
    return;
  }
  if (runtimeSliceLength(n) >= 0) {
    n.outputs[0]->type = n.inputs[0]->type;  // the bound: no slice is larger than X
    n.outputs[0]->shapeFromData = true;
    return;
  }
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, sliceSpec(n).outDims);
}

KernelCall lowerSlice(LowerCtx& c) {
  if (int64_t len = runtimeSliceLength(c.node); len >= 0) {
    const TensorType& x = c.node.inputs[0]->type;
    KernelCall k;
    k.kernel = "slice_rt";
    const bool rs = isRunSized(c.node.inputs[0]);
    k.params = {(int64_t)dtypeSize(x.dtype), x.rank(), len, (int64_t)c.node.inputs[1]->type.dtype,
                (int64_t)c.node.inputs.size(), rs ? 0 : dataShapeOffset(c.node.outputs[0]->type)};
    if (rs) {  // slice_rs: X's dims from its slot
      k.kernel = "slice_rs";
      k.sizesOutputs = k.readsRunSized = true;
      return k;
    }
    for (int64_t d : x.shape) k.params.push_back(d);
    return k;
  }
  SliceSpec s = sliceSpec(c.node);
  auto st = dm::stridesOf(c.node.inputs[0]->type.shape);
  std::vector<int64_t> strides(st.size());
  int64_t off = 0;
  for (size_t d = 0; d < st.size(); ++d) {
    strides[d] = st[d] * s.step[d];
    off += s.start[d] * st[d];
  }
  return dm::stridedCopy(c.node, (int64_t)dtypeSize(c.node.inputs[0]->type.dtype), s.outDims, strides, off);
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "Slice";
  d.category = OpCategory::DataMove;
  d.readsRunSized = true;
  d.minInputs = 1;
  d.maxInputs = 5;
  d.infer = inferSlice;
  d.lower = lowerSlice;
  d.storesF16AndBf16(1);  // bytes moved as they are
  return d;
}());

}  // namespace
}  // namespace atc
