// reduce: ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare over any axes fixed at
// compile time (the loops: kernels/lib/reduce_core.h; run-time axes: reduce_axes.cpp).
// argreduce: ArgMax/ArgMin along one axis.
// Params: kernels/lib/math_reduce_codes.h.
#include "kernels/lib/reduce_core.h"

ATC_KERNEL(reduce)
ATC_KERNEL(argreduce)

int64_t atck_reduce_ntasks(const int64_t* P) {
  return (P[ATCK_RP_NOUT] + P[ATCK_RP_PER_TASK] - 1) / P[ATCK_RP_PER_TASK];
}

void atck_reduce_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t lo = begin * P[ATCK_RP_PER_TASK];
  int64_t hi = end * P[ATCK_RP_PER_TASK];
  if (hi > P[ATCK_RP_NOUT]) hi = P[ATCK_RP_NOUT];
  if (lo >= hi) return;
  atck_reduce_range(P, bufs, lo, hi);
}

// ---- argreduce ------------------------------------------------------------------------------

static inline ATCK_INLINE int64_t atck_arg_per_task(const int64_t* P) {
  int64_t n = P[ATCK_AP_N] > 0 ? P[ATCK_AP_N] : 1;
  int64_t k = ATCK_REDUCE_BLOCK / n;
  return k > 0 ? k : 1;
}

int64_t atck_argreduce_ntasks(const int64_t* P) {
  int64_t total = P[ATCK_AP_OUTER] * P[ATCK_AP_INNER];
  int64_t k = atck_arg_per_task(P);
  return (total + k - 1) / k;
}

template <class C>
static inline ATCK_INLINE void atck_arg_run(const int64_t* P, void** bufs, int64_t lo, int64_t hi) {
  const bool ismax = P[ATCK_AP_ISMAX] != 0, last = P[ATCK_AP_LAST] != 0;
  const int64_t dt = P[ATCK_AP_INDT], n = P[ATCK_AP_N], inner = P[ATCK_AP_INNER];
  const void* x = bufs[0];
  int64_t* out = (int64_t*)bufs[P[ATCK_AP_OUTBUF]];
  int64_t o = lo;
  while (o < hi) {
    int64_t outer = o / inner, j0 = o % inner;
    int64_t m = inner - j0;
    if (m > hi - o) m = hi - o;
    if (m > ATCK_REDUCE_VEC) m = ATCK_REDUCE_VEC;
    C best[ATCK_REDUCE_VEC];
    int64_t idx[ATCK_REDUCE_VEC];
    int64_t base = outer * n * inner + j0;
    for (int64_t j = 0; j < m; ++j) {
      best[j] = atck_ld<C>(x, dt, base + j);
      idx[j] = 0;
    }
    for (int64_t i = 1; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) {
        C v = atck_ld<C>(x, dt, base + i * inner + j);
        bool take = ismax ? (last ? v >= best[j] : v > best[j]) : (last ? v <= best[j] : v < best[j]);
        best[j] = take ? v : best[j];
        idx[j] = take ? i : idx[j];
      }
    for (int64_t j = 0; j < m; ++j) out[o + j] = idx[j];
    o += m;
  }
}

void atck_argreduce_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t k = atck_arg_per_task(P);
  int64_t total = P[ATCK_AP_OUTER] * P[ATCK_AP_INNER];
  int64_t lo = begin * k, hi = end * k;
  if (hi > total) hi = total;
  if (lo >= hi || P[ATCK_AP_N] <= 0) return;
  switch (P[ATCK_AP_INDT]) {
    case ATCK_F32:
    case ATCK_F16:
    case ATCK_BF16: atck_arg_run<float>(P, bufs, lo, hi); break;
    case ATCK_F64: atck_arg_run<double>(P, bufs, lo, hi); break;
    case ATCK_U64: atck_arg_run<uint64_t>(P, bufs, lo, hi); break;
    default: atck_arg_run<int64_t>(P, bufs, lo, hi); break;
  }
}
