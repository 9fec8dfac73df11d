// softmax: Softmax / LogSoftmax / Hardmax along n of an input viewed as [outer, n, inner]
// (params: math_norm_codes.h). inner == 1 (the BERT case, last axis): float32 Softmax rows
// run atck_softmax_row (vec_math.h: explicit 16-lane max, exp (atck_expneg) and sum; LLVM leaves a loop
// that sums exp scalar); other rows a max pass and a sum-of-exp pass with 16 partial
// accumulators, then a scaling pass; exp is atck_expf (~1 ulp). inner > 1: segments of up to ATCK_NORM_VEC lanes are
// processed together (vectorised across inner).
#include "kernels/lib/kernel_abi.h"
#include "kernels/lib/math_norm_codes.h"
#include "kernels/lib/math_ops.h"
#include "kernels/lib/vec_math.h"

ATC_KERNEL(softmax)

static inline ATCK_INLINE int64_t atck_sm_per_task(const int64_t* P) {
  int64_t n = P[ATCK_SP_N] > 0 ? P[ATCK_SP_N] : 1;
  int64_t k = ATCK_SOFTMAX_BLOCK / n;
  return k > 0 ? k : 1;
}

int64_t atck_softmax_ntasks(const int64_t* P) {
  int64_t lanes = P[ATCK_SP_OUTER] * P[ATCK_SP_INNER];
  int64_t k = atck_sm_per_task(P);
  return (lanes + k - 1) / k;
}

template <class C>
static inline ATCK_INLINE void atck_sm_row(int64_t mode, const void* x, void* y, int64_t dt,
                                           int64_t base, int64_t n) {
  if (mode == 2) {  // Hardmax: first maximum
    C best = atck_ld<C>(x, dt, base);
    int64_t bi = 0;
    for (int64_t i = 1; i < n; ++i) {
      C v = atck_ld<C>(x, dt, base + i);
      if (v > best) {
        best = v;
        bi = i;
      }
    }
    for (int64_t i = 0; i < n; ++i) atck_st<C>(y, dt, base + i, i == bi ? (C)1 : (C)0);
    return;
  }
  C pm[16];
  for (int j = 0; j < 16; ++j) pm[j] = (C)-__builtin_inf();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; ++j) {
      C v = atck_ld<C>(x, dt, base + i + j);
      pm[j] = v > pm[j] ? v : pm[j];
    }
  for (; i < n; ++i) {
    C v = atck_ld<C>(x, dt, base + i);
    pm[0] = v > pm[0] ? v : pm[0];
  }
  C m = pm[0];
  for (int j = 1; j < 16; ++j) m = pm[j] > m ? pm[j] : m;
  if (!(m - m == (C)0)) m = m != m ? m : (m > 0 ? m : (C)0);  // inf/NaN: keep NaN semantics
  C ps[16];
  for (int j = 0; j < 16; ++j) ps[j] = (C)0;
  const bool stash = mode == 0 && dt == ATCK_F32 && sizeof(C) == 4;  // keep exp(x - m) in y, scale later
  for (i = 0; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; ++j) {
      C e = atck_m_exp(atck_ld<C>(x, dt, base + i + j) - m);
      if (stash) atck_st<C>(y, dt, base + i + j, e);
      ps[j] += e;
    }
  for (; i < n; ++i) {
    C e = atck_m_exp(atck_ld<C>(x, dt, base + i) - m);
    if (stash) atck_st<C>(y, dt, base + i, e);
    ps[0] += e;
  }
  C s = (C)0;
  for (int j = 0; j < 16; ++j) s += ps[j];
  if (mode == 1) {
    C off = m + atck_m_log(s);
    for (i = 0; i < n; ++i) atck_st<C>(y, dt, base + i, atck_ld<C>(x, dt, base + i) - off);
  } else if (stash) {
    C inv = (C)1 / s;
    for (i = 0; i < n; ++i) atck_st<C>(y, dt, base + i, atck_ld<C>(y, dt, base + i) * inv);
  } else {
    C inv = (C)1 / s;
    for (i = 0; i < n; ++i)
      atck_st<C>(y, dt, base + i, atck_m_exp(atck_ld<C>(x, dt, base + i) - m) * inv);
  }
}

