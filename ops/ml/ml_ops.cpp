// Ops of the ai.onnx.ml domain: Binarizer and ArrayFeatureExtractor (kernels/lib/ml.cpp).
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

void inferBinarizer(Graph&, Node& n) {
  const DType dt = n.inputs[0]->type.dtype;
  if (dt != DType::F32 && dt != DType::F64) opError(n, std::string("unsupported dtype ") + dtypeName(dt));
  n.outputs[0]->type = TensorType(dt, dm::staticShape(n, 0));
}

KernelCall lowerBinarizer(LowerCtx& c) {
  const TensorType& t = c.node.inputs[0]->type;
  return KernelCall{"binarizer", {(int64_t)t.dtype, t.numel(), paramFromDouble(c.node.attrFloat("threshold", 0.0))}};
}

// X [..., last] and indices of any shape (flattened): Y [..., count] (a 1-D X gives [1, count]).
void inferFeatureExtractor(Graph&, Node& n) {
  const Shape& x = dm::staticShape(n, 0);
  dm::staticShape(n, 1);
  const DType it = n.inputs[1]->type.dtype;
  if (it != DType::I64 && it != DType::I32) opError(n, "indices must be int64 or int32");
  if (x.empty()) opError(n, "X must have at least one dim");
  Shape out = x.size() == 1 ? Shape{1} : Shape(x.begin(), x.end() - 1);
  out.push_back(n.inputs[1]->type.numel());
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, out);
}

KernelCall lowerFeatureExtractor(LowerCtx& c) {
  const TensorType& x = c.node.inputs[0]->type;
  const int64_t last = x.shape.back();
  return KernelCall{"feature_extract",
                    {(int64_t)dtypeSize(x.dtype), last ? x.numel() / last : 0, last, c.node.inputs[1]->type.numel(),
                     (int64_t)c.node.inputs[1]->type.dtype}};
}

OpDef def(const char* type, int inputs, void (*infer)(Graph&, Node&), KernelCall (*lower)(LowerCtx&)) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::Misc;
  d.minInputs = d.maxInputs = inputs;
  d.infer = infer;
  d.lower = lower;
  return d;
}

ATC_REGISTER_OP(def("ai.onnx.ml::Binarizer", 1, inferBinarizer, lowerBinarizer));
ATC_REGISTER_OP(def("ai.onnx.ml::ArrayFeatureExtractor", 2, inferFeatureExtractor, lowerFeatureExtractor));

}  // namespace
}  // namespace atc
