// CumSum (opset 11, 14) and CumProd (opset 26): running sums / products along one axis
// (exclusive / reverse attributes). The axis (int32 or int64 scalar) is a constant baked
// into the kernel, or read by the kernel at run time: it does not change the output's shape.
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

// The constant axis (normalised), or -1 with *runtime when it is read at run time.
int64_t cumAxis(const Node& n, bool* runtime) {
  Value* a = n.input(1);
  if (a->type.dtype != DType::I32 && a->type.dtype != DType::I64) opError(n, "axis must be int32 or int64");
  if (a->type.shapeKnown && a->type.numel() != 1) opError(n, "axis must be a scalar");
  *runtime = !a->isConstant();
  if (*runtime && dm::staticShape(n, 0).empty()) opError(n, "axis: the input is a scalar and has no axes");
  if (*runtime) return -1;
  return normalizeAxis(dm::constInts(n, 1, "axis")[0], (int64_t)dm::staticShape(n, 0).size(), n);
}

void inferCum(Graph&, Node& n) {
  DType t = n.inputs[0]->type.dtype;
  if (t != DType::F32 && t != DType::F64 && t != DType::F16 && t != DType::BF16 && t != DType::I32 &&
      t != DType::I64 && t != DType::U32 && t != DType::U64)
    opError(n, std::string("unsupported dtype ") + dtypeName(t));
  bool runtime = false;
  cumAxis(n, &runtime);
  if (runtime && dm::staticShape(n, 0).size() > 8) opError(n, "a run-time axis needs an input of rank <= 8");
  n.outputs[0]->type = n.inputs[0]->type;
}

// P = {dtype, outer, n, inner, exclusive, reverse, product, axisFromBuf, rank, dims...}
// (kernels/lib/range_cumsum.cpp).
KernelCall lowerCum(LowerCtx& c, int64_t product) {
  const Shape& s = c.node.inputs[0]->type.shape;
  bool runtime = false;
  int64_t a = cumAxis(c.node, &runtime);
  int64_t outer = 1, inner = 1, len = 1;
  if (!runtime) {
    for (int64_t i = 0; i < a; ++i) outer *= s[i];
    for (size_t i = (size_t)a + 1; i < s.size(); ++i) inner *= s[i];
    len = s[(size_t)a];
  } else {
    for (int64_t d : s) len *= d;  // one task runs every slice; the kernel splits the shape
  }
  std::vector<int64_t> P = {(int64_t)c.node.inputs[0]->type.dtype, runtime ? 1 : outer, len, inner,
                            c.node.attrInt("exclusive", 0), c.node.attrInt("reverse", 0), product,
                            runtime ? (int64_t)c.node.inputs[1]->type.dtype : 0, (int64_t)s.size()};
  P.insert(P.end(), s.begin(), s.end());
  return KernelCall{"cumsum", P};
}

OpDef cumOp(const char* type, int64_t product) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::Misc;
  d.minInputs = d.maxInputs = 2;
  d.infer = inferCum;
  d.lower = [product](LowerCtx& c) { return lowerCum(c, product); };
  return d;
}

ATC_REGISTER_OP(cumOp("CumSum", 0));
ATC_REGISTER_OP(cumOp("CumProd", 1));

}  // namespace
}  // namespace atc
