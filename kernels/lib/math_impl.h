// Implementation variants of the vector kernels (--op_select_implmode, --op_precision_mode;
// docs/implmode.md). The variant travels in bits 8..15 of one param of each kernel (eltwise:
// compute type, reduce: op, softmax: mode, normalize: kind); bits 0..7 keep the old meaning,
// so variant 0 (high_performance) is the layout every existing .om already has.
//   high_precision    float32 data computed in double (libm), rounded once on store
//   high_performance  the vectorisable float32 approximations of math_fast.h (default)
//   super_performance lower-degree approximations below (faster, ~1e-6..1e-3 error)
//   keep_fp16         intermediate results rounded to float16 (emulates fp16 arithmetic)
#pragma once
#include <stdint.h>

#include "kernels/lib/kernel_abi.h"
#include "kernels/lib/math_fast.h"

enum AtckImplVariant {
  ATCK_IV_PERF = 0,
  ATCK_IV_PREC = 1,
  ATCK_IV_SUPER = 2,
  ATCK_IV_FP16 = 3,
};
#define ATCK_IV_SHIFT 8

static inline ATCK_INLINE int64_t atck_iv_base(int64_t p) { return p & 0xff; }
static inline ATCK_INLINE int64_t atck_iv_of(int64_t p) { return (p >> ATCK_IV_SHIFT) & 0xff; }

// Rounds a float to the nearest float16 value (nearest even) and back.
static inline ATCK_INLINE float atck_r16(float v) { return atck_h2f(atck_f2h(v)); }

// Vectorisable float32 log (~2 ulp): x = 2^e * m, m in [sqrt(1/2), sqrt(2)),
// log m = 2 atanh(s), s = (m - 1) / (m + 1), odd series to s^9.
static inline ATCK_INLINE float atck_logf_deg(float x, int terms) {
  int sub = x < 1.17549435e-38f;
  float xs = sub ? x * 8388608.0f : x;
  uint32_t u = atck_f2bits(xs);
  int32_t e = (int32_t)((u >> 23) & 0xff) - 127 - (sub ? 23 : 0);
  float m = atck_bits2f((u & 0x7fffffu) | 0x3f800000u);
  int big = m > 1.41421356f;
  m = big ? m * 0.5f : m;
  e = big ? e + 1 : e;
  float f = m - 1.0f;
  float s = f / (2.0f + f);
  float s2 = s * s;
  float p;
  if (terms >= 5) {  // series to s^9
    p = 1.0f / 9.0f;
    p = p * s2 + 1.0f / 7.0f;
    p = p * s2 + 1.0f / 5.0f;
    p = p * s2 + 1.0f / 3.0f;
  } else {  // series to s^5
    p = 1.0f / 5.0f;
    p = p * s2 + 1.0f / 3.0f;
  }
  float lm = 2.0f * s + 2.0f * s * s2 * p;
  float ef = (float)e;
  float r = ef * 0.693145751953125f + (lm + ef * 1.42860682030941723e-06f);
  r = x == 0.0f ? -__builtin_inff() : r;
  r = x == __builtin_inff() ? x : r;
  r = x < 0.0f ? __builtin_nanf("") : r;
  return x != x ? x : r;
}
static inline ATCK_INLINE float atck_logf(float x) { return atck_logf_deg(x, 5); }

// ---- super_performance: cheaper, lower-degree approximations ----
static inline ATCK_INLINE float atck_sp_expf(float x) {
  const float magic = 12582912.0f;
  int nan = x != x;
  float xc = nan ? 0.0f : x;
  xc = xc < -87.0f ? -87.0f : xc;
  xc = xc > 88.0f ? 88.0f : xc;
  float t = xc * 1.44269504088896341f + magic;
  float n = t - magic;
  int32_t ni = (int32_t)(atck_f2bits(t) - atck_f2bits(magic));
  float r = xc - n * 0.693147180559945f;  // one-part ln2
  float p = 1.0f / 120.0f;                // degree 5 (high_performance: 7)
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  float res = p * atck_bits2f((uint32_t)(ni + 127) << 23);
  return nan ? x : res;
}
static inline ATCK_INLINE float atck_sp_tanhf(float x) {
  float a = x < 0 ? -x : x;
  a = a > 9.0f ? 9.0f : a;
  float t = 1.0f - 2.0f / (atck_sp_expf(2.0f * a) + 1.0f);
  float r = x < 0 ? -t : t;
  return x != x ? x : r;
}
static inline ATCK_INLINE float atck_sp_sigmoidf(float x) {
  float e = atck_sp_expf(x < 0 ? x : -x);
  float r = 1.0f / (1.0f + e);
  return x < 0 ? e * r : r;
}
// Abramowitz-Stegun 7.1.26 (absolute error ~1.5e-7 plus the cheap exp's).
static inline ATCK_INLINE float atck_sp_erff(float x) {
  float a = x < 0 ? -x : x;
  float t = 1.0f / (1.0f + 0.3275911f * a);
  float p = 1.061405429f;
  p = p * t - 1.453152027f;
  p = p * t + 1.421413741f;
  p = p * t - 0.284496736f;
  p = p * t + 0.254829592f;
  float r = 1.0f - p * t * atck_sp_expf(-a * a);
  r = x < 0 ? -r : r;
  return x != x ? x : r;
}
// tanh form of Gelu (what fast Gelu kernels use).
static inline ATCK_INLINE float atck_sp_geluf(float x) {
  float u = 0.7978845608f * (x + 0.044715f * x * x * x);
  return 0.5f * x * (1.0f + atck_sp_tanhf(u));
}
static inline ATCK_INLINE float atck_sp_logf(float x) { return atck_logf_deg(x, 3); }
