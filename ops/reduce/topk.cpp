// TopK (opset 1: k as an attribute; 10+: k as input 1; 11+: largest, sorted): the k largest or
// smallest values along `axis`, sorted, and their int64 indices. A constant k gives static
// outputs; a k fed at run time gives outputs whose shape depends on data (Value::shapeFromData:
// the axis dim bounded by its input dim, the actual k written by the kernel).
#include <algorithm>

#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

constexpr int64_t kMaxTopKRank = 8;  // kernels/lib/topk.cpp's dims

// The constant k, or -1 when k comes at run time.
int64_t constK(const Node& n) {
  if (n.inputs.size() < 2) {
    if (!n.hasAttr("k")) opError(n, "has no k (attribute k before opset 10, input K from 10)");
    return n.attrInt("k", 0);
  }
  const Value* k = n.inputs[1];
  if (!k) opError(n, "input K is required");
  if (k->type.dtype != DType::I64) opError(n, "K must be int64, got " + k->type.str());
  if (k->type.shapeKnown && (k->type.rank() > 1 || (k->type.isStatic() && k->type.numel() != 1)))
    opError(n, "K must hold one value, got " + k->type.str());
  if (!k->isConstant()) return -1;
  return k->constant->toInts().at(0);
}

void inferTopK(Graph&, Node& n) {
  const TensorType& x = n.inputs[0]->type;
  if (!x.shapeKnown) opError(n, "input rank must be known");
  if (x.rank() > kMaxTopKRank) opError(n, "supports rank <= 8, got " + x.str());
  const int64_t axis = normalizeAxis(n.attrInt("axis", -1), x.rank(), n);
  const int64_t k = constK(n);
  if (k < -1 || (k > x.shape[axis] && x.shape[axis] >= 0))
    opError(n, "k = " + std::to_string(k) + " is outside [0, " + std::to_string(x.shape[axis]) + "]");
  Shape out = x.shape;
  if (k >= 0) out[axis] = k;
  n.outputs[0]->type = TensorType(x.dtype, out);
  n.outputs[1]->type = TensorType(DType::I64, out);
  n.outputs[0]->shapeFromData = n.outputs[1]->shapeFromData = k < 0;
}

KernelCall lowerTopK(LowerCtx& c) {
  const Node& n = c.node;
  const TensorType& x = n.inputs[0]->type;
  const int64_t axis = normalizeAxis(n.attrInt("axis", -1), x.rank(), n);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.shape[d];
  const int64_t len = x.shape[axis], k = constK(n);
  const int64_t tasks = std::max<int64_t>(1, std::min<int64_t>(outer * inner, 64));
  KernelCall call;
  call.kernel = "topk";
  call.params = {(int64_t)x.dtype, outer, len, inner, k, n.attrInt("largest", 1) ? 1 : 0, tasks,
                 dataShapeOffset(n.outputs[0]->type), dataShapeOffset(n.outputs[1]->type), axis,
                 (int64_t)n.inputs.size(), x.rank()};
  for (int64_t d : x.shape) call.params.push_back(d);
  call.workspaceBytes = tasks * 2 * std::max<int64_t>(len, 1) * 8;
  return call;
}

const bool kRegistered = [] {
  OpDef d;
  d.type = "TopK";
  d.category = OpCategory::Reduce;
  d.minInputs = 1;
  d.maxInputs = 2;
  d.minOutputs = d.maxOutputs = 2;
  d.infer = inferTopK;
  d.lower = lowerTopK;
  OpRegistry::instance().add(d);
  return true;
}();

}  // namespace
}  // namespace atc
