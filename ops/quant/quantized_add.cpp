// QuantizedAdd (internal op, made by QdqConvFoldPass from DequantizeLinear(A), DequantizeLinear(B)
// -> Add [-> Relu] -> QuantizeLinear of a QDQ model, passes/quant/qdq_datamove_fold.cpp): the
// Add of two 8-bit tensors of one shape, requantized, kernel "qadd8" (kernels/lib/qadd8.cpp).
//   inputs: A (uint8 / int8), a_scale (float32 scalar), a_zero_point (A's type, scalar), B,
//           b_scale, b_zero_point, y_scale, y_zero_point (uint8 / int8 scalar: Y's type); all
//           but A and B constants
//   attribute: activation ("Relu" or absent)
//   Y = saturate(rint(act((A - a_zp) * a_scale + (B - b_zp) * b_scale) / y_scale) + y_zp),
//       in float32 as the Q/DQ chain computes it
#include "ops/quant/quant_util.h"

namespace atc {
namespace {

void checkQuantizedAdd(const Node& n) {
  const TensorType& a = n.inputs[0]->type;
  const TensorType& b = n.inputs[3]->type;
  if (!isQuant8(a.dtype) || !isQuant8(b.dtype)) opError(n, "A and B must be uint8 or int8");
  if (!a.isStatic() || !(a.shape == b.shape) || !b.isStatic()) opError(n, "A and B must have one static shape");
  const char* names[] = {"a_scale", "a_zero_point", "", "b_scale", "b_zero_point", "y_scale", "y_zero_point"};
  for (size_t i : {(size_t)1, (size_t)2, (size_t)4, (size_t)5, (size_t)6, (size_t)7}) {
    const Value* v = n.inputs[i];
    if (!v || !v->isConstant() || v->type.numel() != 1)
      opError(n, std::string(names[i - 1]) + " must be a constant holding one value");
    const bool scale = i == 1 || i == 4 || i == 6;
    if (scale ? v->type.dtype != DType::F32 : !isQuant8(v->type.dtype))
      opError(n, std::string(names[i - 1]) + (scale ? " must be float32" : " must be uint8 or int8"));
  }
  if (n.inputs[2]->type.dtype != a.dtype || n.inputs[5]->type.dtype != b.dtype)
    opError(n, "a zero point's type differs from its operand's");
  const std::string act = n.attrString("activation", "");
  if (!act.empty() && act != "Relu") opError(n, "activation must be Relu or absent, not " + act);
}

KernelCall lowerQuantizedAdd(LowerCtx& c) {
  const Node& n = c.node;
  checkQuantizedAdd(n);
  auto f = [&](size_t i) { return paramFromDouble(n.inputs[i]->constant->floatAt(0)); };
  auto z = [&](size_t i) { return n.inputs[i]->constant->intAt(0); };
  std::vector<int64_t> P = {n.inputs[0]->type.numel(),
                            (int64_t)n.inputs[0]->type.dtype,
                            (int64_t)n.inputs[3]->type.dtype,
                            (int64_t)n.inputs[7]->type.dtype,
                            n.attrString("activation", "") == "Relu" ? 1 : 0,
                            f(1),
                            z(2),
                            f(4),
                            z(5),
                            f(6),
                            z(7)};
  return makeCall("qadd8", P);
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "QuantizedAdd";
  d.internal = true;
  d.minInputs = d.maxInputs = 8;
  d.infer = [](Graph&, Node& n) {
    checkQuantizedAdd(n);
    n.outputs[0]->type = TensorType(n.inputs[7]->type.dtype, n.inputs[0]->type.shape);
  };
  d.lower = lowerQuantizedAdd;
  return d;
}());

}  // namespace
}  // namespace atc
