// GridSample (opsets 16, 20, 22): kernel "grid_sample" (kernels/lib/grid_sample.cpp). float32
// X [N, C, D...] with 2 or 3 spatial dims and Grid [N, O..., r]; Y [N, C, O...]. mode
// "nearest", "linear" ("bilinear" before opset 20), "cubic" ("bicubic"); padding_mode
// "zeros", "border", "reflection"; align_corners.
#include "ir/dtype.h"
#include "ir/op_registry.h"

namespace atc {
namespace {

int64_t gridMode(const Node& n) {
  const std::string m = n.attrString("mode", "linear");
  if (m == "nearest") return 0;
  if (m == "linear" || m == "bilinear") return 1;
  if (m == "cubic" || m == "bicubic") return 2;
  opError(n, "mode '" + m + "' is not one of nearest, linear (bilinear), cubic (bicubic)");
}

int64_t gridPadding(const Node& n) {
  const std::string p = n.attrString("padding_mode", "zeros");
  if (p == "zeros") return 0;
  if (p == "border") return 1;
  if (p == "reflection") return 2;
  opError(n, "padding_mode '" + p + "' is not one of zeros, border, reflection");
}

void inferGridSample(Graph&, Node& n) {
  const TensorType &x = n.inputs[0]->type, &g = n.inputs[1]->type;
  gridMode(n);
  gridPadding(n);
  if (x.dtype != DType::F32 || g.dtype != DType::F32) opError(n, "X and Grid must be float32");
  if (!x.shapeKnown || !g.shapeKnown) opError(n, "X and Grid need static shapes");
  const int64_t r = (int64_t)x.rank() - 2;
  if (r != 2 && r != 3) opError(n, "X must have 2 or 3 spatial dims (rank 4 or 5)");
  if ((int64_t)g.rank() != r + 2 || g.shape[0] != x.shape[0] || g.shape.back() != r)
    opError(n, "Grid must be [N, spatial..., " + std::to_string(r) + "] with X's batch");
  for (int64_t i = 0; i < r; ++i)
    if (x.shape[2 + i] < 1) opError(n, "X's spatial dims must not be empty");
  Shape y = {x.shape[0], x.shape[1]};
  for (int64_t i = 1; i <= r; ++i) y.push_back(g.shape[i]);
  n.outputs[0]->type = TensorType(DType::F32, y);
}

KernelCall lowerGridSample(LowerCtx& c) {
  const Node& n = c.node;
  const Shape& x = n.inputs[0]->type.shape;
  const Shape& g = n.inputs[1]->type.shape;
  const int64_t r = (int64_t)x.size() - 2;
  int64_t points = 1;
  for (int64_t i = 1; i <= r; ++i) points *= g[i];
  KernelCall kc;
  kc.kernel = "grid_sample";
  kc.params = {x[0], x[1], r, points, gridMode(n), gridPadding(n), n.attrInt("align_corners", 0) ? 1 : 0};
  for (int64_t i = 0; i < r; ++i) kc.params.push_back(x[2 + i]);
  return kc;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "GridSample";
  d.category = OpCategory::DataMove;
  d.minInputs = 2;
  d.maxInputs = 2;
  d.infer = inferGridSample;
  d.lower = lowerGridSample;
  return d;
}());

}  // namespace
}  // namespace atc