// m (<= ATCK_NORM_VEC) adjacent lanes of the inner dim, stride `inner` along n.
template <class C>
static inline ATCK_INLINE void atck_sm_seg(int64_t mode, const void* x, void* y, int64_t dt,
                                           int64_t base, int64_t n, int64_t inner, int64_t m) {
  C mx[ATCK_NORM_VEC], s[ATCK_NORM_VEC];
  int64_t bi[ATCK_NORM_VEC];
  for (int64_t j = 0; j < m; ++j) {
    mx[j] = atck_ld<C>(x, dt, base + j);
    bi[j] = 0;
    s[j] = (C)0;
  }
  for (int64_t i = 1; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      C v = atck_ld<C>(x, dt, base + i * inner + j);
      bool t = v > mx[j];
      mx[j] = t ? v : mx[j];
      bi[j] = t ? i : bi[j];
    }
  if (mode == 2) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) atck_st<C>(y, dt, base + i * inner + j, i == bi[j] ? (C)1 : (C)0);
    return;
  }
  for (int64_t j = 0; j < m; ++j)
    if (!(mx[j] - mx[j] == (C)0)) mx[j] = mx[j] != mx[j] ? mx[j] : (mx[j] > 0 ? mx[j] : (C)0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) s[j] += atck_m_exp(atck_ld<C>(x, dt, base + i * inner + j) - mx[j]);
  if (mode == 1) {
    for (int64_t j = 0; j < m; ++j) s[j] = mx[j] + atck_m_log(s[j]);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j)
        atck_st<C>(y, dt, base + i * inner + j, atck_ld<C>(x, dt, base + i * inner + j) - s[j]);
  } else {
    for (int64_t j = 0; j < m; ++j) s[j] = (C)1 / s[j];
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j)
        atck_st<C>(y, dt, base + i * inner + j,
                   atck_m_exp(atck_ld<C>(x, dt, base + i * inner + j) - mx[j]) * s[j]);
  }
}

template <class C>
static inline ATCK_INLINE void atck_sm_run(const int64_t* P, void** bufs, int64_t lo, int64_t hi) {
  const int64_t mode = atck_iv_base(P[ATCK_SP_MODE]), dt = P[ATCK_SP_DT];
  const int64_t n = P[ATCK_SP_N], inner = P[ATCK_SP_INNER];
  const void* x = bufs[0];
  void* y = bufs[P[ATCK_SP_OUTBUF]];
  if (inner == 1) {
    if (sizeof(C) == 4 && mode == 0 && dt == ATCK_F32) {  // the common case: explicit vectors
      for (int64_t r = lo; r < hi; ++r) atck_softmax_row((const float*)x + r * n, (float*)y + r * n, n);
      return;
    }
    for (int64_t r = lo; r < hi; ++r) atck_sm_row<C>(mode, x, y, dt, r * n, n);
    return;
  }
  int64_t o = lo;
  while (o < hi) {
    int64_t outer = o / inner, j0 = o % inner;
    int64_t m = inner - j0;
    if (m > hi - o) m = hi - o;
    if (m > ATCK_NORM_VEC) m = ATCK_NORM_VEC;
    atck_sm_seg<C>(mode, x, y, dt, outer * n * inner + j0, n, inner, m);
    o += m;
  }
}

void atck_softmax_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t k = atck_sm_per_task(P);
  int64_t lanes = P[ATCK_SP_OUTER] * P[ATCK_SP_INNER];
  int64_t lo = begin * k, hi = end * k;
  if (hi > lanes) hi = lanes;
  if (lo >= hi || P[ATCK_SP_N] <= 0) return;
  // high_precision (math_impl.h): exp and sums in double for float data.
  if (P[ATCK_SP_DT] == ATCK_F64 || atck_iv_of(P[ATCK_SP_MODE]) == ATCK_IV_PREC)
    atck_sm_run<double>(P, bufs, lo, hi);
  else atck_sm_run<float>(P, bufs, lo, hi);
}
