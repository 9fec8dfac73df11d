// CenterCropPad (opset 18): kernel center_crop_pad (kernels/lib/center_crop_pad.cpp). A shape fed
// at run time makes the output run-sized (docs/dynamic-shapes.md).
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

std::vector<int64_t> axesOf(const Node& n) {
  const int64_t r = n.inputs[0]->type.rank();
  std::vector<int64_t> axes;
  if (!n.hasAttr("axes")) {
    for (int64_t d = 0; d < r; ++d) axes.push_back(d);
    return axes;
  }
  std::vector<bool> seen((size_t)r, false);
  for (int64_t a : n.attrInts("axes")) {
    const int64_t d = normalizeAxis(a, r, n);
    if (seen[(size_t)d]) opError(n, "repeated axes");
    seen[(size_t)d] = true;
    axes.push_back(d);
  }
  return axes;
}

void inferCenterCropPad(Graph&, Node& n) {
  const Shape& in = dm::staticShape(n, 0);
  if ((int64_t)in.size() > kRunSizedMaxRank) opError(n, "at most 8 dims are supported");
  const auto axes = axesOf(n);
  int64_t len = 0;
  if (dm::runTimeShapeInput(n, 1, "shape", {DType::I64, DType::I32}, &len)) {
    if (len != (int64_t)axes.size()) opError(n, "shape must hold one value per axis");
    Shape out = in;
    for (int64_t a : axes) out[(size_t)a] = -1;
    dm::setRunSized(n, 0, n.inputs[0]->type.dtype, out);
    return;
  }
  auto shape = dm::constInts(n, 1, "shape");
  if (shape.size() != axes.size()) opError(n, "shape must hold one value per axis");
  Shape out = in;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (shape[i] < 0) opError(n, "negative size in shape");
    out[(size_t)axes[i]] = shape[i];
  }
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, out);
}

KernelCall lowerCenterCropPad(LowerCtx& c) {
  const Node& n = c.node;
  const auto axes = axesOf(n);
  const Shape& in = n.inputs[0]->type.shape;
  const bool rt = isRunSized(n.outputs[0]);
  KernelCall k{"center_crop_pad", {(int64_t)dtypeSize(n.inputs[0]->type.dtype), (int64_t)in.size(),
                                   (int64_t)axes.size(), (int64_t)n.inputs[1]->type.dtype, rt ? 1 : 0}};
  k.params.insert(k.params.end(), axes.begin(), axes.end());
  k.params.insert(k.params.end(), in.begin(), in.end());
  k.sizesOutputs = rt;
  return k;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "CenterCropPad";
  d.category = OpCategory::DataMove;
  d.minInputs = d.maxInputs = 2;
  d.infer = inferCenterCropPad;
  d.lower = lowerCenterCropPad;
  return d;
}());

}  // namespace
}  // namespace atc
