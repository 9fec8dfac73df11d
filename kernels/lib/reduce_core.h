// The reduction loops of the "reduce" and "reduce_axes" kernels (kernels/lib/reduce.cpp,
// reduce_axes.cpp): per-op init / map / combine / final, and atck_reduce_run over outputs lo..hi
// of a collapsed layout (params: kernels/lib/math_reduce_codes.h). Two loop shapes, picked by
// the params:
//  - the input's last dim is reduced: each output reduces contiguous rows with 16 partial
//    accumulators (the inner loop vectorises without reassociation flags);
//  - the input's last dim is kept: a segment of up to ATCK_REDUCE_VEC outputs is reduced
//    together, one contiguous input row segment per reduced coordinate (vectorises across
//    the outputs).
// LogSumExp is computed as max + log(sum(exp(x - max))) (two passes).
#pragma once
#include "kernels/lib/kernel_abi.h"
#include "kernels/lib/math_ops.h"
#include "kernels/lib/math_reduce_codes.h"

template <class C>
static inline ATCK_INLINE C atck_red_lowest() {
  if constexpr (AtckIsFloat<C>::value) return (C)-__builtin_inf();
  else if constexpr ((C)-1 < (C)0) return (C)(-9223372036854775807LL - 1);
  else return (C)0;
}
template <class C>
static inline ATCK_INLINE C atck_red_highest() {
  if constexpr (AtckIsFloat<C>::value) return (C)__builtin_inf();
  else if constexpr ((C)-1 < (C)0) return (C)9223372036854775807LL;
  else return (C)18446744073709551615ULL;
}

template <class C>
static inline ATCK_INLINE C atck_red_init(int64_t op) {
  switch (op) {
    case ATCK_R_PROD: return (C)1;
    case ATCK_R_MAX: return atck_red_lowest<C>();
    case ATCK_R_MIN: return atck_red_highest<C>();
    default: return (C)0;
  }
}

template <class C>
static inline ATCK_INLINE C atck_red_map(int64_t op, C x, C shift) {
  switch (op) {
    case ATCK_R_L1: return x < (C)0 ? (C)0 - x : x;
    case ATCK_R_L2:
    case ATCK_R_SUMSQUARE:
      if constexpr (AtckIsFloat<C>::value) return x * x;
      else return (C)((uint64_t)x * (uint64_t)x);
    case ATCK_R_LOGSUMEXP:
      if constexpr (AtckIsFloat<C>::value) return atck_m_exp(x - shift);
      else return (C)exp((double)x - (double)shift);
    default: return x;
  }
}

template <class C>
static inline ATCK_INLINE C atck_red_comb(int64_t op, C a, C b) {
  switch (op) {
    case ATCK_R_PROD:
      if constexpr (AtckIsFloat<C>::value) return a * b;
      else return (C)((uint64_t)a * (uint64_t)b);
    case ATCK_R_MAX: return (a != a || a > b) ? a : b;
    case ATCK_R_MIN: return (a != a || a < b) ? a : b;
    default:
      if constexpr (AtckIsFloat<C>::value) return a + b;
      else return (C)((uint64_t)a + (uint64_t)b);
  }
}

template <class C>
static inline ATCK_INLINE C atck_red_final(int64_t op, C acc, C shift, int64_t n) {
  switch (op) {
    case ATCK_R_MEAN:
      if constexpr (AtckIsFloat<C>::value) return acc / (C)n;
      else return n == 0 ? (C)0 : acc / (C)n;
    case ATCK_R_L2: return (C)sqrt((double)acc);
    case ATCK_R_LOGSUM: return (C)log((double)acc);
    case ATCK_R_LOGSUMEXP: return shift + (C)log((double)acc);
    default: return acc;
  }
}

// LogSumExp shift: the max, or 0 where it is not finite (all -inf, or inf/NaN present).
template <class C>
static inline ATCK_INLINE C atck_red_shift(C m) {
  if constexpr (AtckIsFloat<C>::value) return (m - m == (C)0) ? m : (C)0;
  else return m;
}

// Reduces n elements from off with stride into acc.
template <class C>
static inline ATCK_INLINE C atck_red_row(int64_t op, const void* x, int64_t dt, int64_t off,
                                         int64_t n, int64_t stride, C shift, C acc) {
  if (stride == 1) {
    C part[16];
    for (int j = 0; j < 16; ++j) part[j] = atck_red_init<C>(op);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
      for (int j = 0; j < 16; ++j)
        part[j] = atck_red_comb<C>(op, part[j], atck_red_map<C>(op, atck_ld<C>(x, dt, off + i + j), shift));
    for (; i < n; ++i)
      part[0] = atck_red_comb<C>(op, part[0], atck_red_map<C>(op, atck_ld<C>(x, dt, off + i), shift));
    for (int j = 0; j < 16; ++j) acc = atck_red_comb<C>(op, acc, part[j]);
  } else {
    for (int64_t i = 0; i < n; ++i)
      acc = atck_red_comb<C>(op, acc, atck_red_map<C>(op, atck_ld<C>(x, dt, off + i * stride), shift));
  }
  return acc;
}

