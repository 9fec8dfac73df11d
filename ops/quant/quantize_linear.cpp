// QuantizeLinear, DequantizeLinear (opsets 10 to 23: per tensor, per axis, blocked) and
// DynamicQuantizeLinear: kernels "quant" and "dynquant" (kernels/lib/quant.cpp). The element
// types: int8, uint8, int16, uint16 (and int32 for dequantize), the float8 formats (E4M3FN,
// E4M3FNUZ, E5M2, E5M2FNUZ; zero point 0), float4 E2M1, int4, uint4, int2, uint2 (ir/dtype.h).
#include "ops/quant/quant_util.h"
#include "support/strings.h"

namespace atc {
namespace {

struct QuantLayout {
  int64_t kind = 0, axis = 0, axLen = 1, inner = 1, block = 0;
};

// Per tensor, per axis or blocked, from the scale's shape (input 1) and the attributes.
QuantLayout quantLayout(const Node& n) {
  const Value* x = n.inputs[0];
  const Value* s = n.inputs[1];
  if (!x->type.shapeKnown || !s->type.shapeKnown) opError(n, "inputs need static shapes");
  const Shape& xs = x->type.shape;
  const Shape& ss = s->type.shape;
  QuantLayout L;
  L.block = n.attrInt("block_size", 0);
  if (L.block < 0) opError(n, "block_size must be >= 0");
  if (!isQuantScaleType(s->type.dtype))
    opError(n, "the scale must be float32, float16 or bfloat16, not " + std::string(dtypeName(s->type.dtype)));
  const Value* z = quantInput(n, 2);
  const bool zOk = !z || (z->type.shapeKnown && (z->type.shape == ss || (z->type.numel() == 1 && s->type.numel() == 1)));
  if (!zOk) opError(n, "the zero point's shape differs from the scale's");
  if (s->type.numel() == 1 && L.block == 0) return L;
  const int64_t rank = (int64_t)xs.size();
  if (rank == 0) opError(n, "a scalar input takes one scale");
  L.axis = normalizeAxis(n.attrInt("axis", 1), rank, n);
  L.axLen = xs[L.axis];
  L.inner = 1;
  for (int64_t i = L.axis + 1; i < rank; ++i) L.inner *= xs[i];
  if (L.block == 0) {
    if (ss.size() != 1 || ss[0] != L.axLen)
      opError(n, "the scale must hold 1 value or one per element of axis " + std::to_string(L.axis) + " (" +
                     std::to_string(L.axLen) + "), not shape " + ("[" + joinInts(ss) + "]"));
    L.kind = 1;
    return L;
  }
  Shape want = xs;
  want[L.axis] = (L.axLen + L.block - 1) / L.block;
  if (ss != want)
    opError(n, "blocked quantization (block_size " + std::to_string(L.block) + ") needs a scale of shape " +
                   ("[" + joinInts(want) + "]") + ", not " + ("[" + joinInts(ss) + "]"));
  L.kind = 2;
  return L;
}

KernelCall quantCall(const Node& n, int64_t mode) {
  QuantLayout L = quantLayout(n);
  const Value* z = quantInput(n, 2);
  std::vector<int64_t> P(QP_COUNT, 0);
  P[QP_MODE] = mode;
  P[QP_XDT] = (int64_t)n.inputs[0]->type.dtype;
  P[QP_YDT] = (int64_t)n.outputs[0]->type.dtype;
  P[QP_SDT] = (int64_t)n.inputs[1]->type.dtype;
  P[QP_ZDT] = z ? (int64_t)z->type.dtype : 0;
  P[QP_TOTAL] = n.inputs[0]->type.numel();
  P[QP_AXLEN] = L.axLen;
  P[QP_INNER] = L.inner;
  P[QP_KIND] = L.kind;
  P[QP_BLOCK] = L.block;
  P[QP_YBUF] = (int64_t)n.inputs.size();
  P[QP_SAT] = n.attrInt("saturate", 1) ? 1 : 0;
  return makeCall("quant", P);
}

bool isQuantizedType(DType t) {
  return t == DType::I8 || t == DType::U8 || t == DType::I16 || t == DType::U16 ||
         (isCastOnly(t) && t != DType::F8E8M0);
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "DequantizeLinear";
  d.minInputs = 2;
  d.maxInputs = 3;
  d.infer = [](Graph&, Node& n) {
    const DType xt = n.inputs[0]->type.dtype;
    if (!isQuantizedType(xt) && xt != DType::I32)
      opError(n, "input x must be an 8-, 16-, 4- or 2-bit integer, float8, float4 or int32, not " +
                     std::string(dtypeName(xt)));
    checkQuantZeroPoint(n, 2, xt, "x");
    quantLayout(n);
    n.outputs[0]->type = TensorType(n.inputs[1]->type.dtype, n.inputs[0]->type.shape);
  };
  d.lower = [](LowerCtx& c) { return quantCall(c.node, 0); };
  return d;
}());

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "QuantizeLinear";
  d.minInputs = 2;
  d.maxInputs = 3;
  d.infer = [](Graph&, Node& n) {
    const DType xt = n.inputs[0]->type.dtype;
    if (!isQuantScaleType(xt) && xt != DType::I32)
      opError(n, "input x must be float32, float16, bfloat16 or int32, not " + std::string(dtypeName(xt)));
    const Value* z = quantInput(n, 2);
    DType yt = DType::U8;
    if (z) yt = z->type.dtype;
    else if (n.attrInt("output_dtype", 0) != 0) yt = dtypeFromOnnxCode(n.attrInt("output_dtype", 0));
    if (z && n.attrInt("output_dtype", 0) != 0 && dtypeFromOnnxCode(n.attrInt("output_dtype", 0)) != yt)
      opError(n, "output_dtype differs from the zero point's type");
    if (!isQuantizedType(yt))
      opError(n, "the output type must be an 8-, 16-, 4- or 2-bit integer, float8 or float4 type, not " +
                     std::string(yt == DType::Undefined ? "that code" : dtypeName(yt)));
    quantLayout(n);
    n.outputs[0]->type = TensorType(yt, n.inputs[0]->type.shape);
  };
  d.lower = [](LowerCtx& c) { return quantCall(c.node, 1); };
  return d;
}());

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "DynamicQuantizeLinear";
  d.minOutputs = d.maxOutputs = 3;
  d.infer = [](Graph&, Node& n) {
    const TensorType& t = n.inputs[0]->type;
    if (t.dtype != DType::F32) opError(n, "input x must be float32, not " + std::string(dtypeName(t.dtype)));
    if (!t.shapeKnown) opError(n, "input x needs a static shape");
    n.outputs[0]->type = TensorType(DType::U8, t.shape);
    if (n.outputs[1]) n.outputs[1]->type = TensorType(DType::F32, {});
    if (n.outputs[2]) n.outputs[2]->type = TensorType(DType::U8, {});
  };
  d.lower = [](LowerCtx& c) {
    for (Value* o : c.node.outputs)
      if (!o) opError(c.node, "all three outputs are needed");
    return makeCall("dynquant", std::vector<int64_t>(1, c.node.inputs[0]->type.numel()));
  };
  return d;
}());

}  // namespace
}  // namespace atc
