// Scalar math on the kernels' compute types (float, double, int64_t, uint64_t): overloads
// that pick the fast vectorisable float32 versions (math_fast.h) where they exist and libm
// elsewhere, plus the per-element op tables shared by the element-wise, reduction and
// normalisation kernels.
#pragma once
#include <math.h>

#include "kernels/lib/math_dtype.h"
#include "kernels/lib/math_eltwise_codes.h"
#include "kernels/lib/math_fast.h"
#include "kernels/lib/math_impl.h"

template <class C>
struct AtckIsFloat {
  static constexpr bool value = (C)0.5 != (C)0;
};

static inline ATCK_INLINE float atck_m_exp(float x) { return atck_expf(x); }
static inline ATCK_INLINE double atck_m_exp(double x) { return exp(x); }
static inline ATCK_INLINE float atck_m_expm1(float x) { return atck_expm1f(x); }
static inline ATCK_INLINE double atck_m_expm1(double x) { return expm1(x); }
static inline ATCK_INLINE float atck_m_tanh(float x) { return atck_tanhf(x); }
static inline ATCK_INLINE double atck_m_tanh(double x) { return tanh(x); }
static inline ATCK_INLINE float atck_m_erf(float x) { return atck_erff(x); }
static inline ATCK_INLINE double atck_m_erf(double x) { return erf(x); }
static inline ATCK_INLINE float atck_m_sigmoid(float x) { return atck_sigmoidf(x); }
static inline ATCK_INLINE double atck_m_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static inline ATCK_INLINE float atck_m_silu(float x) { return atck_siluf(x); }
static inline ATCK_INLINE double atck_m_silu(double x) { return x * atck_m_sigmoid(x); }
static inline ATCK_INLINE float atck_m_log(float x) { return atck_logf(x); }
static inline ATCK_INLINE double atck_m_log(double x) { return log(x); }
static inline ATCK_INLINE float atck_m_log1p(float x) { return log1pf(x); }
static inline ATCK_INLINE double atck_m_log1p(double x) { return log1p(x); }
static inline ATCK_INLINE float atck_m_sqrt(float x) { return sqrtf(x); }
static inline ATCK_INLINE double atck_m_sqrt(double x) { return sqrt(x); }
static inline ATCK_INLINE float atck_m_floor(float x) { return floorf(x); }
static inline ATCK_INLINE double atck_m_floor(double x) { return floor(x); }
static inline ATCK_INLINE float atck_m_ceil(float x) { return ceilf(x); }
static inline ATCK_INLINE double atck_m_ceil(double x) { return ceil(x); }
static inline ATCK_INLINE float atck_m_rint(float x) { return rintf(x); }
static inline ATCK_INLINE double atck_m_rint(double x) { return rint(x); }
static inline ATCK_INLINE float atck_m_pow(float x, float y) { return powf(x, y); }
static inline ATCK_INLINE double atck_m_pow(double x, double y) { return pow(x, y); }
static inline ATCK_INLINE float atck_m_fmod(float x, float y) { return fmodf(x, y); }
static inline ATCK_INLINE double atck_m_fmod(double x, double y) { return fmod(x, y); }

// Rarely hot functions: computed through double libm for every compute type.
static inline ATCK_INLINE double atck_m_slow(int64_t op, double x) {
  switch (op) {
    case ATCK_E_SIN: return sin(x);
    case ATCK_E_COS: return cos(x);
    case ATCK_E_TAN: return tan(x);
    case ATCK_E_ASIN: return asin(x);
    case ATCK_E_ACOS: return acos(x);
    case ATCK_E_ATAN: return atan(x);
    case ATCK_E_SINH: return sinh(x);
    case ATCK_E_COSH: return cosh(x);
    case ATCK_E_ASINH: return asinh(x);
    case ATCK_E_ACOSH: return acosh(x);
    case ATCK_E_ATANH: return atanh(x);
    default: return x;
  }
}

struct AtckEltPrm {
  double a, b, g;
  int64_t ia, ib;
};

