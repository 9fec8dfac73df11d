// Trilu (opset 14): upper / lower triangle of the last two dims; k input must be constant.
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

int64_t diagK(const Node& n) {
  if (!n.input(1)) return 0;
  auto k = dm::constInts(n, 1, "k");
  if (k.size() != 1) opError(n, "k must be a scalar");
  return k[0];
}

void inferTrilu(Graph&, Node& n) {
  const Shape& s = dm::staticShape(n, 0);
  if (s.size() < 2) opError(n, "input must have rank >= 2");
  diagK(n);
  n.outputs[0]->type = n.inputs[0]->type;
}

KernelCall lowerTrilu(LowerCtx& c) {
  const Shape& s = c.node.inputs[0]->type.shape;
  int64_t rows = s[s.size() - 2], cols = s.back();
  int64_t batch = 1;
  for (size_t i = 0; i + 2 < s.size(); ++i) batch *= s[i];
  return KernelCall{"trilu", {(int64_t)dtypeSize(c.node.inputs[0]->type.dtype), batch, rows, cols,
                              diagK(c.node), c.node.attrInt("upper", 1), (int64_t)c.node.inputs.size()}};
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "Trilu";
  d.category = OpCategory::DataMove;
  d.minInputs = 1;
  d.maxInputs = 2;
  d.infer = inferTrilu;
  d.lower = lowerTrilu;
  return d;
}());

}  // namespace
}  // namespace atc
