// Unary element-wise ops (math, activations): one table row each, all lowered to the
// generic "eltwise" kernel with an op code and the op's float attributes as scalars.
#include <set>

#include "ops/elementwise/eltwise_common.h"
#include "ops/elementwise/unary_table.h"

namespace atc {
namespace {

using UnaryRow = UnaryOpRow;

const UnaryRow kUnary[] = {
    {"Relu", ATCK_E_RELU},
    {"LeakyRelu", ATCK_E_LEAKYRELU, "alpha", 0.01},
    {"Elu", ATCK_E_ELU, "alpha", 1.0},
    {"Selu", ATCK_E_SELU, "alpha", 1.67326319217681884765625, "gamma", 1.05070102214813232421875},
    {"Celu", ATCK_E_CELU, "alpha", 1.0},
    {"Sigmoid", ATCK_E_SIGMOID},
    {"HardSigmoid", ATCK_E_HARDSIGMOID, "alpha", 0.2, "beta", 0.5},
    {"HardSwish", ATCK_E_HARDSWISH},
    {"Softplus", ATCK_E_SOFTPLUS},
    {"Softsign", ATCK_E_SOFTSIGN},
    {"Tanh", ATCK_E_TANH},
    {"Erf", ATCK_E_ERF},
    {"Exp", ATCK_E_EXP},
    {"Log", ATCK_E_LOG},
    {"Sqrt", ATCK_E_SQRT},
    {"Reciprocal", ATCK_E_RECIPROCAL},
    {"Neg", ATCK_E_NEG},
    {"Abs", ATCK_E_ABS},
    {"Floor", ATCK_E_FLOOR},
    {"Ceil", ATCK_E_CEIL},
    {"Round", ATCK_E_ROUND},
    {"Sign", ATCK_E_SIGN},
    {"Sin", ATCK_E_SIN},
    {"Cos", ATCK_E_COS},
    {"Tan", ATCK_E_TAN},
    {"Asin", ATCK_E_ASIN},
    {"Acos", ATCK_E_ACOS},
    {"Atan", ATCK_E_ATAN},
    {"Sinh", ATCK_E_SINH},
    {"Cosh", ATCK_E_COSH},
    {"Asinh", ATCK_E_ASINH},
    {"Acosh", ATCK_E_ACOSH},
    {"Atanh", ATCK_E_ATANH},
    {"ThresholdedRelu", ATCK_E_THRESHOLDEDRELU, "alpha", 1.0},
    {"Shrink", ATCK_E_SHRINK, "bias", 0.0, "lambd", 0.5},
    {"Not", ATCK_E_NOT, nullptr, 0, nullptr, 0, true},
    {"IsNaN", ATCK_E_ISNAN, nullptr, 0, nullptr, 0, true},
    {"IsInf", ATCK_E_ISINF, nullptr, 0, nullptr, 0, true},
    {"Mish", ATCK_E_MISH},
    {"BitwiseNot", ATCK_E_BITNOT},
};

// Ops whose results stay in a float16-friendly range (activations, sign and rounding ops): their
// kernels may store float16/bfloat16 under a reduced precision mode. Exp, Log, Sqrt, Reciprocal
// and the trigonometric ops keep the model dtype unless the op-info lists them.
bool narrowStorageOk(const std::string& t) {
  static const std::set<std::string> k = {"Relu", "LeakyRelu", "Elu", "Selu", "Celu", "Sigmoid", "HardSigmoid",
                                          "HardSwish", "Softsign", "Tanh", "Erf", "Neg", "Abs", "Floor", "Ceil",
                                          "Round", "Sign", "ThresholdedRelu", "Shrink", "Mish"};
  return k.count(t) != 0;
}

OpDef makeUnary(const UnaryRow& r) {
  OpDef d;
  d.type = r.type;
  d.category = OpCategory::Elementwise;
  if (narrowStorageOk(r.type)) d.storesF16AndBf16();
  bool boolOut = r.boolOut;
  const bool intOnly = r.code == ATCK_E_BITNOT;
  d.infer = [boolOut, intOnly](Graph&, Node& n) {
    if (intOnly && (isFloat(n.inputs[0]->type.dtype) || n.inputs[0]->type.dtype == DType::Bool))
      opError(n, "BitwiseNot needs integer inputs");
    n.outputs[0]->type = n.inputs[0]->type;
    if (boolOut) n.outputs[0]->type.dtype = DType::Bool;
    // _out_dtype (CastFoldingPass): a float32 result rounded to float16/bfloat16 on the store.
    else if (n.hasAttr("_out_dtype")) n.outputs[0]->type.dtype = (DType)n.attrInt("_out_dtype", 1);
  };
  UnaryRow row = r;
  d.lower = [row](LowerCtx& c) {
    EltScalars s;
    if (row.a1) s.alpha = c.node.attrFloat(row.a1, row.d1);
    if (row.a2) {
      double v = c.node.attrFloat(row.a2, row.d2);
      if (row.code == ATCK_E_SELU) s.gamma = v;
      else s.beta = v;
    }
    if (row.code == ATCK_E_ISINF) {
      s.ia = c.node.attrInt("detect_negative", 1);
      s.ib = c.node.attrInt("detect_positive", 1);
    }
    return makeEltwiseCall(c.node, row.code, {c.node.inputs[0]}, c.node.outputs[0]->type, -1, s);
  };
  return d;
}

const bool kRegistered = [] {
  for (const auto& r : kUnary) OpRegistry::instance().add(makeUnary(r));
  return true;
}();

}  // namespace

const UnaryOpRow* findUnaryOp(const std::string& type) {
  for (const auto& r : kUnary)
    if (type == r.type) return &r;
  return nullptr;
}

void unaryAlphaBeta(const UnaryOpRow& row, const Node& n, double* alpha, double* beta) {
  *alpha = row.a1 ? n.attrFloat(row.a1, row.d1) : 0.0;
  *beta = row.a2 ? n.attrFloat(row.a2, row.d2) : 0.0;
}

}  // namespace atc
