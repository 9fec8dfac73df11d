// Explicit 8-lane float32 vectors (GCC/Clang vector extensions; 256-bit registers on AVX2
// and AVX-512 targets) for the loops LLVM does not vectorise by itself: reductions (max,
// sum) are not reassociated without fast-math, so a loop that computes exp and sums it stays
// scalar. The row softmax below is shared by the softmax and attention kernels.
// atck_exp8 is atck_expf (math_fast.h) lane by lane: the same operations in the same order,
// so both give bit-identical results.
#pragma once
#include <stdint.h>

#include "kernels/lib/kernel_abi.h"
#include "kernels/lib/math_fast.h"

#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

typedef float atck_f8 __attribute__((vector_size(32)));
typedef float atck_f8u __attribute__((vector_size(32), aligned(4)));
typedef int32_t atck_i8 __attribute__((vector_size(32)));

static inline ATCK_INLINE atck_f8 atck_ld8(const float* p) { return *(const atck_f8u*)p; }
static inline ATCK_INLINE void atck_st8(float* p, atck_f8 v) { *(atck_f8u*)p = v; }
static inline ATCK_INLINE atck_f8 atck_splat8(float f) {
  atck_f8 v = {f, f, f, f, f, f, f, f};
  return v;
}
static inline ATCK_INLINE atck_i8 atck_splat8i(int32_t f) {
  atck_i8 v = {f, f, f, f, f, f, f, f};
  return v;
}
static inline ATCK_INLINE atck_f8 atck_max8(atck_f8 a, atck_f8 b) { return a > b ? a : b; }

static inline ATCK_INLINE float atck_hmax8(atck_f8 v) {
  float m = v[0];
  for (int i = 1; i < 8; ++i) m = v[i] > m ? v[i] : m;
  return m;
}
static inline ATCK_INLINE float atck_hsum8(atck_f8 v) {
  return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7]));
}

// 16-lane vectors: one zmm register on 512-bit targets, two ymm on 256-bit ones (LLVM splits
// them), so code written with them is right for both families.
typedef float atck_v16f __attribute__((vector_size(64)));
typedef float atck_v16fu __attribute__((vector_size(64), aligned(4)));
typedef int32_t atck_v16i __attribute__((vector_size(64)));
static inline ATCK_INLINE atck_v16f atck_ld16(const float* p) { return *(const atck_v16fu*)p; }
static inline ATCK_INLINE void atck_st16(float* p, atck_v16f v) { *(atck_v16fu*)p = v; }
static inline ATCK_INLINE atck_v16f atck_splat16(float f) {
  atck_v16f v = {f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f};
  return v;
}

// atck_expf lane by lane, for a vector type VF (its int32 twin VI, its splat S).
template <class VF, class VI, VF (*S)(float)>
static inline ATCK_INLINE VF atck_exp_lanes(VF x) {
  const VF magic = S(12582912.0f);
  VI nan = x != x;
  VF xc = nan ? S(0.0f) : x;
  xc = xc < S(-104.0f) ? S(-104.0f) : xc;
  xc = xc > S(89.0f) ? S(89.0f) : xc;
  VF t = xc * S(1.44269504088896341f) + magic;
  VF n = t - magic;
  VI ni = (VI)t - (VI)magic;
  VF r = xc - n * S(0.693145751953125f);
  r = r - n * S(1.42860682030941723e-06f);
  VF p = S(1.0f / 5040.0f);
  p = p * r + S(1.0f / 720.0f);
  p = p * r + S(1.0f / 120.0f);
  p = p * r + S(1.0f / 24.0f);
  p = p * r + S(1.0f / 6.0f);
  p = p * r + S(0.5f);
  p = p * r + S(1.0f);
  p = p * r + S(1.0f);
  VI n1 = ni >> 1, n2 = ni - n1;
  VF s1 = (VF)((n1 + 127) << 23);
  VF s2 = (VF)((n2 + 127) << 23);
  VF res = p * s1 * s2;
  return nan ? x : res;
}

