// LRN (LocalResponseNormalization, opsets 1-13): kernel "lrn" (kernels/lib/lrn.cpp). float32
// input [N, C, d1...]; attributes size (required, >= 1), alpha, beta, bias. Seen in AlexNet,
// GoogLeNet v1 and ZFNet exports.
#include "ir/op_registry.h"

namespace atc {
namespace {

void inferLrn(Graph&, Node& n) {
  const TensorType& x = n.inputs[0]->type;
  if (x.dtype != DType::F32) opError(n, "the input must be float32");
  if (!x.shapeKnown || x.rank() < 3) opError(n, "the input must be [N, C, d1...] (rank 3 or more)");
  if (!n.hasAttr("size") || n.attrInt("size", 0) < 1) opError(n, "attribute size (>= 1) is required");
  n.outputs[0]->type = x;
}

KernelCall lowerLrn(LowerCtx& c) {
  const Node& n = c.node;
  const Shape& s = n.inputs[0]->type.shape;
  int64_t inner = 1;
  for (size_t i = 2; i < s.size(); ++i) inner *= s[i];
  KernelCall kc;
  kc.kernel = "lrn";
  kc.params = {s[0], s[1], inner, n.attrInt("size", 1), paramFromDouble(n.attrFloat("alpha", 1e-4)),
               paramFromDouble(n.attrFloat("beta", 0.75)), paramFromDouble(n.attrFloat("bias", 1.0))};
  return kc;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "LRN";
  d.category = OpCategory::Reduce;
  d.infer = inferLrn;
  d.lower = lowerLrn;
  return d;
}());

}  // namespace
}  // namespace atc
