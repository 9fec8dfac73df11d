// Concat and Split: blocks along one axis, lowered to the concat / split kernels. A Split whose
// `split` sizes come at run time gives outputs whose shapes depend on data (bounded by X; kernel
// split_rt, kernels/lib/split_rt.cpp).
#include "ops/datamove/datamove_util.h"
#include "support/checked_math.h"

namespace atc {
namespace {

void inferConcat(Graph&, Node& n) {
  const Shape& first = dm::staticShape(n, 0);
  int64_t r = (int64_t)first.size();
  if (r == 0) opError(n, "the inputs are scalars; Concat needs rank >= 1");  // normalizeAxis lets axis 0 pass
  if (!n.hasAttr("axis")) opError(n, "attribute axis is required");
  int64_t axis = normalizeAxis(n.attrInt("axis", 0), r, n);
  Shape out = first;
  out[(size_t)axis] = 0;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Shape& s = dm::staticShape(n, i);
    if ((int64_t)s.size() != r) opError(n, "inputs have different ranks");
    if (n.inputs[i]->type.dtype != n.inputs[0]->type.dtype) opError(n, "inputs have different dtypes");
    for (int64_t d = 0; d < r; ++d)
      if (d != axis && s[(size_t)d] != first[(size_t)d])
        opError(n, "input " + std::to_string(i) + " shape " + n.inputs[i]->type.str() +
                       " does not match " + n.inputs[0]->type.str() + " off the axis");
    out[(size_t)axis] += s[(size_t)axis];
  }
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, out);
}

// P = {n, outer, rowBytes_i...} for parts with shapes `parts` along axis.
KernelCall blocks(const char* kernel, const Shape& full, const std::vector<Shape>& parts,
                  int64_t axis, DType dt) {
  int64_t outer = 1, inner = (int64_t)dtypeSize(dt);
  for (int64_t d = 0; d < axis; ++d) outer *= full[(size_t)d];
  for (size_t d = (size_t)axis + 1; d < full.size(); ++d) inner *= full[d];
  KernelCall k;
  k.kernel = kernel;
  k.params = {(int64_t)parts.size(), outer};
  for (auto& p : parts) k.params.push_back(p[(size_t)axis] * inner);
  return k;
}

KernelCall lowerConcat(LowerCtx& c) {
  Node& n = c.node;
  const Shape& out = n.outputs[0]->type.shape;
  int64_t axis = normalizeAxis(n.attrInt("axis", 0), (int64_t)out.size(), n);
  std::vector<Shape> parts;
  for (auto* v : n.inputs) parts.push_back(v->type.shape);
  return blocks("concat", out, parts, axis, n.outputs[0]->type.dtype);
}

std::vector<int64_t> splitSizes(const Node& n) {
  const Shape& in = dm::staticShape(n, 0);
  if (in.empty()) opError(n, "the input is a scalar; Split needs rank >= 1");  // normalizeAxis lets axis 0 pass
  int64_t axis = normalizeAxis(n.attrInt("axis", 0), (int64_t)in.size(), n);
  int64_t dim = in[(size_t)axis];
  std::vector<int64_t> sizes;
  if (dm::intsFromAttrOrInput(n, "split", 1, &sizes)) {
    if (sizes.size() != n.outputs.size()) opError(n, "split has " + std::to_string(sizes.size()) + " entries for " + std::to_string(n.outputs.size()) + " outputs");
    int64_t s = 0;
    for (auto x : sizes) {
      if (x < 0) opError(n, "negative split size");
      if (!checkedAdd(s, x, &s)) opError(n, "split sizes overflow");
    }
    if (s != dim) opError(n, "split sizes sum to " + std::to_string(s) + ", dim is " + std::to_string(dim));
    return sizes;
  }
  int64_t parts = n.hasAttr("num_outputs") ? n.attrInt("num_outputs", 1) : (int64_t)n.outputs.size();
  if (parts <= 0 || parts != (int64_t)n.outputs.size()) opError(n, "num_outputs does not match the outputs");
  // Equal parts; the last one is smaller when the dim does not divide (opset 18 rule).
  int64_t each = (dim + parts - 1) / parts;
  for (int64_t i = 0; i < parts; ++i) sizes.push_back(std::max<int64_t>(0, std::min(each, dim - i * each)));
  return sizes;
}

// Opset 13+ with `split` fed at run time: checks it (int64, static 1-D, one size per output).
bool runtimeSplit(const Node& n) {
  const Value* s = n.input(1);
  if (!s || s->isConstant()) return false;
  const Shape& in = dm::staticShape(n, 0);
  if (in.empty() || in.size() > 16) opError(n, "a split fed at run time needs X of rank 1..16");
  if (s->type.dtype != DType::I64) opError(n, "split must be int64, got " + s->type.str());
  if (!s->type.isStatic() || s->type.rank() != 1 || s->type.shape[0] != (int64_t)n.outputs.size())
    opError(n, "split fed at run time must be int64[" + std::to_string(n.outputs.size()) +
                   "] (one size per output), got " + s->type.str());
  return true;
}

void inferSplit(Graph&, Node& n) {
  const Shape& in = dm::staticShape(n, 0);
  int64_t axis = normalizeAxis(n.attrInt("axis", 0), (int64_t)in.size(), n);
  if (runtimeSplit(n)) {  // each output bounded by X: its shape depends on data
    for (Value* o : n.outputs) {
      o->type = n.inputs[0]->type;
      o->shapeFromData = true;
    }
    return;
  }
  auto sizes = splitSizes(n);
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    Shape s = in;
    s[(size_t)axis] = sizes[i];
    n.outputs[i]->type = TensorType(n.inputs[0]->type.dtype, s);
  }
}

KernelCall lowerSplit(LowerCtx& c) {
  Node& n = c.node;
  const Shape& in = n.inputs[0]->type.shape;
  int64_t axis = normalizeAxis(n.attrInt("axis", 0), (int64_t)in.size(), n);
  if (runtimeSplit(n)) {
    KernelCall k;
    k.kernel = "split_rt";
    k.params = {(int64_t)dtypeSize(n.inputs[0]->type.dtype), (int64_t)in.size(), axis, (int64_t)n.outputs.size(),
                (int64_t)n.inputs.size(), dataShapeOffset(n.outputs[0]->type)};
    for (int64_t d : in) k.params.push_back(d);
    return k;
  }
  std::vector<Shape> parts;
  for (auto* v : n.outputs) parts.push_back(v->type.shape);
  KernelCall k = blocks("split", in, parts, axis, n.inputs[0]->type.dtype);
  k.params.push_back((int64_t)n.inputs.size());  // outputs follow the inputs in bufs
  return k;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "Concat";
  d.category = OpCategory::DataMove;
  d.minInputs = 1;
  d.maxInputs = -1;
  d.infer = inferConcat;
  d.lower = lowerConcat;
  d.storesF16AndBf16();  // bytes moved as they are
  return d;
}());

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "Split";
  d.category = OpCategory::DataMove;
  d.minInputs = 1;
  d.maxInputs = 2;
  d.minOutputs = 1;
  d.maxOutputs = -1;
  d.infer = inferSplit;
  d.lower = lowerSplit;
  d.storesF16AndBf16(1);
  return d;
}());

}  // namespace
}  // namespace atc
