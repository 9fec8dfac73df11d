// Shape (opset 15 start/end) and Size: known from types alone, so infer sets the output's
// constant (constant folding then needs no kernel run). Lowered to write_i64; of a run-sized
// value, to shape_rt.
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

std::vector<int64_t> shapeSlice(const Node& n) {
  const Shape& in = dm::staticShape(n, 0);
  int64_t r = (int64_t)in.size();
  int64_t b = n.attrInt("start", 0), e = n.attrInt("end", r);
  if (b < 0) b += r;
  if (e < 0) e += r;
  b = std::max<int64_t>(0, std::min(b, r));
  e = std::max<int64_t>(0, std::min(e, r));
  std::vector<int64_t> v;
  for (int64_t i = b; i < e; ++i) v.push_back(in[(size_t)i]);
  return v;
}

// Shape and Size of a run-sized value (docs/dynamic-shapes.md): static outputs computed at run
// time from its dims slot (shape_rt, size_rt: kernels/lib/shape_rt.cpp).
std::pair<int64_t, int64_t> runSizedSlice(const Node& n) {
  const int64_t r = n.inputs[0]->type.rank();
  int64_t b = n.attrInt("start", 0), e = n.attrInt("end", r);
  if (b < 0) b += r;
  if (e < 0) e += r;
  b = std::max<int64_t>(0, std::min(b, r));
  e = std::max<int64_t>(b, std::min(e, r));
  return {b, e};
}

void inferShape(Graph&, Node& n) {
  if (isRunSized(n.inputs[0])) {
    auto be = runSizedSlice(n);
    n.outputs[0]->type = TensorType(DType::I64, {be.second - be.first});
    return;
  }
  auto v = shapeSlice(n);
  n.outputs[0]->type = TensorType(DType::I64, {(int64_t)v.size()});
  n.outputs[0]->constant = makeIntTensor(v);
}

int64_t sizeOf(const Node& n) {
  int64_t s = 1;
  for (auto d : dm::staticShape(n, 0)) s *= d;
  return s;
}

void inferSize(Graph&, Node& n) {
  if (isRunSized(n.inputs[0])) {
    n.outputs[0]->type = TensorType(DType::I64, {});
    return;
  }
  n.outputs[0]->type = TensorType(DType::I64, {});
  n.outputs[0]->constant = makeIntTensor({sizeOf(n)}, DType::I64, true);
}

KernelCall writeValues(const std::vector<int64_t>& v) {
  KernelCall k;
  k.kernel = "write_i64";
  k.params.push_back((int64_t)v.size());
  k.params.insert(k.params.end(), v.begin(), v.end());
  k.params.push_back(1);  // output buffer index (after the one input)
  return k;
}

KernelCall lowerShape(LowerCtx& c) {
  if (!isRunSized(c.node.inputs[0])) return writeValues(shapeSlice(c.node));
  auto be = runSizedSlice(c.node);
  KernelCall k{"shape_rt", {be.first, be.second, 0}};
  k.readsRunSized = true;
  return k;
}

KernelCall lowerSize(LowerCtx& c) {
  if (!isRunSized(c.node.inputs[0])) return writeValues({sizeOf(c.node)});
  KernelCall k{"shape_rt", {0, c.node.inputs[0]->type.rank(), 1}};
  k.readsRunSized = true;
  return k;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "Shape";
  d.category = OpCategory::Shape;
  d.readsRunSized = true;
  d.infer = inferShape;
  d.lower = lowerShape;
  return d;
}());

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "Size";
  d.category = OpCategory::Shape;
  d.readsRunSized = true;
  d.infer = inferSize;
  d.lower = lowerSize;
  return d;
}());

}  // namespace
}  // namespace atc
