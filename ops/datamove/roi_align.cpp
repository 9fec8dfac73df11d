// RoiAlign (opsets 10, 16, 22): kernel "roi_align" (kernels/lib/roi_align.cpp). float32 X
// [N, C, H, W], rois [R, 4] (x1, y1, x2, y2), int64 batch_indices [R]; Y [R, C, oh, ow].
// Attributes: mode (avg, max), output_height/width, sampling_ratio, spatial_scale,
// coordinate_transformation_mode (opset 16+: half_pixel by default; opset 10 has only the
// legacy output_half_pixel behaviour).
#include "ir/dtype.h"
#include "ir/op_registry.h"

namespace atc {
namespace {

bool halfPixel(const Node& n, int64_t opset) {
  const std::string m = n.attrString("coordinate_transformation_mode", opset >= 16 ? "half_pixel" : "output_half_pixel");
  if (m == "half_pixel") return true;
  if (m == "output_half_pixel") return false;
  opError(n, "coordinate_transformation_mode '" + m + "' is not half_pixel or output_half_pixel");
}

int64_t roiMode(const Node& n) {
  const std::string m = n.attrString("mode", "avg");
  if (m == "avg") return 0;
  if (m == "max") return 1;
  opError(n, "mode '" + m + "' is not avg or max");
}

void inferRoiAlign(Graph& g, Node& n) {
  const TensorType &x = n.inputs[0]->type, &r = n.inputs[1]->type, &b = n.inputs[2]->type;
  halfPixel(n, g.opsetVersion);
  roiMode(n);
  if (x.dtype != DType::F32 || r.dtype != DType::F32) opError(n, "X and rois must be float32");
  if (b.dtype != DType::I64) opError(n, "batch_indices must be int64");
  if (!x.isStatic() || !r.isStatic() || !b.isStatic()) opError(n, "X, rois and batch_indices need static shapes");
  if (x.rank() != 4) opError(n, "X must be [N, C, H, W]");
  if (r.rank() != 2 || r.shape[1] != 4) opError(n, "rois must be [num_rois, 4]");
  if (b.rank() != 1 || b.shape[0] != r.shape[0]) opError(n, "batch_indices must be [num_rois]");
  if (x.shape[0] < 1 || x.shape[2] < 1 || x.shape[3] < 1) opError(n, "X's batch and spatial dims must not be empty");
  const int64_t oh = n.attrInt("output_height", 1), ow = n.attrInt("output_width", 1);
  if (oh < 1 || ow < 1 || oh > 65536 || ow > 65536) opError(n, "output_height and output_width must be in [1, 65536]");
  if (n.attrInt("sampling_ratio", 0) < 0 || n.attrInt("sampling_ratio", 0) > 1024)
    opError(n, "sampling_ratio must be in [0, 1024]");
  n.outputs[0]->type = TensorType(DType::F32, {r.shape[0], x.shape[1], oh, ow});
}

KernelCall lowerRoiAlign(LowerCtx& c) {
  const Node& n = c.node;
  const Shape& x = n.inputs[0]->type.shape;
  KernelCall kc;
  kc.kernel = "roi_align";
  kc.params = {x[0],
               x[1],
               x[2],
               x[3],
               n.inputs[1]->type.shape[0],
               n.attrInt("output_height", 1),
               n.attrInt("output_width", 1),
               n.attrInt("sampling_ratio", 0),
               paramFromDouble(n.attrFloat("spatial_scale", 1.0f)),
               halfPixel(n, c.graph.opsetVersion) ? 1 : 0,
               roiMode(n)};
  return kc;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "RoiAlign";
  d.category = OpCategory::DataMove;
  d.minInputs = 3;
  d.maxInputs = 3;
  d.infer = inferRoiAlign;
  d.lower = lowerRoiAlign;
  return d;
}());

}  // namespace
}  // namespace atc
