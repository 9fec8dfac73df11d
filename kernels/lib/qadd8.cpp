// Kernel "qadd8": the element-wise Add of two 8-bit quantized tensors of one shape, requantized
// (QuantizedAdd, ops/quant/quantized_add.cpp; made by QdqConvFoldPass from DequantizeLinear,
// DequantizeLinear -> Add [-> Relu] -> QuantizeLinear). The arithmetic is the Q/DQ chain's,
// step for step in float32, so results equal the float path's bit for bit:
//   a = (float(A) - a_zp) * a_scale, b = (float(B) - b_zp) * b_scale, s = a + b [, max(s, 0)],
//   Y = saturate(rint(s / y_scale) + y_zp)
// Params (never renumber): [0] elements, [1] A dtype, [2] B dtype, [3] Y dtype (ATCK_I8 /
// ATCK_U8), [4] relu, [5] a_scale, [6] a_zp, [7] b_scale, [8] b_zp, [9] y_scale (doubles as
// bits), [10] y_zp. bufs: the op's 8 inputs (A at 0, B at 3; the scales and zero points are
// read from the params), then Y at 8.
#include "kernels/lib/quant_common.h"

ATC_KERNEL(qadd8)

namespace {
const int64_t kQaTaskElems = 16384;

ATCK_INLINE float qa_ld(const void* p, int64_t dt, int64_t i) {
  return dt == ATCK_I8 ? (float)((const int8_t*)p)[i] : (float)((const uint8_t*)p)[i];
}
// Output element i as a float holding the quantized value.
ATCK_INLINE float qa_value(const void* A, int64_t adt, const void* B, int64_t bdt, int64_t i, float as, float az,
                           float bs, float bz, float ys, float yz, bool relu, float qlo, float qhi) {
#ifdef __clang__
#pragma clang fp contract(off)  // each product rounded, as DequantizeLinear writes it: no FMA
#endif
  float s = (qa_ld(A, adt, i) - az) * as + (qa_ld(B, bdt, i) - bz) * bs;
  if (relu) s = s < 0.0f ? 0.0f : s;
  return atck_q_value(s / ys, yz, qlo, qhi);
}
}  // namespace

int64_t atck_qadd8_ntasks(const int64_t* P) { return (P[0] + kQaTaskElems - 1) / kQaTaskElems; }

void atck_qadd8_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t lo = begin * kQaTaskElems, hi = end * kQaTaskElems < P[0] ? end * kQaTaskElems : P[0];
  const int64_t adt = P[1], bdt = P[2], ydt = P[3];
  const bool relu = P[4] != 0;
  const float as = (float)atck_d(P[5]), az = (float)P[6], bs = (float)atck_d(P[7]), bz = (float)P[8];
  const float ys = (float)atck_d(P[9]), yz = (float)P[10];
  const float qlo = ydt == ATCK_I8 ? -128.0f : 0.0f, qhi = ydt == ATCK_I8 ? 127.0f : 255.0f;
  const void* A = bufs[0];
  const void* B = bufs[3];
  void* Y = bufs[8];
  if (ydt == ATCK_I8) {
    int8_t* __restrict y = (int8_t*)Y;
    for (int64_t i = lo; i < hi; ++i)
      y[i] = (int8_t)(int)qa_value(A, adt, B, bdt, i, as, az, bs, bz, ys, yz, relu, qlo, qhi);
  } else {
    uint8_t* __restrict y = (uint8_t*)Y;
    for (int64_t i = lo; i < hi; ++i)
      y[i] = (uint8_t)(int)qa_value(A, adt, B, bdt, i, as, az, bs, bz, ys, yz, relu, qlo, qhi);
  }
}
