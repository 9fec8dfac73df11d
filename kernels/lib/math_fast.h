// Vectorisable float32 approximations of the transcendental functions that hot element-wise
// kernels need (exp in softmax, tanh/sigmoid/erf in activations). They use only arithmetic,
// comparisons and selects, so LLVM vectorises loops calling them (AVX-512: 16 lanes), which
// libm calls would prevent. Accuracy (checked in tests/unit/kernels_eltwise_test.cpp
// against double-precision libm):
//   atck_expf    ~1 ulp (range reduction by ln2 in two parts + degree-7 Taylor polynomial)
//   atck_expm1f  ~1-2 ulp (degree-10 Taylor for |x| < 0.7, expf(x) - 1 elsewhere)
//   atck_tanhf   ~2 ulp (expm1 form: no cancellation near 0)
//   atck_sigmoidf ~2 ulp
//   atck_erff    ~2 ulp (|x| <= 1: odd polynomial; else 1 - exp(-x^2) * P(x), fitted
//                 by least squares in relative error on [1, 4]; erf(x) = 1 in float beyond)
// Everything else (sin, log, pow...) uses <math.h>: accuracy is all that matters there.
#pragma once
#include <stdint.h>
#include <string.h>

#include "kernels/lib/kernel_abi.h"

static inline ATCK_INLINE float atck_bits2f(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline ATCK_INLINE uint32_t atck_f2bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static inline ATCK_INLINE float atck_expf(float x) {
  const float magic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  int nan = x != x;
  float xc = nan ? 0.0f : x;
  xc = xc < -104.0f ? -104.0f : xc;
  xc = xc > 89.0f ? 89.0f : xc;
  float t = xc * 1.44269504088896341f + magic;
  float n = t - magic;
  int32_t ni = (int32_t)(atck_f2bits(t) - atck_f2bits(magic));
  float r = xc - n * 0.693145751953125f;  // ln2 high part (exact product for |n| < 2^10)
  r = r - n * 1.42860682030941723e-06f;   // ln2 low part
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // 2^n as two factors so that n in [-151, 129] stays representable (subnormals, inf).
  int32_t n1 = ni >> 1, n2 = ni - n1;
  float s1 = atck_bits2f((uint32_t)(n1 + 127) << 23);
  float s2 = atck_bits2f((uint32_t)(n2 + 127) << 23);
  float res = p * s1 * s2;
  return nan ? x : res;
}

static inline ATCK_INLINE float atck_expm1f(float x) {
  float ax = x < 0 ? -x : x;
  // Taylor series of expm1 (relative error < 1e-9 for |x| < 0.7).
  float p = 1.0f / 39916800.0f;
  p = p * x + 1.0f / 3628800.0f;
  p = p * x + 1.0f / 362880.0f;
  p = p * x + 1.0f / 40320.0f;
  p = p * x + 1.0f / 5040.0f;
  p = p * x + 1.0f / 720.0f;
  p = p * x + 1.0f / 120.0f;
  p = p * x + 1.0f / 24.0f;
  p = p * x + 1.0f / 6.0f;
  p = p * x + 0.5f;
  p = p * x * x + x;
  float e = atck_expf(x) - 1.0f;
  return ax < 0.7f ? p : e;
}

static inline ATCK_INLINE float atck_tanhf(float x) {
  float ax = x < 0 ? -x : x;
  float a = ax > 9.5f ? 9.5f : ax;  // tanh(9.5) rounds to 1 in float
  float e = atck_expm1f(2.0f * a);
  float t = e / (e + 2.0f);
  float r = x < 0 ? -t : t;
  return x != x ? x : r;
}

static inline ATCK_INLINE float atck_sigmoidf(float x) {
  float e = atck_expf(x < 0 ? x : -x);  // exp(-|x|): never overflows
  float r = 1.0f / (1.0f + e);
  return x < 0 ? e * r : r;
}

static inline ATCK_INLINE float atck_erff(float x) {
  float ax = x < 0 ? -x : x;
  float x2 = x * x;
  // |x| <= 1: erf(x) = x * P(x^2)
  float p = -9.689733684e-06f;
  p = p * x2 + 1.127473502e-04f;
  p = p * x2 + -8.485438451e-04f;
  p = p * x2 + 5.221138658e-03f;
  p = p * x2 + -2.686547550e-02f;
  p = p * x2 + 1.128378344e-01f;
  p = p * x2 + -3.761263855e-01f;
  p = p * x2 + 1.128379167e+00f;
  float small = x * p;
  // 1 < |x| <= 4: erf(|x|) = 1 - exp(-x^2) * Q(t), t = (|x| - 2.5) / 1.5
  float a = ax > 4.0f ? 4.0f : (ax < 1.0f ? 1.0f : ax);
  float t = (a - 2.5f) * (1.0f / 1.5f);
  float q = 1.244564899e-05f;
  q = q * t + -3.665494840e-05f;
  q = q * t + 5.902049455e-05f;
  q = q * t + -1.446941095e-04f;
  q = q * t + 4.099893440e-04f;
  q = q * t + -1.016381326e-03f;
  q = q * t + 2.404004378e-03f;
  q = q * t + -5.567650117e-03f;
  q = q * t + 1.248917580e-02f;
  q = q * t + -2.700566980e-02f;
  q = q * t + 5.611051653e-02f;
  q = q * t + -1.115210074e-01f;
  q = q * t + 2.108063637e-01f;
  float big = 1.0f - atck_expf(-a * a) * q;
  big = ax > 4.0f ? 1.0f : big;
  big = x < 0 ? -big : big;
  float r = ax <= 1.0f ? small : big;
  return x != x ? x : r;
}