// Unary op on a floating compute type.
template <class C>
static inline ATCK_INLINE C atck_unary_f(int64_t op, C x, const AtckEltPrm& p) {
  const C zero = (C)0, one = (C)1;
  switch (op) {
    case ATCK_E_COPY: return x;
    case ATCK_E_RELU: return x < zero ? zero : x;
    case ATCK_E_LEAKYRELU: return x < zero ? (C)p.a * x : x;
    case ATCK_E_ELU: return x < zero ? (C)p.a * atck_m_expm1(x) : x;
    case ATCK_E_SELU: return x <= zero ? (C)p.g * ((C)p.a * atck_m_expm1(x)) : (C)p.g * x;
    case ATCK_E_CELU: {
      C neg = (C)p.a * atck_m_expm1(x / (C)p.a);
      return x < zero ? neg : x;
    }
    case ATCK_E_CLIP: {
      C v = x < (C)p.a ? (C)p.a : x;
      return v > (C)p.b ? (C)p.b : v;
    }
    case ATCK_E_SIGMOID: return atck_m_sigmoid(x);
    case ATCK_E_SILU: return atck_m_silu(x);
    case ATCK_E_HARDSIGMOID: {
      C v = (C)p.a * x + (C)p.b;
      return v < zero ? zero : (v > one ? one : v);
    }
    case ATCK_E_HARDSWISH: {
      C v = x * (C)(1.0 / 6.0) + (C)0.5;
      v = v < zero ? zero : (v > one ? one : v);
      return x * v;
    }
    case ATCK_E_SOFTPLUS: {
      C ax = x < zero ? -x : x;
      C m = x > zero ? x : zero;
      return m + atck_m_log1p(atck_m_exp(-ax));
    }
    case ATCK_E_SOFTSIGN: return x / (one + (x < zero ? -x : x));
    case ATCK_E_TANH: return atck_m_tanh(x);
    case ATCK_E_ERF: return atck_m_erf(x);
    case ATCK_E_GELU: return x * (C)0.5 * (one + atck_m_erf(x * (C)0.70710678118654752440));
    case ATCK_E_EXP: return atck_m_exp(x);
    case ATCK_E_LOG: return atck_m_log(x);
    case ATCK_E_SQRT: return atck_m_sqrt(x);
    case ATCK_E_RECIPROCAL: return one / x;
    case ATCK_E_NEG: return -x;
    case ATCK_E_ABS: return x < zero ? -x : (x == zero ? zero : x);
    case ATCK_E_FLOOR: return atck_m_floor(x);
    case ATCK_E_CEIL: return atck_m_ceil(x);
    case ATCK_E_ROUND: return atck_m_rint(x);
    case ATCK_E_SIGN: return x > zero ? one : (x < zero ? -one : (x == x ? zero : x));
    case ATCK_E_THRESHOLDEDRELU: return x > (C)p.a ? x : zero;
    case ATCK_E_SHRINK:
      return x < -(C)p.b ? x + (C)p.a : (x > (C)p.b ? x - (C)p.a : zero);
    case ATCK_E_NOT: return x == zero ? one : zero;
    case ATCK_E_ISNAN: return x != x ? one : zero;
    case ATCK_E_ISINF: {
      C inf = (C)__builtin_inf();
      return ((p.ia && x == -inf) || (p.ib && x == inf)) ? one : zero;
    }
    case ATCK_E_SQUARE: return x * x;
    case ATCK_E_MISH: {
      C ax = x < zero ? -x : x;
      C sp = (x > zero ? x : zero) + atck_m_log1p(atck_m_exp(-ax));
      return x * atck_m_tanh(sp);
    }
    case ATCK_E_BITNOT: return zero;  // integers only (inference refuses floats)
    default: return (C)atck_m_slow(op, (double)x);
  }
}

// Unary op on an integer compute type (int64_t or uint64_t; arithmetic wraps).
template <class C>
static inline ATCK_INLINE C atck_unary_i(int64_t op, C x, const AtckEltPrm& p) {
  const C zero = (C)0, one = (C)1;
  const bool sgn = (C)-1 < (C)0;
  switch (op) {
    case ATCK_E_COPY:
    case ATCK_E_FLOOR:
    case ATCK_E_CEIL:
    case ATCK_E_ROUND: return x;
    case ATCK_E_RELU: return sgn && x < zero ? zero : x;
    case ATCK_E_CLIP: {
      C v = x < (C)p.ia ? (C)p.ia : x;
      return v > (C)p.ib ? (C)p.ib : v;
    }
    case ATCK_E_NEG: return (C)(0 - (uint64_t)x);
    case ATCK_E_ABS: return sgn && x < zero ? (C)(0 - (uint64_t)x) : x;
    case ATCK_E_SIGN: return x > zero ? one : (sgn && x < zero ? (C)-1 : zero);
    case ATCK_E_NOT: return x == zero ? one : zero;
    case ATCK_E_ISNAN:
    case ATCK_E_ISINF: return zero;
    case ATCK_E_SQUARE: return (C)((uint64_t)x * (uint64_t)x);
    case ATCK_E_RECIPROCAL: return x == zero ? zero : one / x;
    case ATCK_E_BITNOT: return (C)~(uint64_t)x;
    default: {
      double r = (double)atck_unary_f<double>(op, (double)x, p);
      return atck_to_int<C>(r, sgn ? -9223372036854775808.0 : 0.0,
                            sgn ? 9223372036854774784.0 : 18446744073709549568.0);
    }
  }
}

template <class C>
static inline ATCK_INLINE C atck_unary(int64_t op, C x, const AtckEltPrm& p) {
  if constexpr (AtckIsFloat<C>::value) return atck_unary_f<C>(op, x, p);
  else return atck_unary_i<C>(op, x, p);
}

template <class C>
static inline ATCK_INLINE C atck_ipow(C a, C b) {
  if ((C)-1 < (C)0 && b < (C)0) {
    if (a == (C)1) return (C)1;
    if (a == (C)-1) return ((uint64_t)b & 1u) ? (C)-1 : (C)1;
    return (C)0;
  }
  uint64_t r = 1, base = (uint64_t)a, e = (uint64_t)b;
  while (e) {
    if (e & 1u) r *= base;
    base *= base;
    e >>= 1;
  }
  return (C)r;
}

