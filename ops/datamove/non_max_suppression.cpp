// NonMaxSuppression (opset 10, 11): the boxes kept per batch and class, int64 [count, 3]
// (batch, class, box). count depends on the data (Value::shapeFromData): bounded by
// batches * classes * min(boxes, max_output_boxes_per_class when constant).
#include <algorithm>

#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

void checkScalarInput(const Node& n, size_t i, DType dt, const char* what) {
  const Value* v = n.input(i);
  if (!v) return;
  if (v->type.dtype != dt || !v->type.isStatic() || v->type.numel() != 1)
    opError(n, std::string(what) + " must hold one " + dtypeName(dt) + " value, got " + v->type.str());
}

void inferNms(Graph&, Node& n) {
  const TensorType& b = n.inputs[0]->type;
  const TensorType& s = n.inputs[1]->type;
  if (!b.isStatic() || !s.isStatic()) opError(n, "needs static input shapes");
  if (b.rank() != 3 || b.shape[2] != 4) opError(n, "boxes must be [batches, boxes, 4], got " + b.str());
  if (s.rank() != 3 || s.shape[0] != b.shape[0] || s.shape[2] != b.shape[1])
    opError(n, "scores must be [batches, classes, boxes] for boxes " + b.str() + ", got " + s.str());
  for (const TensorType* t : {&b, &s})
    if (t->dtype != DType::F32 && t->dtype != DType::F16)
      opError(n, "boxes and scores must be float32 or float16, got " + t->str());
  checkScalarInput(n, 2, DType::I64, "max_output_boxes_per_class");
  checkScalarInput(n, 3, DType::F32, "iou_threshold");
  checkScalarInput(n, 4, DType::F32, "score_threshold");
  const int64_t center = n.attrInt("center_point_box", 0);
  if (center != 0 && center != 1) opError(n, "center_point_box must be 0 or 1, got " + std::to_string(center));
  int64_t perClass = b.shape[1];
  const Value* mo = n.input(2);
  if (!mo) perClass = 0;
  else if (mo->isConstant()) perClass = std::clamp<int64_t>(mo->constant->toInts().at(0), 0, perClass);
  n.outputs[0]->type = TensorType(DType::I64, {b.shape[0] * s.shape[1] * perClass, 3});
  n.outputs[0]->shapeFromData = true;
}

KernelCall lowerNms(LowerCtx& c) {
  const Node& n = c.node;
  const TensorType& b = n.inputs[0]->type;
  KernelCall call;
  call.kernel = "nms";
  call.params = {b.shape[0], n.inputs[1]->type.shape[1], b.shape[1], n.attrInt("center_point_box", 0),
                 (int64_t)n.inputs.size(), dataShapeOffset(n.outputs[0]->type), (int64_t)b.dtype,
                 (int64_t)n.inputs[1]->type.dtype};
  call.workspaceBytes = 3 * std::max<int64_t>(b.shape[1], 1) * 8;
  return call;
}

const bool kRegistered = [] {
  OpDef d;
  d.type = "NonMaxSuppression";
  d.category = OpCategory::DataMove;
  d.minInputs = 2;
  d.maxInputs = 5;
  d.infer = inferNms;
  d.lower = lowerNms;
  OpRegistry::instance().add(d);
  return true;
}();

}  // namespace
}  // namespace atc
