// AffineGrid (opset 20): kernel affine_grid (kernels/lib/affine_grid.cpp). theta [N, 2, 3] with
// size [N, C, H, W] gives [N, H, W, 2]; theta [N, 3, 4] with size [N, C, D, H, W] gives
// [N, D, H, W, 3]. A size fed at run time makes the output run-sized (docs/dynamic-shapes.md).
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

int64_t spatialDims(const Node& n) {
  const Shape& t = dm::staticShape(n, 0);
  const DType dt = n.inputs[0]->type.dtype;
  if (dt != DType::F32 && dt != DType::F64) opError(n, std::string("unsupported dtype ") + dtypeName(dt));
  if (t.size() != 3 || !((t[1] == 2 && t[2] == 3) || (t[1] == 3 && t[2] == 4)))
    opError(n, "theta must be [N, 2, 3] or [N, 3, 4]");
  const Value* s = n.inputs[1];
  if (s->type.dtype != DType::I64 || !s->type.isStatic() || s->type.numel() != t[1] + 2)
    opError(n, "size must be int64 [N, C, H, W] for a 2-D theta or [N, C, D, H, W] for a 3-D one");
  return t[1];
}

void inferAffineGrid(Graph&, Node& n) {
  const int64_t nd = spatialDims(n), N = n.inputs[0]->type.shape[0];
  const DType dt = n.inputs[0]->type.dtype;
  if (!n.inputs[1]->isConstant()) {
    Shape out((size_t)(nd + 2), -1);
    out[0] = N;
    out.back() = nd;
    dm::setRunSized(n, 0, dt, out);
    return;
  }
  auto size = dm::constInts(n, 1, "size");
  if (size[0] != N) opError(n, "size's batch differs from theta's");
  Shape out = {N};
  for (int64_t d = 0; d < nd; ++d) {
    if (size[(size_t)(2 + d)] < 1) opError(n, "spatial sizes must be positive");
    out.push_back(size[(size_t)(2 + d)]);
  }
  out.push_back(nd);
  n.outputs[0]->type = TensorType(dt, out);
}

KernelCall lowerAffineGrid(LowerCtx& c) {
  const Node& n = c.node;
  const bool rt = isRunSized(n.outputs[0]);
  KernelCall k{"affine_grid", {(int64_t)n.inputs[0]->type.dtype, n.inputs[0]->type.shape[0], spatialDims(n),
                               n.attrInt("align_corners", 0) != 0 ? 1 : 0, rt ? 1 : 0}};
  k.sizesOutputs = rt;
  return k;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "AffineGrid";
  d.category = OpCategory::DataMove;
  d.minInputs = d.maxInputs = 2;
  d.infer = inferAffineGrid;
  d.lower = lowerAffineGrid;
  return d;
}());

}  // namespace
}  // namespace atc
