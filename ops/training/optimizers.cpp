// The training operators of the ai.onnx.preview.training domain: Adagrad, Momentum (standard and
// nesterov) and Adam, each updating n tensors in one node: kernel optimizer
// (kernels/lib/optimizer.cpp). R is a float scalar (the learning rate), T an int64 scalar (the
// iteration count); X, G and the states are float32 or float64 of one shape per tensor.
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

int64_t kindOf(const Node& n) {
  const std::string& t = n.type;
  return t.find("Adagrad") != std::string::npos ? 0 : t.find("Momentum") != std::string::npos ? 1 : 2;
}

int64_t tensorsOf(const Node& n) {
  const int64_t groups = kindOf(n) == 2 ? 4 : 3;  // X, G and the states
  const int64_t k = (int64_t)n.inputs.size() - 2;
  if (k < groups || k % groups) opError(n, "inputs must be R, T, then X, G and the states of each tensor");
  return k / groups;
}

void inferOptimizer(Graph&, Node& n) {
  const int64_t k = tensorsOf(n), states = kindOf(n) == 2 ? 2 : 1;
  const DType dt = n.inputs[0]->type.dtype;
  if (dt != DType::F32 && dt != DType::F64) opError(n, "R must be float32 or float64");
  if (n.inputs[1]->type.dtype != DType::I64) opError(n, "T must be int64");
  for (size_t i = 0; i < 2; ++i)
    if (dm::staticShape(n, i).size() > 1 || n.inputs[i]->type.numel() != 1) opError(n, "R and T must be scalars");
  if ((int64_t)n.outputs.size() != (1 + states) * k) opError(n, "wrong number of outputs");
  if (kindOf(n) == 1) {
    std::string mode = n.attrString("mode", "standard");
    if (mode != "standard" && mode != "nesterov") opError(n, "mode must be standard or nesterov");
  }
  for (int64_t t = 0; t < k; ++t) {
    const Shape& x = dm::staticShape(n, (size_t)(2 + t));
    for (int64_t g = 1; g < 2 + states; ++g) {
      const Value* v = n.inputs[(size_t)(2 + g * k + t)];
      if (dm::staticShape(n, (size_t)(2 + g * k + t)) != x || v->type.dtype != dt)
        opError(n, "the gradient and states of a tensor must have its shape and R's dtype");
    }
    if (n.inputs[(size_t)(2 + t)]->type.dtype != dt) opError(n, "X must have R's dtype");
    for (int64_t o = 0; o <= states; ++o) n.outputs[(size_t)(o * k + t)]->type = TensorType(dt, x);
  }
}

KernelCall lowerOptimizer(LowerCtx& c) {
  const Node& n = c.node;
  const int64_t k = tensorsOf(n);
  const bool adam = kindOf(n) == 2;
  KernelCall call{"optimizer",
                  {kindOf(n), k, (int64_t)n.inputs[0]->type.dtype, paramFromDouble(n.attrFloat("decay_factor", 0.0)),
                   paramFromDouble(n.attrFloat("epsilon", 0.0)),
                   paramFromDouble(n.attrFloat("norm_coefficient", 0.0)),
                   paramFromDouble(n.attrFloat("alpha", adam ? 0.9 : 0.0)),
                   paramFromDouble(n.attrFloat("beta", adam ? 0.999 : 0.0)),
                   paramFromDouble(n.attrFloat("norm_coefficient_post", 0.0)),
                   n.attrString("mode", "standard") == "nesterov" ? 1 : 0}};
  for (int64_t t = 0; t < k; ++t) call.params.push_back(n.inputs[(size_t)(2 + t)]->type.numel());
  return call;
}

OpDef def(const char* type) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::Misc;
  d.minInputs = 5;
  d.maxInputs = 2 + 4 * 64;
  d.maxOutputs = 3 * 64;
  d.infer = inferOptimizer;
  d.lower = lowerOptimizer;
  return d;
}

ATC_REGISTER_OP(def("ai.onnx.preview.training::Adagrad"));
ATC_REGISTER_OP(def("ai.onnx.preview.training::Momentum"));
ATC_REGISTER_OP(def("ai.onnx.preview.training::Adam"));

}  // namespace
}  // namespace atc
