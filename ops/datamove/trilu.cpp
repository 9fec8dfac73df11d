// Trilu (opset 14): upper / lower triangle of the last two dims. k (int64 scalar) is a
// constant baked into the kernel, or read by the kernel at run time: it does not change the
// output's shape.
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

// The constant k (0 without the input); *runtime when k is an input read at run time.
int64_t diagK(const Node& n, bool* runtime) {
  *runtime = false;
  Value* k = n.input(1);
  if (!k) return 0;
  if (k->type.dtype != DType::I64) opError(n, "k must be an int64 tensor");
  if (k->type.shapeKnown && k->type.numel() != 1) opError(n, "k must be a scalar");
  if (!k->isConstant()) {
    *runtime = true;
    return 0;
  }
  return dm::constInts(n, 1, "k")[0];
}

void inferTrilu(Graph&, Node& n) {
  const Shape& s = dm::staticShape(n, 0);
  if (s.size() < 2) opError(n, "input must have rank >= 2");
  bool runtime = false;
  diagK(n, &runtime);
  n.outputs[0]->type = n.inputs[0]->type;
}

KernelCall lowerTrilu(LowerCtx& c) {
  const Shape& s = c.node.inputs[0]->type.shape;
  int64_t rows = s[s.size() - 2], cols = s.back();
  int64_t batch = 1;
  for (size_t i = 0; i + 2 < s.size(); ++i) batch *= s[i];
  bool runtime = false;
  int64_t k = diagK(c.node, &runtime);
  return KernelCall{"trilu", {(int64_t)dtypeSize(c.node.inputs[0]->type.dtype), batch, rows, cols, k,
                              c.node.attrInt("upper", 1), (int64_t)c.node.inputs.size(), runtime ? 1 : 0}};
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
