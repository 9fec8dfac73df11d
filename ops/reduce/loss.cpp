// NegativeLogLikelihoodLoss (opsets 12-22) and SoftmaxCrossEntropyLoss (opsets 12-13): kernel
// "loss" (kernels/lib/loss.cpp). Input [N, C, d1...] float32/float64, target [N, d1...] int32
// or int64, optional weight [C]; reduction none / sum / mean (default), ignore_index.
// SoftmaxCrossEntropyLoss computes log(softmax) over C first and may output it (log_prob).
#include "ir/op_registry.h"

namespace atc {
namespace {

void lossShapes(const Node& n, int64_t* N, int64_t* C, int64_t* D) {
  const TensorType& x = n.inputs[0]->type;
  const TensorType& t = n.inputs[1]->type;
  if (x.dtype != DType::F32 && x.dtype != DType::F64) opError(n, "the input must be float32 or float64");
  if (t.dtype != DType::I32 && t.dtype != DType::I64) opError(n, "the target must be int32 or int64");
  if (!x.shapeKnown || x.rank() < 2) opError(n, "the input must be [N, C, d1...] (rank 2 or more)");
  Shape want = {x.shape[0]};
  want.insert(want.end(), x.shape.begin() + 2, x.shape.end());
  if (!t.shapeKnown || t.shape != want) opError(n, "the target must have the input's shape without C");
  if (const Value* w = n.input(2))
    if (w->type.dtype != x.dtype || !w->type.shapeKnown || w->type.shape != Shape{x.shape[1]})
      opError(n, "the weight must be [C] of the input's dtype");
  const std::string red = n.attrString("reduction", "mean");
  if (red != "none" && red != "sum" && red != "mean") opError(n, "reduction must be none, sum or mean, not " + red);
  *N = x.shape[0];
  *C = x.shape[1];
  *D = 1;
  for (size_t i = 2; i < x.shape.size(); ++i) *D *= x.shape[i];
  if (*C <= 0) opError(n, "C must be positive");
}

void inferLoss(Node& n) {
  int64_t N, C, D;
  lossShapes(n, &N, &C, &D);
  const bool none = n.attrString("reduction", "mean") == "none";
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, none ? n.inputs[1]->type.shape : Shape{});
  if (n.outputs.size() > 1) n.outputs[1]->type = n.inputs[0]->type;
}

KernelCall lowerLoss(LowerCtx& c, int64_t mode) {
  const Node& n = c.node;
  int64_t N, C, D;
  lossShapes(n, &N, &C, &D);
  const std::string red = n.attrString("reduction", "mean");
  const int64_t nin = (int64_t)n.inputs.size();
  const bool logProb = mode == 1 && n.outputs.size() > 1;
  KernelCall kc;
  kc.kernel = "loss";
  kc.params = {mode, N, C, D, (int64_t)n.inputs[0]->type.dtype, (int64_t)n.inputs[1]->type.dtype,
               n.input(2) ? 2 : -1, red == "none" ? 0 : red == "sum" ? 1 : 2,
               n.hasAttr("ignore_index") ? 1 : 0, n.attrInt("ignore_index", 0), nin,
               logProb ? nin + 1 : -1, nin + (int64_t)n.outputs.size()};
  kc.workspaceBytes = mode == 1 ? C * 8 + 64 : 0;
  return kc;
}

OpDef makeLoss(const char* type, int64_t mode) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::Reduce;
  d.minInputs = 2;
  d.maxInputs = 3;
  d.maxOutputs = mode == 1 ? 2 : 1;
  d.infer = [](Graph&, Node& n) { inferLoss(n); };
  d.lower = [mode](LowerCtx& c) { return lowerLoss(c, mode); };
  return d;
}

ATC_REGISTER_OP(makeLoss("NegativeLogLikelihoodLoss", 0));
ATC_REGISTER_OP(makeLoss("SoftmaxCrossEntropyLoss", 1));

}  // namespace
}  // namespace atc
