// Gelu (ONNX opset 20; made by GeluFusionPass): approximate = "none" (erf form) or "tanh".
// Lowered to the fused_eltwise kernel.
#include "ops/elementwise/eltwise_common.h"
#include "ops/fused/fused_program.h"
#include "ops/impl_variant.h"

namespace atc {

// Appends the Gelu of register x to a program; returns the result register.
int64_t appendGelu(FeProgram& p, int64_t x, bool tanhForm) {
  if (!tanhForm) return p.add(ATCK_E_GELU, x);
  // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
  int64_t x2 = p.add(ATCK_E_MUL, x, x);
  int64_t x3 = p.add(ATCK_E_MUL, x2, x);
  int64_t c1 = p.constant(0.044715);
  int64_t t = p.add(ATCK_E_MUL, x3, c1);
  int64_t u = p.add(ATCK_E_ADD, x, t);
  int64_t c2 = p.constant(0.7978845608028654);
  int64_t v = p.add(ATCK_E_MUL, u, c2);
  int64_t th = p.add(ATCK_E_TANH, v);
  int64_t one = p.constant(1.0);
  int64_t w = p.add(ATCK_E_ADD, th, one);
  int64_t xw = p.add(ATCK_E_MUL, x, w);
  int64_t half = p.constant(0.5);
  return p.add(ATCK_E_MUL, xw, half);
}

namespace {

bool geluTanh(const Node& n) {
  std::string a = n.attrString("approximate", "none");
  if (a != "none" && a != "tanh") opError(n, "approximate must be none or tanh, not " + a);
  return a == "tanh";
}

void inferGelu(Graph& g, Node& n) {
  geluTanh(n);
  if (!isFloat(n.inputs[0]->type.dtype)) opError(n, "Gelu needs a float input");
  inferSameAsInput0(g, n);
}

KernelCall lowerGelu(LowerCtx& c) {
  const Node& n = c.node;
  // A non-default implementation mode (docs/implmode.md): the eltwise kernel's variants.
  if (!geluTanh(n) && implVariantOf(n) != ATCK_IV_PERF)
    return makeEltwiseCall(n, ATCK_E_GELU, {n.inputs[0]}, n.outputs[0]->type);
  if (n.inputs[0]->type.dtype != DType::F32) {
    if (geluTanh(n)) opError(n, "Gelu tanh form supports float32 only");
    return makeEltwiseCall(n, ATCK_E_GELU, {n.inputs[0]}, n.outputs[0]->type);  // erf form
  }
  FeProgram p;
  p.nin = 1;
  appendGelu(p, 0, geluTanh(n));
  return makeFusedEltwiseCall(n, p, n.outputs[0]->type);
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "Gelu";
  d.category = OpCategory::Elementwise;
  d.infer = inferGelu;
  d.lower = lowerGelu;
  return d;
}());

}  // namespace
}  // namespace atc