// Offset of reduced-space row `row` (all reduced dims but the last).
static inline ATCK_INLINE int64_t atck_red_rowoff(const int64_t* rs, const int64_t* rst, int64_t R,
                                                  int64_t row) {
  int64_t off = 0;
  for (int64_t d = R - 2; d >= 0; --d) {
    off += (row % rs[d]) * rst[d];
    row /= rs[d];
  }
  return off;
}

template <class C>
static inline ATCK_INLINE C atck_red_one(int64_t op, const void* x, int64_t dt, int64_t base,
                                         const int64_t* rs, const int64_t* rst, int64_t R,
                                         int64_t nred, C shift) {
  C acc = atck_red_init<C>(op);
  if (nred == 0) return acc;
  const int64_t last = rs[R - 1], ls = rst[R - 1];
  const int64_t rows = nred / last;
  for (int64_t r = 0; r < rows; ++r)
    acc = atck_red_row<C>(op, x, dt, base + atck_red_rowoff(rs, rst, R, r), last, ls, shift, acc);
  return acc;
}

// Vector mode: n (<= ATCK_REDUCE_VEC) adjacent outputs starting at input offset base.
template <class C>
static inline ATCK_INLINE void atck_red_seg(int64_t op, const void* x, int64_t dt, int64_t base,
                                            int64_t n, const int64_t* rs, const int64_t* rst,
                                            int64_t R, int64_t nred, C* acc, const C* shift) {
  for (int64_t j = 0; j < n; ++j) acc[j] = atck_red_init<C>(op);
  if (nred == 0) return;
  const int64_t last = rs[R - 1], ls = rst[R - 1];
  const int64_t rows = nred / last;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t roff = base + atck_red_rowoff(rs, rst, R, r);
    for (int64_t i = 0; i < last; ++i) {
      int64_t o = roff + i * ls;
      for (int64_t j = 0; j < n; ++j)
        acc[j] = atck_red_comb<C>(op, acc[j], atck_red_map<C>(op, atck_ld<C>(x, dt, o + j), shift[j]));
    }
  }
}

template <class C>
static inline ATCK_INLINE void atck_reduce_run(const int64_t* P, void** bufs, int64_t lo, int64_t hi) {
  const int64_t op = atck_iv_base(P[ATCK_RP_OP]), indt = P[ATCK_RP_INDT], outdt = P[ATCK_RP_OUTDT];
  const int64_t nred = P[ATCK_RP_NRED], K = P[ATCK_RP_KRANK], R = P[ATCK_RP_RRANK];
  const int64_t inner = P[ATCK_RP_INNER];
  const int64_t* ks = P + ATCK_RP_HEADER;
  const int64_t* kst = ks + K;
  const int64_t* rs = kst + K;
  const int64_t* rst = rs + R;
  const void* x = bufs[0];
  void* out = bufs[P[ATCK_RP_OUTBUF]];
  const bool lse = op == ATCK_R_LOGSUMEXP;
  int64_t o = lo;
  while (o < hi) {
    // Input offset of output o.
    int64_t base = 0, rem = o;
    for (int64_t d = K - 1; d >= 0; --d) {
      base += (rem % ks[d]) * kst[d];
      rem /= ks[d];
    }
    if (inner > 1) {
      int64_t j0 = o % inner;
      int64_t n = inner - j0;
      if (n > hi - o) n = hi - o;
      if (n > ATCK_REDUCE_VEC) n = ATCK_REDUCE_VEC;
      C acc[ATCK_REDUCE_VEC], shift[ATCK_REDUCE_VEC];
      for (int64_t j = 0; j < n; ++j) shift[j] = (C)0;
      if (lse) {
        atck_red_seg<C>(ATCK_R_MAX, x, indt, base, n, rs, rst, R, nred, acc, shift);
        for (int64_t j = 0; j < n; ++j) shift[j] = atck_red_shift<C>(acc[j]);
      }
      atck_red_seg<C>(op, x, indt, base, n, rs, rst, R, nred, acc, shift);
      for (int64_t j = 0; j < n; ++j)
        atck_st<C>(out, outdt, o + j, atck_red_final<C>(op, acc[j], shift[j], nred));
      o += n;
    } else {
      C shift = (C)0;
      if (lse) shift = atck_red_shift<C>(atck_red_one<C>(ATCK_R_MAX, x, indt, base, rs, rst, R, nred, shift));
      C acc = atck_red_one<C>(op, x, indt, base, rs, rst, R, nred, shift);
      atck_st<C>(out, outdt, o, atck_red_final<C>(op, acc, shift, nred));
      ++o;
    }
  }
}

// Outputs lo..hi of the reduction P describes, in P's compute type.
static inline ATCK_INLINE void atck_reduce_range(const int64_t* P, void** bufs, int64_t lo, int64_t hi) {
  switch (P[ATCK_RP_CT]) {
    case ATCK_CT_F32:
      // high_precision: float data accumulated in double (math_impl.h).
      if (atck_iv_of(P[ATCK_RP_OP]) == ATCK_IV_PREC) atck_reduce_run<double>(P, bufs, lo, hi);
      else atck_reduce_run<float>(P, bufs, lo, hi);
      break;
    case ATCK_CT_F64: atck_reduce_run<double>(P, bufs, lo, hi); break;
    case ATCK_CT_I64: atck_reduce_run<int64_t>(P, bufs, lo, hi); break;
    default: atck_reduce_run<uint64_t>(P, bufs, lo, hi); break;
  }
}
