// CumSum: running sums along a constant axis (exclusive / reverse attributes).
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

int64_t cumAxis(const Node& n) {
  auto a = dm::constInts(n, 1, "axis");
  if (a.size() != 1) opError(n, "axis must be a scalar");
  return normalizeAxis(a[0], (int64_t)dm::staticShape(n, 0).size(), n);
}

void inferCumSum(Graph&, Node& n) {
  DType t = n.inputs[0]->type.dtype;
  if (t != DType::F32 && t != DType::F64 && t != DType::F16 && t != DType::BF16 && t != DType::I32 &&
      t != DType::I64 && t != DType::U32 && t != DType::U64)
    opError(n, std::string("unsupported dtype ") + dtypeName(t));
  cumAxis(n);
  n.outputs[0]->type = n.inputs[0]->type;
}

KernelCall lowerCumSum(LowerCtx& c) {
  const Shape& s = c.node.inputs[0]->type.shape;
  size_t a = (size_t)cumAxis(c.node);
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < a; ++i) outer *= s[i];
  for (size_t i = a + 1; i < s.size(); ++i) inner *= s[i];
  return KernelCall{"cumsum", {(int64_t)c.node.inputs[0]->type.dtype, outer, s[a], inner,
                               c.node.attrInt("exclusive", 0), c.node.attrInt("reverse", 0)}};
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "CumSum";
  d.category = OpCategory::Misc;
  d.minInputs = d.maxInputs = 2;
  d.infer = inferCumSum;
  d.lower = lowerCumSum;
  return d;
}());

}  // namespace
}  // namespace atc
