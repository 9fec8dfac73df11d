// Expand (numpy broadcast to a constant shape) and Tile (constant repeats): both are
// strided views of the input (stride 0 for repeated dims), lowered to strided_copy. With the
// shape or repeats fed at run time the output is run-sized (expand_rt, tile_rt).
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

// A shape or repeats fed at run time: the output is run-sized (kernels/lib/expand_rt.cpp).
bool runTimeShape(const Node& n, int64_t* len) {
  return dm::runTimeShapeInput(n, 1, n.type == "Expand" ? "shape" : "repeats", {DType::I64}, len);
}

void inferExpand(Graph&, Node& n) {
  const Shape& in = dm::staticShape(n, 0);
  int64_t L = 0;
  if (runTimeShape(n, &L)) {
    dm::setRunSized(n, 0, n.inputs[0]->type.dtype, Shape((size_t)std::max<int64_t>(L, (int64_t)in.size()), -1));
    return;
  }
  auto shape = dm::constInts(n, 1, "shape");
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, broadcastShapes({in, shape}, n));
}

KernelCall lowerExpand(LowerCtx& c) {
  const Shape& in = c.node.inputs[0]->type.shape;
  int64_t L = 0;
  if (runTimeShape(c.node, &L)) {
    KernelCall k{"expand_rt", {(int64_t)dtypeSize(c.node.inputs[0]->type.dtype), (int64_t)in.size(), L,
                               (int64_t)c.node.inputs[1]->type.dtype}};
    k.params.insert(k.params.end(), in.begin(), in.end());
    k.sizesOutputs = true;
    return k;
  }
  const Shape& out = c.node.outputs[0]->type.shape;
  auto st = dm::stridesOf(in);
  std::vector<int64_t> strides(out.size(), 0);
  size_t off = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) strides[off + i] = in[i] == 1 ? 0 : st[i];
  return dm::stridedCopy(c.node, (int64_t)dtypeSize(c.node.inputs[0]->type.dtype), out, strides, 0);
}

void inferTile(Graph&, Node& n) {
  const Shape& in = dm::staticShape(n, 0);
  int64_t L = 0;
  if (runTimeShape(n, &L)) {
    if (L != (int64_t)in.size()) opError(n, "repeats length differs from the input rank");
    dm::setRunSized(n, 0, n.inputs[0]->type.dtype, Shape(in.size(), -1));
    return;
  }
  auto reps = dm::constInts(n, 1, "repeats");
  if (reps.size() != in.size()) opError(n, "repeats length differs from the input rank");
  Shape out = in;
  for (size_t i = 0; i < in.size(); ++i) {
    if (reps[i] < 0) opError(n, "negative repeat");
    out[i] *= reps[i];
  }
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, out);
}

KernelCall lowerTile(LowerCtx& c) {
  const Shape& in = c.node.inputs[0]->type.shape;
  int64_t L = 0;
  if (runTimeShape(c.node, &L)) {
    KernelCall k{"tile_rt", {(int64_t)dtypeSize(c.node.inputs[0]->type.dtype), (int64_t)in.size(),
                             (int64_t)c.node.inputs[1]->type.dtype}};
    k.params.insert(k.params.end(), in.begin(), in.end());
    k.sizesOutputs = true;
    return k;
  }
  auto reps = dm::constInts(c.node, 1, "repeats");
  auto st = dm::stridesOf(in);
  Shape dims;
  std::vector<int64_t> strides;
  for (size_t i = 0; i < in.size(); ++i) {
    dims.push_back(reps[i]);
    strides.push_back(0);
    dims.push_back(in[i]);
    strides.push_back(st[i]);
  }
  return dm::stridedCopy(c.node, (int64_t)dtypeSize(c.node.inputs[0]->type.dtype), dims, strides, 0);
}

OpDef def(const char* type, std::function<void(Graph&, Node&)> inf, std::function<KernelCall(LowerCtx&)> low) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::DataMove;
  d.minInputs = d.maxInputs = 2;
  d.infer = std::move(inf);
  d.lower = std::move(low);
  return d;
}

ATC_REGISTER_OP(def("Expand", inferExpand, lowerExpand));
ATC_REGISTER_OP(def("Tile", inferTile, lowerTile));

}  // namespace
}  // namespace atc
