// Shared checks and kernel-parameter helpers of the quantized ops (ops/quant): how a scale /
// zero-point pair is laid out (one value, or one per element of a dimension) and the operand
// words of the integer product kernels (kernels/lib/quant_params.h).
#pragma once
#include <string>

#include "ir/op_registry.h"
#include "kernels/lib/quant_params.h"

namespace atc {

inline const Value* quantInput(const Node& n, size_t i) {
  return i < n.inputs.size() ? n.inputs[i] : nullptr;
}

inline bool isQuant8(DType t) { return t == DType::I8 || t == DType::U8; }

inline bool isQuantScaleType(DType t) { return t == DType::F32 || t == DType::F16 || t == DType::BF16; }

// Checks that the scale (input si, required) and zero point (input zi, optional) of an
// operand hold one value or `perLen` values (perLen <= 0: one value only), with the same
// element count, and returns true for one value per element. `what` names the operand.
inline bool quantParamsPerElement(const Node& n, size_t si, size_t zi, int64_t perLen, const std::string& what) {
  const Value* s = quantInput(n, si);
  const Value* z = quantInput(n, zi);
  int64_t cnt = -1;
  for (const Value* v : {s, z}) {
    if (!v) continue;
    if (!v->type.shapeKnown) opError(n, what + " scale and zero point need static shapes");
    const int64_t k = v->type.numel();
    if (cnt >= 0 && k != cnt)
      opError(n, what + " scale and zero point differ in size (" + std::to_string(cnt) + " and " +
                     std::to_string(k) + " values)");
    cnt = k;
  }
  if (s && !isQuantScaleType(s->type.dtype))
    opError(n, what + " scale must be float32, float16 or bfloat16, not " + dtypeName(s->type.dtype));
  if (cnt == 1 || cnt < 0) return false;
  if (perLen > 0 && cnt == perLen) return true;
  opError(n, what + " scale and zero point must hold 1 value" +
                 (perLen > 0 ? " or " + std::to_string(perLen) : std::string()) + ", not " +
                 std::to_string(cnt));
}

// Operand words {zero point buffer, dtype, per element, scale buffer, dtype}.
inline void quantOperandWords(const Node& n, size_t si, size_t zi, bool per, int64_t* W) {
  const Value* s = quantInput(n, si);
  const Value* z = quantInput(n, zi);
  W[QW_ZBUF] = z ? (int64_t)zi : -1;
  W[QW_ZDT] = z ? (int64_t)z->type.dtype : 0;
  W[QW_PER] = per ? 1 : 0;
  W[QW_SBUF] = s ? (int64_t)si : -1;
  W[QW_SDT] = s ? (int64_t)s->type.dtype : 0;
}

// The zero point of an 8-bit operand must have the operand's dtype.
inline void checkQuantZeroPoint(const Node& n, size_t zi, DType dt, const std::string& what) {
  const Value* z = quantInput(n, zi);
  if (z && z->type.dtype != dt)
    opError(n, what + " zero point is " + dtypeName(z->type.dtype) + " but the operand is " + dtypeName(dt));
}

inline void checkQuant8(const Node& n, size_t i, const std::string& what) {
  const Value* v = quantInput(n, i);
  if (!v) opError(n, what + " is required");
  if (!isQuant8(v->type.dtype))
    opError(n, what + " must be int8 or uint8, not " + std::string(dtypeName(v->type.dtype)));
  if (!v->type.shapeKnown) opError(n, what + " has an unknown shape");
}

// QLinearMatMul / QLinearConv: inputs 1, 2 (first operand's scale and zero point), 4, 5
// (second operand's) and 6, 7 (output's) must be present.
inline void requireQuantParams(const Node& n) {
  for (size_t i : {1, 2, 4, 5, 6, 7})
    if (!quantInput(n, i)) opError(n, "input " + std::to_string(i) + " (a scale or zero point) is required");
}

// Input index meaning "no such input" (the integer ops have zero points but no scales).
constexpr size_t kNoScale = ~size_t(0);

// MatMulInteger / ConvInteger: the zero points of operands a (input 2) and b (input 3), one
// value or perA / perB values. Fills the operand words when aw / bw are given.
inline void integerParams(const Node& n, const char* a, const char* b, int64_t perA, int64_t perB, int64_t* aw = nullptr,
                          int64_t* bw = nullptr) {
  checkQuantZeroPoint(n, 2, n.inputs[0]->type.dtype, a);
  checkQuantZeroPoint(n, 3, n.inputs[1]->type.dtype, b);
  const bool pa = quantParamsPerElement(n, kNoScale, 2, perA, a);
  const bool pb = quantParamsPerElement(n, kNoScale, 3, perB, b);
  if (aw) quantOperandWords(n, kNoScale, 2, pa, aw);
  if (bw) quantOperandWords(n, kNoScale, 3, pb, bw);
}

// QLinearMatMul / QLinearConv: operand A (inputs 0-2), B (3-5) and the output's scale and zero
// point (6, 7). Checks them and returns the output dtype (y_zero_point's); fills the operand
// words and the output words {zero point buffer, dtype, scale buffer, dtype} when given.
inline DType qlinearParams(const Node& n, const char* a, const char* b, int64_t perA, int64_t perB, int64_t* aw = nullptr,
                           int64_t* bw = nullptr, int64_t* yw = nullptr) {
  requireQuantParams(n);
  checkQuantZeroPoint(n, 2, n.inputs[0]->type.dtype, a);
  checkQuantZeroPoint(n, 5, n.inputs[3]->type.dtype, b);
  const bool pa = quantParamsPerElement(n, 1, 2, perA, a);
  const bool pb = quantParamsPerElement(n, 4, 5, perB, b);
  quantParamsPerElement(n, 6, 7, 0, "y");
  const DType yt = n.inputs[7]->type.dtype;
  if (!isQuant8(yt)) opError(n, "y_zero_point must be int8 or uint8, not " + std::string(dtypeName(yt)));
  if (aw) quantOperandWords(n, 1, 2, pa, aw);
  if (bw) quantOperandWords(n, 4, 5, pb, bw);
  if (yw) {
    yw[0] = 7;
    yw[1] = (int64_t)yt;
    yw[2] = 6;
    yw[3] = (int64_t)n.inputs[6]->type.dtype;
  }
  return yt;
}

inline KernelCall makeCall(const char* kernel, std::vector<int64_t> params) {
  KernelCall kc;
  kc.kernel = kernel;
  kc.params = std::move(params);
  return kc;
}

}  // namespace atc