static inline ATCK_INLINE atck_f8 atck_exp8(atck_f8 x) { return atck_exp_lanes<atck_f8, atck_i8, atck_splat8>(x); }
static inline ATCK_INLINE atck_v16f atck_exp16(atck_v16f x) {
  return atck_exp_lanes<atck_v16f, atck_v16i, atck_splat16>(x);
}

// atck_expnegf (math_fast.h, x <= 0 or NaN) lane by lane: the same operations in the same order.
template <class VF, class VI, VF (*S)(float)>
static inline ATCK_INLINE VF atck_expneg_lanes(VF x) {
  const VF magic = S(12582912.0f);
  VF xc = x < S(-88.0f) ? S(-88.0f) : x;
  VF t = xc * S(1.44269504088896341f) + magic;
  VF n = t - magic;
  VI ni = (VI)t - (VI)magic;
  VF r = xc - n * S(0.693145751953125f);
  r = r - n * S(1.42860682030941723e-06f);
  VF p = S(ATCK_EXPNEG_C6);
  p = p * r + S(ATCK_EXPNEG_C5);
  p = p * r + S(ATCK_EXPNEG_C4);
  p = p * r + S(ATCK_EXPNEG_C3);
  p = p * r + S(ATCK_EXPNEG_C2);
  p = p * r + S(1.0f);
  p = p * r + S(1.0f);
  return p * (VF)((ni + 127) << 23);
}
static inline ATCK_INLINE atck_f8 atck_expneg8(atck_f8 x) {
  return atck_expneg_lanes<atck_f8, atck_i8, atck_splat8>(x);
}
static inline ATCK_INLINE atck_v16f atck_expneg16(atck_v16f x) {
  return atck_expneg_lanes<atck_v16f, atck_v16i, atck_splat16>(x);
}

// Softmax of the float32 row x[0..n) into y (y may be x). Max and sum in 16 lanes (one zmm on
// 512-bit targets, two ymm otherwise), exp(x - max) by atck_expneg (x - max <= 0: one scale, a
// degree-6 polynomial; probabilities under FLT_MIN relative to the largest flush to 0);
// +-inf and NaN behave as in the scalar kernels (max ignores NaN, whose exp then makes the
// sum, and so the whole row, NaN). 8 lanes and atck_expf before: ViT-B/16's attention
// softmax took a quarter of its attention time.
static inline ATCK_INLINE float atck_hmax16(atck_v16f v) {
  float m = v[0];
  for (int i = 1; i < 16; ++i) m = v[i] > m ? v[i] : m;
  return m;
}
static inline ATCK_INLINE float atck_hsum16(atck_v16f v) {
  float s = 0.0f;
  for (int i = 0; i < 8; ++i) s += v[i] + v[i + 8];
  return s;
}
static inline ATCK_INLINE void atck_softmax_row(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  float m;
  if (n >= 16) {
    atck_v16f vm = atck_ld16(x);
    for (i = 16; i + 16 <= n; i += 16) {
      const atck_v16f v = atck_ld16(x + i);
      vm = vm > v ? vm : v;
    }
    m = atck_hmax16(vm);
  } else {
    m = x[0];
    i = 1;
  }
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  if (!(m - m == 0.0f)) m = m != m ? m : (m > 0 ? m : 0.0f);
  const atck_v16f vmx = atck_splat16(m);
  atck_v16f vs = atck_splat16(0.0f);
  for (i = 0; i + 16 <= n; i += 16) {
    atck_v16f e = atck_expneg16(atck_ld16(x + i) - vmx);
    atck_st16(y + i, e);
    vs += e;
  }
  float s = atck_hsum16(vs);
  for (; i < n; ++i) {
    float e = atck_expnegf(x[i] - m);
    y[i] = e;
    s += e;
  }
  const atck_v16f vinv = atck_splat16(1.0f / s);
  for (i = 0; i + 16 <= n; i += 16) atck_st16(y + i, atck_ld16(y + i) * vinv);
  for (; i < n; ++i) y[i] = y[i] * (1.0f / s);
}
