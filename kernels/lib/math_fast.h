// Vectorisable float32 approximations of the transcendental functions that hot element-wise
// kernels need (exp in softmax, tanh/sigmoid/erf in activations). They use only arithmetic,
// comparisons and selects, so LLVM vectorises loops calling them (AVX-512: 16 lanes), which
// libm calls would prevent. Accuracy (checked in tests/unit/kernels_eltwise_test.cpp
// against double-precision libm):
//   atck_expf    ~1 ulp (range reduction by ln2 in two parts + degree-7 Taylor polynomial)
//   atck_expm1f  ~1-2 ulp (degree-10 Taylor for |x| < 0.7, expf(x) - 1 elsewhere)
//   atck_tanhf   ~2 ulp (expm1 form: no cancellation near 0)
//   atck_sigmoidf ~2 ulp, atck_siluf ~3.1 ulp (exp(-|x|) by atck_expnegf, degree-6 minimax;
//                 0 below -88)
//   atck_erff    <= 6.4 ulp, relative error <= 3.9e-7 (rational x * P(x^2) / Q(x^2) on
//                 |x| <= 3.92, +-1 beyond)
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

// exp(x) for x <= 0 (or NaN), the logistic functions' exponential: exp(-|x|) never overflows, so
// one scale factor 2^n suffices, and a minimax polynomial of degree 6 (fitted to exp on
// [-ln2/2, ln2/2] in relative error, fixed 1 + r + r^2 (...): 0.67 ulp evaluated in float32 with
// FMA, as good as atck_expf's degree-7 Taylor) replaces the Taylor one. Below x = -88 the result
// is 0 (2^-127 encodes as 0; from about -87.3 down the product rounds into the subnormals): the
// logistic function then underflows like a flush-to-zero FPU, an absolute error under FLT_MIN.
// Measured, SiLU over 16 lanes (Zen 5, AVX-512): 0.16 ns per element against 0.25-0.27 with
// atck_expf; the SiLU epilogues were about a fifth of EfficientNet-B0's time.
#define ATCK_EXPNEG_C6 1.3814381e-3f
#define ATCK_EXPNEG_C5 8.3687464e-3f
#define ATCK_EXPNEG_C4 4.1668393e-2f
#define ATCK_EXPNEG_C3 1.6666520e-1f
#define ATCK_EXPNEG_C2 4.9999994e-1f
static inline ATCK_INLINE float atck_expnegf(float x) {
  const float magic = 12582912.0f;
  float xc = x < -88.0f ? -88.0f : x;  // NaN passes
  float t = xc * 1.44269504088896341f + magic;
  float n = t - magic;
  int32_t ni = (int32_t)(atck_f2bits(t) - atck_f2bits(magic));
  float r = xc - n * 0.693145751953125f;
  r = r - n * 1.42860682030941723e-06f;
  float p = ATCK_EXPNEG_C6;
  p = p * r + ATCK_EXPNEG_C5;
  p = p * r + ATCK_EXPNEG_C4;
  p = p * r + ATCK_EXPNEG_C3;
  p = p * r + ATCK_EXPNEG_C2;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  return p * atck_bits2f((uint32_t)(ni + 127) << 23);
}

// sigmoid(x) = e r for x < 0, r otherwise, e = exp(-|x|), r = 1 / (1 + e); SiLU x * sigmoid(x).
// The vector forms (cube_act_lanes) do the same operations in the same order, so fused
// epilogues and element-wise kernels agree bit for bit. (SiLU as (x e or x) / (1 + e), one
// multiply fewer, sent LLVM into scalar code in the bfloat16-output conv epilogue: EfficientNet-
// B0's bfloat16 build ran 1.9x its float32 time.)
static inline ATCK_INLINE float atck_sigmoidf(float x) {
  const int neg = x < 0;
  const float e = atck_expnegf(neg ? x : -x);
  const float r = 1.0f / (1.0f + e);
  return neg ? e * r : r;
}
static inline ATCK_INLINE float atck_siluf(float x) { return x * atck_sigmoidf(x); }

static inline ATCK_INLINE float atck_erff(float x) {
  // erf(x) = x * P(x^2) / Q(x^2) on |x| <= 3.92 (erf rounds to +-1 in float beyond), a
  // rational fit in relative error whose float32 coefficients were then tuned ulp by ulp
  // against the float32 evaluation (max 5.4 ulp with FMA, 6.4 without, near |x| = 3.2).
  // 10 multiply-adds and one division: about 3x cheaper than a polynomial + exp split at
  // |x| = 1, which made erf the slowest op of BERT's GELU.
  float xc = x > 3.92f ? 3.92f : x;
  xc = xc < -3.92f ? -3.92f : xc;  // NaN passes through both
  float t = xc * xc;
  float p = 2.049843260e-06f;
  p = p * t + 2.848136937e-04f;
  p = p * t + 3.764127148e-03f;
  p = p * t + 5.274392664e-02f;
  p = p * t + 1.903766841e-01f;
  p = p * t + 1.128379107e+00f;
  float q = 3.808558540e-05f;
  q = q * t + 1.162109547e-03f;
  q = q * t + 1.496623084e-02f;
  q = q * t + 1.140960231e-01f;
  q = q * t + 5.020497441e-01f;
  q = q * t + 1.0f;
  float r = xc * p / q;
  // Saturate exactly: with FMA contraction the fit gives 0.99999994 at |x| = 3.92 (erf(3.92)
  // rounds to 1 in float), so erf(+-inf) was not +-1 on FMA targets (and where the compiler
  // folds the multiply-adds as fused, as clang does for constant arguments).
  r = xc >= 3.92f ? 1.0f : r;
  r = xc <= -3.92f ? -1.0f : r;
  r = r > 1.0f ? 1.0f : r;
  return r < -1.0f ? -1.0f : r;
}
