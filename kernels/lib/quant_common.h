// Helpers shared by the integer product kernels (qgemm.cpp, qconv.cpp): operand zero points
// and the output stage (int32 or requantized int8/uint8). Params: quant_params.h.
#pragma once
#include "kernels/lib/kernel_abi.h"
#include "kernels/lib/math_dtype.h"
#include "kernels/lib/math_ops.h"
#include "kernels/lib/quant_params.h"

// Loads an 8-bit (or 32-bit, for tests of wider zero points) integer element as int32.
static inline ATCK_INLINE int32_t atck_q_ld(const void* p, int64_t dt, int64_t i) {
  switch (dt) {
    case ATCK_I8: return ((const int8_t*)p)[i];
    case ATCK_U8: return ((const uint8_t*)p)[i];
    case ATCK_I32: return ((const int32_t*)p)[i];
    default: return 0;
  }
}

// QuantizeLinear's rounding of v = x / scale: rint(v) + zp, clamped to [lo, hi]; NaN becomes
// the zero point (saturate(NaN) is undefined in ONNX; ONNX Runtime gives the zero point too).
static inline ATCK_INLINE float atck_q_value(float v, float zp, float lo, float hi) {
  float r = atck_m_rint(v) + zp;
  r = r < lo ? lo : r;
  r = r > hi ? hi : r;
  return r == r ? r : zp;
}

// Zero point of an operand at index i of its per-element dimension (0 when absent).
static inline ATCK_INLINE int32_t atck_q_zp(const int64_t* W, void** bufs, int64_t i) {
  if (W[QW_ZBUF] < 0) return 0;
  return atck_q_ld(bufs[W[QW_ZBUF]], W[QW_ZDT], W[QW_PER] ? i : 0);
}

static inline ATCK_INLINE float atck_q_scale(const int64_t* W, void** bufs, int64_t i) {
  return atck_ld<float>(bufs[W[QW_SBUF]], W[QW_SDT], W[QW_PER] ? i : 0);
}

// Output stage of `n` accumulators acc[j] (j = 0..n-1) stored at y[o + j]. mode QO_REQUANT:
// multiplier = a_scale * b_scale[j or fixed] / y_scale, computed in float32 like ONNX's
// reference (a_scale * b_scale first), then rint(acc * multiplier) + y_zp, saturated.
struct AtckQOut {
  int64_t mode, ydt;
  float yscale, yzp, lo, hi;
};

static inline ATCK_INLINE AtckQOut atck_qout(int64_t mode, int64_t ydt, int64_t zbuf, int64_t zdt,
                                            int64_t sbuf, int64_t sdt, void** bufs) {
  AtckQOut q;
  q.mode = mode;
  q.ydt = ydt;
  q.yscale = mode == QO_REQUANT ? atck_ld<float>(bufs[sbuf], sdt, 0) : 1.0f;
  q.yzp = mode == QO_REQUANT && zbuf >= 0 ? (float)atck_q_ld(bufs[zbuf], zdt, 0) : 0.0f;
  q.lo = ydt == ATCK_I8 ? -128.0f : 0.0f;
  q.hi = ydt == ATCK_I8 ? 127.0f : 255.0f;
  return q;
}

static inline ATCK_INLINE void atck_qstore(const AtckQOut& q, void* y, int64_t i, int32_t acc, float mult) {
  if (q.mode == QO_INT32) {
    ((int32_t*)y)[i] = acc;
    return;
  }
  float r = atck_m_rint((float)acc * mult) + q.yzp;
  r = r < q.lo ? q.lo : r;
  r = r > q.hi ? q.hi : r;
  if (!(r == r)) r = q.yzp;
  if (q.ydt == ATCK_I8) ((int8_t*)y)[i] = (int8_t)r;
  else ((uint8_t*)y)[i] = (uint8_t)r;
}
