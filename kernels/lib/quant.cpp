// Kernels "quant" (QuantizeLinear / DequantizeLinear) and "dynquant" (DynamicQuantizeLinear).
// Params: kernels/lib/quant_params.h. The arithmetic follows ONNX's reference: dequantize
// subtracts the zero point in float32 and multiplies by the scale; quantize divides by the
// scale in float32, rounds to nearest (ties to even), adds the zero point and saturates.
#include "kernels/lib/cast_lp.h"
#include "kernels/lib/quant_common.h"

ATC_KERNEL(quant)
ATC_KERNEL(dynquant)

// Saturation bounds of the integer output dtypes of QuantizeLinear.
static inline ATCK_INLINE void atck_q_range(int64_t dt, float* lo, float* hi) {
  switch (dt) {
    case ATCK_I4: *lo = -8.0f; *hi = 7.0f; return;
    case ATCK_U4: *lo = 0.0f; *hi = 15.0f; return;
    case ATCK_I2: *lo = -2.0f; *hi = 1.0f; return;
    case ATCK_U2: *lo = 0.0f; *hi = 3.0f; return;
    case ATCK_I8: *lo = -128.0f; *hi = 127.0f; return;
    case ATCK_U8: *lo = 0.0f; *hi = 255.0f; return;
    case ATCK_I16: *lo = -32768.0f; *hi = 32767.0f; return;
    case ATCK_U16: *lo = 0.0f; *hi = 65535.0f; return;
    default: *lo = -2147483648.0f; *hi = 2147483520.0f; return;  // int32: largest float below 2^31
  }
}

// Element i of a quantized operand as float: the cast-only formats (cast_lp.h) decoded, the
// rest through atck_ld.
static inline ATCK_INLINE float quant_ld(const void* p, int64_t dt, int64_t i) {
  if (dt < ATCK_F8E4M3FN) return atck_ld<float>(p, dt, i);
  const uint8_t b = ((const uint8_t*)p)[i];
  if (dt == ATCK_I4 || dt == ATCK_I2) return (float)(int8_t)b;
  if (dt == ATCK_U4 || dt == ATCK_U2) return (float)b;
  return atck_lp_decode(dt, b);
}

// Elements [lo, hi) that share one scale and zero point (index sidx).
static inline ATCK_INLINE void quant_run(const int64_t* P, void** bufs, int64_t lo, int64_t hi, int64_t sidx) {
  const void* x = bufs[0];
  const void* zpb = P[QP_ZDT] ? bufs[2] : nullptr;
  void* y = bufs[P[QP_YBUF]];
  const float s = atck_ld<float>(bufs[1], P[QP_SDT], sidx);
  const float zp = zpb ? quant_ld(zpb, P[QP_ZDT], sidx) : 0.0f;
  const int64_t xdt = P[QP_XDT], ydt = P[QP_YDT];
  if (P[QP_MODE] == 0) {
    for (int64_t i = lo; i < hi; ++i) atck_st<float>(y, ydt, i, (quant_ld(x, xdt, i) - zp) * s);
    return;
  }
  if ((ydt >= ATCK_F8E4M3FN && ydt <= ATCK_F8E5M2FNUZ) || ydt == ATCK_F4E2M1) {
    // float8 / float4: x / scale + zero point rounded to nearest even into the format.
    for (int64_t i = lo; i < hi; ++i)
      ((uint8_t*)y)[i] = atck_lp_encode_mf(ydt, atck_ld<float>(x, xdt, i) / s + zp, (int)P[QP_SAT]);
    return;
  }
  float qlo, qhi;
  atck_q_range(ydt, &qlo, &qhi);
  if (ydt >= ATCK_I4) {  // int4 / uint4 / int2 / uint2: one byte each
    for (int64_t i = lo; i < hi; ++i)
      ((int8_t*)y)[i] = (int8_t)(int)atck_q_value(atck_ld<float>(x, xdt, i) / s, zp, qlo, qhi);
    return;
  }
  // A zero scale divides to +-inf (saturates) or NaN (0 / 0: the zero point), as ONNX's
  // reference does with numpy.
  for (int64_t i = lo; i < hi; ++i)
    atck_st<float>(y, ydt, i, atck_q_value(atck_ld<float>(x, xdt, i) / s, zp, qlo, qhi));
}

int64_t atck_quant_ntasks(const int64_t* P) { return (P[QP_TOTAL] + QP_TASK_ELEMS - 1) / QP_TASK_ELEMS; }

void atck_quant_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t lo = begin * QP_TASK_ELEMS, hi = end * QP_TASK_ELEMS;
  if (hi > P[QP_TOTAL]) hi = P[QP_TOTAL];
  if (P[QP_KIND] == 0) {
    if (lo < hi) quant_run(P, bufs, lo, hi, 0);
    return;
  }
  // Per axis / blocked: runs of INNER elements share a scale.
  const int64_t A = P[QP_AXLEN], I = P[QP_INNER], B = P[QP_BLOCK];
  const int64_t nb = P[QP_KIND] == 2 ? (A + B - 1) / B : A;
  for (int64_t i = lo; i < hi;) {
    const int64_t row = i / I, o = row / A, a = row % A;
    int64_t e = (row + 1) * I;
    if (e > hi) e = hi;
    const int64_t sidx = P[QP_KIND] == 1 ? a : (o * nb + a / B) * I + (i - row * I);
    if (P[QP_KIND] == 1) {
      quant_run(P, bufs, i, e, sidx);
      i = e;
    } else {
      // Blocked: the scale tensor has x's shape with the axis divided by BLOCK, so inner
      // elements have their own scales.
      quant_run(P, bufs, i, i + 1, sidx);
      i += 1;
    }
  }
}

// DynamicQuantizeLinear (ONNX): range = [min(0, min x), max(0, max x)], scale = range / 255,
// zero point = saturate(rint(-min / scale)), y = saturate(rint(x / scale) + zero point).
int64_t atck_dynquant_ntasks(const int64_t*) { return 1; }

void atck_dynquant_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  if (begin >= end) return;
  const float* x = (const float*)bufs[0];
  uint8_t* y = (uint8_t*)bufs[1];
  const int64_t n = P[DQP_TOTAL];
  float mn = 0.0f, mx = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    mn = v < mn ? v : mn;  // NaN never wins a comparison: ignored
    mx = v > mx ? v : mx;
  }
  const float scale = (mx - mn) / 255.0f;
  const float zpf = scale > 0.0f ? atck_q_value((0.0f - mn / scale), 0.0f, 0.0f, 255.0f) : 0.0f;
  *(float*)bufs[2] = scale;
  *(uint8_t*)bufs[3] = (uint8_t)zpf;
  if (!(scale > 0.0f)) {  // all zeros (or inf/NaN range): every value is the zero point
    for (int64_t i = 0; i < n; ++i) y[i] = (uint8_t)zpf;
    return;
  }
  for (int64_t i = 0; i < n; ++i) y[i] = (uint8_t)atck_q_value(x[i] / scale, zpf, 0.0f, 255.0f);
}
