// Binary element-wise ops with numpy broadcasting: arithmetic, comparisons, logic,
// PRelu and BitShift. All lower to the generic "eltwise" kernel.
#include <cmath>

#include "ops/elementwise/eltwise_common.h"

namespace atc {
namespace {

enum class OutKind { SameAsA, Bool };

struct BinaryRow {
  const char* type;
  int64_t code;
  OutKind out;
  bool sameDtypes;  // ONNX requires A and B of one type
};

const BinaryRow kBinary[] = {
    {"Add", ATCK_E_ADD, OutKind::SameAsA, true},
    {"Sub", ATCK_E_SUB, OutKind::SameAsA, true},
    {"Mul", ATCK_E_MUL, OutKind::SameAsA, true},
    {"Div", ATCK_E_DIV, OutKind::SameAsA, true},
    {"Pow", ATCK_E_POW, OutKind::SameAsA, false},
    {"Mod", ATCK_E_MOD, OutKind::SameAsA, true},
    {"PRelu", ATCK_E_PRELU, OutKind::SameAsA, true},
    {"BitShift", ATCK_E_BITSHIFT_L, OutKind::SameAsA, true},
    {"Equal", ATCK_E_EQUAL, OutKind::Bool, true},
    {"Less", ATCK_E_LESS, OutKind::Bool, true},
    {"Greater", ATCK_E_GREATER, OutKind::Bool, true},
    {"LessOrEqual", ATCK_E_LESSEQ, OutKind::Bool, true},
    {"GreaterOrEqual", ATCK_E_GREATEREQ, OutKind::Bool, true},
    {"And", ATCK_E_AND, OutKind::Bool, true},
    {"Or", ATCK_E_OR, OutKind::Bool, true},
    {"Xor", ATCK_E_XOR, OutKind::Bool, true},
    {"BitwiseAnd", ATCK_E_BITAND, OutKind::SameAsA, true},
    {"BitwiseOr", ATCK_E_BITOR, OutKind::SameAsA, true},
    {"BitwiseXor", ATCK_E_BITXOR, OutKind::SameAsA, true},
};

// True when v is a constant whose every element equals x.
bool constantAll(const Value* v, double x) {
  if (!v || !v->constant) return false;
  const Tensor& t = *v->constant;
  int64_t n = t.type.numel();
  if (n <= 0) return false;
  for (int64_t i = 0; i < n; ++i)
    if (t.floatAt(i) != x) return false;
  return true;
}

OpDef makeBinary(const BinaryRow& r) {
  OpDef d;
  d.type = r.type;
  d.category = OpCategory::Elementwise;
  // Add, Sub, Mul, PRelu: float16/bfloat16 storage under reduced precision modes (computed in
  // float32); Div, Pow and Mod keep the model dtype unless the op-info lists them.
  if (r.code == ATCK_E_ADD || r.code == ATCK_E_SUB || r.code == ATCK_E_MUL || r.code == ATCK_E_PRELU)
    d.storesF16AndBf16();
  d.minInputs = d.maxInputs = 2;
  BinaryRow row = r;
  d.infer = [row](Graph&, Node& n) {
    if (row.sameDtypes) checkSameDtypes(n, 0, 2);
    if (row.code == ATCK_E_BITSHIFT_L) {
      std::string dir = n.attrString("direction", "");
      if (dir != "LEFT" && dir != "RIGHT") opError(n, "direction must be LEFT or RIGHT");
      if (isSigned(n.inputs[0]->type.dtype) || isFloat(n.inputs[0]->type.dtype))
        opError(n, "BitShift needs unsigned integer inputs");
    }
    if ((row.code == ATCK_E_BITAND || row.code == ATCK_E_BITOR || row.code == ATCK_E_BITXOR) &&
        (isFloat(n.inputs[0]->type.dtype) || n.inputs[0]->type.dtype == DType::Bool))
      opError(n, n.type + " needs integer inputs");
    if (row.code == ATCK_E_MOD && isFloat(n.inputs[0]->type.dtype) && n.attrInt("fmod", 0) == 0)
      opError(n, "fmod must be 1 for floating-point inputs");
    // _out_dtype (CastFoldingPass): a float32 result rounded to float16/bfloat16 on the store.
    const DType od = row.out == OutKind::Bool ? DType::Bool
                     : n.hasAttr("_out_dtype")  ? (DType)n.attrInt("_out_dtype", 1)
                                                : DType::Undefined;
    inferBroadcast(n, od);
  };
  d.lower = [row](LowerCtx& c) {
    const Node& n = c.node;
    const Value* a = n.inputs[0];
    const Value* b = n.inputs[1];
    const TensorType& out = n.outputs[0]->type;
    EltScalars s;
    int64_t code = row.code;
    int64_t ct = eltComputeType(a->type.dtype);
    if (code == ATCK_E_MOD) s.ia = n.attrInt("fmod", 0);
    if (code == ATCK_E_BITSHIFT_L && n.attrString("direction", "") == "RIGHT")
      code = ATCK_E_BITSHIFT_R;
    if (code == ATCK_E_POW) {
      if (isFloat(b->type.dtype) && !isFloat(a->type.dtype)) ct = eltComputeType(DType::F64);
      // x^2 (LayerNorm/variance patterns): a multiply instead of a pow call.
      if (isFloat(a->type.dtype) && a->type.shape == out.shape && constantAll(b, 2.0))
        return makeEltwiseCall(n, ATCK_E_SQUARE, {a}, out, ct);
      if (isFloat(a->type.dtype) && a->type.shape == out.shape && constantAll(b, 0.5))
        return makeEltwiseCall(c.node, ATCK_E_SQRT, {a}, out, ct);
      if (a->type.shape == out.shape && constantAll(b, 1.0))
        return makeEltwiseCall(c.node, ATCK_E_COPY, {a}, out, ct);
    }
    return makeEltwiseCall(c.node, code, {a, b}, out, ct, s);
  };
  return d;
}

const bool kRegistered = [] {
  for (const auto& r : kBinary) OpRegistry::instance().add(makeBinary(r));
  return true;
}();

}  // namespace
}  // namespace atc