// Binary op (also the step of the n-ary folds Sum/Max/Min/Mean).
template <class C>
static inline ATCK_INLINE C atck_binary(int64_t op, C a, C b, const AtckEltPrm& p) {
  const C zero = (C)0, one = (C)1;
  constexpr bool fl = AtckIsFloat<C>::value;
  const bool sgn = (C)-1 < (C)0;
  switch (op) {
    case ATCK_E_ADD:
    case ATCK_E_MEAN:
      if constexpr (fl) return a + b;
      else return (C)((uint64_t)a + (uint64_t)b);
    case ATCK_E_SUB:
      if constexpr (fl) return a - b;
      else return (C)((uint64_t)a - (uint64_t)b);
    case ATCK_E_MUL:
      if constexpr (fl) return a * b;
      else return (C)((uint64_t)a * (uint64_t)b);
    case ATCK_E_DIV:
      if constexpr (fl) return a / b;
      else {
        if (b == zero) return zero;
        if (sgn && b == (C)-1) return (C)(0 - (uint64_t)a);
        return a / b;
      }
    case ATCK_E_POW:
      if constexpr (fl) return atck_m_pow(a, b);
      else return atck_ipow<C>(a, b);
    case ATCK_E_MAX: return (a != a || a > b) ? a : b;
    case ATCK_E_MIN: return (a != a || a < b) ? a : b;
    case ATCK_E_MOD: {
      C r;
      if constexpr (fl) r = atck_m_fmod(a, b);
      else {
        if (b == zero) return zero;
        if (sgn && b == (C)-1) return zero;
        r = a % b;
      }
      if (!p.ia && r != zero && ((r < zero) != (b < zero))) r = r + b;
      return r;
    }
    case ATCK_E_EQUAL: return a == b ? one : zero;
    case ATCK_E_LESS: return a < b ? one : zero;
    case ATCK_E_GREATER: return a > b ? one : zero;
    case ATCK_E_LESSEQ: return a <= b ? one : zero;
    case ATCK_E_GREATEREQ: return a >= b ? one : zero;
    case ATCK_E_AND: return (a != zero && b != zero) ? one : zero;
    case ATCK_E_OR: return (a != zero || b != zero) ? one : zero;
    case ATCK_E_XOR: return ((a != zero) != (b != zero)) ? one : zero;
    case ATCK_E_BITSHIFT_L:
      if constexpr (fl) return zero;
      else return (uint64_t)b >= 64 ? zero : (C)((uint64_t)a << (uint64_t)b);
    case ATCK_E_BITSHIFT_R:
      if constexpr (fl) return zero;
      else return (uint64_t)b >= 64 ? zero : (C)((uint64_t)a >> (uint64_t)b);
    case ATCK_E_PRELU: return a < zero ? a * b : a;
    case ATCK_E_BITAND:
      if constexpr (fl) return zero;
      else return (C)((uint64_t)a & (uint64_t)b);
    case ATCK_E_BITOR:
      if constexpr (fl) return zero;
      else return (C)((uint64_t)a | (uint64_t)b);
    case ATCK_E_BITXOR:
      if constexpr (fl) return zero;
      else return (C)((uint64_t)a ^ (uint64_t)b);
    default: return a;
  }
}

// ---- implementation variants of the unary ops (math_impl.h) ----

// Ops whose kernel has more than one implementation (keep in sync with
// passes/implmode/implmode_select.cpp).
static inline ATCK_INLINE bool atck_unary_has_variants(int64_t op) {
  return op == ATCK_E_EXP || op == ATCK_E_LOG || op == ATCK_E_TANH || op == ATCK_E_SIGMOID ||
         op == ATCK_E_ERF || op == ATCK_E_GELU;
}

// super_performance: cheaper approximations for the ops above, the default elsewhere.
static inline ATCK_INLINE float atck_unary_sp(int64_t op, float x, const AtckEltPrm& p) {
  switch (op) {
    case ATCK_E_EXP: return atck_sp_expf(x);
    case ATCK_E_LOG: return atck_sp_logf(x);
    case ATCK_E_TANH: return atck_sp_tanhf(x);
    case ATCK_E_SIGMOID: return atck_sp_sigmoidf(x);
    case ATCK_E_ERF: return atck_sp_erff(x);
    case ATCK_E_GELU: return atck_sp_geluf(x);
    default: return atck_unary_f<float>(op, x, p);
  }
}

// keep_fp16: the input and every intermediate result rounded to float16.
static inline ATCK_INLINE float atck_unary_kf16(int64_t op, float x, const AtckEltPrm& p) {
  x = atck_r16(x);
  if (op == ATCK_E_GELU) {
    float h = atck_r16(x * 0.5f);
    float e = atck_r16(atck_erff(atck_r16(x * 0.70710678f)));
    return atck_r16(h * atck_r16(1.0f + e));
  }
  return atck_r16(atck_unary_f<float>(op, x, p));
}
