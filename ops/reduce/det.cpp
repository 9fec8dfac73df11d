// Det (opsets 11, 22): determinants of the square matrices in the last two dims of X
// [*, M, M] (float32 or float64); Y [*]. Kernel "det" (kernels/lib/det.cpp): LU
// decomposition with partial pivoting per matrix.
#include "ir/dtype.h"
#include "ir/op_registry.h"

namespace atc {
namespace {

void inferDet(Graph&, Node& n) {
  const TensorType& x = n.inputs[0]->type;
  if (x.dtype != DType::F32 && x.dtype != DType::F64) opError(n, "X must be float32 or float64");
  if (!x.isStatic() || x.rank() < 2) opError(n, "X needs a static shape [*, M, M]");
  const int64_t m = x.shape[x.rank() - 1];
  if (x.shape[x.rank() - 2] != m) opError(n, "the last two dims of X must be equal (square matrices)");
  if (m > 4096) opError(n, "matrices larger than 4096 x 4096 are not supported");
  n.outputs[0]->type = TensorType(x.dtype, Shape(x.shape.begin(), x.shape.end() - 2));
}

KernelCall lowerDet(LowerCtx& c) {
  const TensorType& x = c.node.inputs[0]->type;
  const int64_t m = x.shape.back();
  int64_t batch = 1;
  for (size_t i = 0; i + 2 < x.shape.size(); ++i) batch *= x.shape[i];
  KernelCall kc;
  kc.kernel = "det";
  kc.params = {(int64_t)x.dtype, batch, m};
  kc.workspaceBytes = batch * m * m * 8;  // each matrix in double, factorised in place
  return kc;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "Det";
  d.category = OpCategory::Misc;
  d.minInputs = d.maxInputs = 1;
  d.infer = inferDet;
  d.lower = lowerDet;
  return d;
}());

}  // namespace
}  // namespace atc
