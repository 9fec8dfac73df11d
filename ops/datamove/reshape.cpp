// Reshape-like ops: Reshape, Flatten, Squeeze, Unsqueeze. The bytes do not change: they
// alias input 0 and lower to "copy" / "copy_to" (dm::copyInput0; the memory planner may
// elide it).
#include <algorithm>

#include "ops/datamove/datamove_util.h"
#include "support/checked_math.h"

namespace atc {
namespace {

// The shape (Reshape) or axes (Unsqueeze, Squeeze) fed at run time: the output is run-sized
// (reshape_rt, kernels/lib/shape_rt.cpp). Returns whether it is, having typed the output.
bool inferRunTime(Node& n) {
  int64_t L = 0;
  if (!dm::hasInput(n, 1) || !dm::runTimeShapeInput(n, 1, n.type == "Reshape" ? "shape" : "axes", {DType::I64}, &L))
    return false;
  const int64_t r = n.inputs[0]->type.rank();
  const int64_t R = n.type == "Reshape" ? L : n.type == "Unsqueeze" ? r + L : r - L;
  if (R < 0) opError(n, "more axes than dims");
  dm::setRunSized(n, 0, n.inputs[0]->type.dtype, Shape((size_t)R, -1));
  return true;
}

KernelCall lowerRunTime(const Node& n) {
  const Shape& in = n.inputs[0]->type.shape;
  const int64_t kind = n.type == "Reshape" ? 0 : n.type == "Unsqueeze" ? 1 : 2;
  KernelCall k{"reshape_rt", {(int64_t)dtypeSize(n.inputs[0]->type.dtype), kind, n.inputs[1]->type.numel(),
                              n.attrInt("allowzero", 0) != 0 ? 1 : 0, (int64_t)in.size()}};
  k.params.insert(k.params.end(), in.begin(), in.end());
  k.sizesOutputs = true;
  return k;
}

OpDef reshapeLike(const char* type, int minIn, int maxIn, std::function<void(Graph&, Node&)> f) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::DataMove;
  d.minInputs = minIn;
  d.maxInputs = maxIn;
  d.infer = std::move(f);
  d.lower = [](LowerCtx& c) { return isRunSized(c.node.outputs[0]) ? lowerRunTime(c.node) : dm::copyInput0(c.node); };
  d.aliasesInput0 = true;
  d.storesF16AndBf16(1);  // bytes moved as they are
  return d;
}

void inferReshape(Graph&, Node& n) {
  const Shape& in = dm::staticShape(n, 0);
  if (inferRunTime(n)) return;
  std::vector<int64_t> target;
  if (!dm::intsFromAttrOrInput(n, "shape", 1, &target)) opError(n, "no target shape");
  bool allowZero = n.attrInt("allowzero", 0) != 0;
  Shape out(target.size());
  int64_t known = 1, inferAt = -1, total = 1;
  for (auto d : in) total *= d;
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t d = target[i];
    if (d == 0 && !allowZero) {
      if (i >= in.size()) opError(n, "shape has 0 at index " + std::to_string(i) + " beyond input rank");
      d = in[i];
    } else if (d == -1) {
      if (inferAt >= 0) opError(n, "shape has more than one -1");
      inferAt = (int64_t)i;
      continue;
    } else if (d < -1) {
      opError(n, "invalid dim " + std::to_string(d) + " in shape");
    }
    out[i] = d;
    if (!checkedMul(known, d, &known)) opError(n, "the shape's element count overflows");
  }
  if (inferAt >= 0) {
    if (known == 0 || total % known != 0)
      opError(n, "cannot infer -1 dim: " + std::to_string(total) + " elements into " +
                     std::to_string(known));
    out[(size_t)inferAt] = total / known;
  } else if (known != total) {
    opError(n, "element count differs: input " + std::to_string(total) + ", shape " +
                   std::to_string(known));
  }
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, out);
}

void inferFlatten(Graph&, Node& n) {
  const Shape& in = dm::staticShape(n, 0);
  int64_t r = (int64_t)in.size();
  int64_t axis = n.attrInt("axis", 1);
  if (axis < 0) axis += r;
  if (axis < 0 || axis > r) opError(n, "axis out of range");
  int64_t a = 1, b = 1;
  for (int64_t i = 0; i < r; ++i) (i < axis ? a : b) *= in[(size_t)i];
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, {a, b});
}

void inferSqueeze(Graph&, Node& n) {
  const Shape& in = dm::staticShape(n, 0);
  if (inferRunTime(n)) return;
  int64_t r = (int64_t)in.size();
  std::vector<int64_t> axes;
  bool given = dm::intsFromAttrOrInput(n, "axes", 1, &axes);
  std::vector<bool> drop(in.size(), false);
  if (!given) {
    for (size_t i = 0; i < in.size(); ++i) drop[i] = in[i] == 1;
  } else {
    for (auto a : axes) {
      int64_t x = normalizeAxis(a, r, n);
      if (in[(size_t)x] != 1) opError(n, "cannot squeeze dim " + std::to_string(a) + " of size " + std::to_string(in[(size_t)x]));
      drop[(size_t)x] = true;
    }
  }
  Shape out;
  for (size_t i = 0; i < in.size(); ++i)
    if (!drop[i]) out.push_back(in[i]);
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, out);
}

void inferUnsqueeze(Graph&, Node& n) {
  const Shape& in = dm::staticShape(n, 0);
  if (inferRunTime(n)) return;
  std::vector<int64_t> axes;
  if (!dm::intsFromAttrOrInput(n, "axes", 1, &axes)) opError(n, "axes are required");
  int64_t r = (int64_t)(in.size() + axes.size());
  std::vector<bool> ins((size_t)r, false);
  for (auto a : axes) {
    int64_t x = a < 0 ? a + r : a;
    if (x < 0 || x >= r) opError(n, "axis " + std::to_string(a) + " out of range");
    if (ins[(size_t)x]) opError(n, "repeated axis " + std::to_string(a));
    ins[(size_t)x] = true;
  }
  Shape out;
  size_t k = 0;
  for (int64_t i = 0; i < r; ++i) out.push_back(ins[(size_t)i] ? 1 : in[k++]);
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, out);
}

ATC_REGISTER_OP(reshapeLike("Reshape", 1, 2, inferReshape));
ATC_REGISTER_OP(reshapeLike("Flatten", 1, 1, inferFlatten));
ATC_REGISTER_OP(reshapeLike("Squeeze", 1, 2, inferSqueeze));
ATC_REGISTER_OP(reshapeLike("Unsqueeze", 1, 2, inferUnsqueeze));

}  // namespace
}  // namespace atc
