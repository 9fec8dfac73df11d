#include "backend/step_flops.h"

#include "ir/graph.h"

namespace atc {
namespace {

// An operand's shape before lowering replaced it by a packed copy (ops/cube/*.cpp record it).
Shape originalShape(const Node& n, size_t i) {
  if (i == 1 && n.hasAttr("_cube_wshape")) return n.attrInts("_cube_wshape");
  if (n.hasAttr("_cube_shape" + std::to_string(i))) return n.attrInts("_cube_shape" + std::to_string(i));
  return i < n.inputs.size() && n.inputs[i] ? n.inputs[i]->type.shape : Shape{};
}

int64_t product(const Shape& s, size_t from) {
  int64_t p = 1;
  for (size_t i = from; i < s.size(); ++i) {
    if (s[i] < 0) return 0;
    p *= s[i];
  }
  return p;
}

}  // namespace

int64_t cubeFlops(const Node& n) {
  if (n.outputs.empty() || !n.outputs[0] || n.inputs.size() < 2 || !n.inputs[0]) return 0;
  const int64_t out = product(n.outputs[0]->type.shape, 0);
  if (n.type == "Conv") {
    Shape w = originalShape(n, 1);  // [Cout, Cin/group, k...]
    return w.size() >= 2 ? 2 * out * product(w, 1) : 0;
  }
  if (n.type == "QuantizedConv" && n.inputs.size() > 3 && n.inputs[3]) {  // int8 multiply-adds, 2 ops each
    const std::vector<int64_t> w = n.hasAttr("_q8_wshape") ? n.attrInts("_q8_wshape") : n.inputs[3]->type.shape;
    return w.size() == 4 ? 2 * out * w[1] * w[2] * w[3] : 0;
  }
  if (n.type == "ConvTranspose") {
    Shape w = originalShape(n, 1);  // [Cin, Cout/group, k...]: each input element feeds Cout/group x k
    return w.size() >= 2 ? 2 * product(n.inputs[0]->type.shape, 0) * product(w, 1) : 0;
  }
  if (n.type == "MatMul") {
    Shape a = originalShape(n, 0);
    return a.empty() ? 0 : 2 * out * a.back();
  }
  if (n.type == "Gemm") {
    Shape a = originalShape(n, 0);
    if (a.size() != 2) return 0;
    return 2 * out * (n.attrInt("transA", 0) ? a[0] : a[1]);
  }
  return 0;
}

}  // namespace atc
