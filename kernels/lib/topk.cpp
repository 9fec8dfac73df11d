// topk: the k largest (or smallest) values along one axis and their indices, sorted; equal
// values in index order. k is a constant (P[TK_K] >= 0) or read from input 1 at run time
// (P[TK_K] = -1: the outputs are shapeFromData, their dims written after the data).
// bufs: X, [K] (P[TK_NIN] inputs), values, indices, workspace (2 * n int64 per task).
#include "kernels/lib/data_shape.h"
#include "kernels/lib/math_dtype.h"

ATC_KERNEL(topk)

enum { TK_DT, TK_OUTER, TK_N, TK_INNER, TK_K, TK_LARGEST, TK_NTASKS, TK_AT_V, TK_AT_I, TK_AXIS, TK_NIN, TK_RANK,
       TK_DIMS };

static inline ATCK_INLINE int64_t atck_topk_k(const int64_t* P, void** bufs) {
  int64_t k = P[TK_K] >= 0 ? P[TK_K] : ((const int64_t*)bufs[1])[0];
  return k < 0 ? 0 : (k > P[TK_N] ? P[TK_N] : k);
}

int64_t atck_topk_ntasks(const int64_t* P) { return P[TK_NTASKS]; }

template <class C>
static inline ATCK_INLINE void atck_topk_lines(const int64_t* P, void** bufs, int64_t lo, int64_t hi, int64_t* idx) {
  const int64_t dt = P[TK_DT], n = P[TK_N], inner = P[TK_INNER];
  const bool largest = P[TK_LARGEST] != 0;
  const int64_t k = atck_topk_k(P, bufs);
  const void* x = bufs[0];
  void* vals = bufs[P[TK_NIN]];
  int64_t* inds = (int64_t*)bufs[P[TK_NIN] + 1];
  for (int64_t line = lo; line < hi; ++line) {
    const int64_t o = line / inner, i = line % inner, base = o * n * inner + i;
    for (int64_t j = 0; j < n; ++j) idx[j] = j;
    atck_merge_sort(idx, idx + n, n, [&](int64_t a, int64_t b) {
      C va = atck_ld<C>(x, dt, base + a * inner), vb = atck_ld<C>(x, dt, base + b * inner);
      return largest ? va > vb : va < vb;
    });
    for (int64_t j = 0; j < k; ++j) {
      const int64_t out = (o * k + j) * inner + i;
      atck_st<C>(vals, dt, out, atck_ld<C>(x, dt, base + idx[j] * inner));
      inds[out] = idx[j];
    }
  }
}

void atck_topk_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const bool rt = P[TK_K] < 0;
  const int64_t lines = P[TK_OUTER] * P[TK_INNER], nt = P[TK_NTASKS];
  int64_t* ws = (int64_t*)bufs[P[TK_NIN] + 2];
  for (int64_t t = begin; t < end; ++t) {
    const int64_t lo = lines * t / nt, hi = lines * (t + 1) / nt;
    int64_t* idx = ws + t * 2 * P[TK_N];
    switch (P[TK_DT]) {
      case ATCK_U64: atck_topk_lines<uint64_t>(P, bufs, lo, hi, idx); break;
      case ATCK_I64:
      case ATCK_I32:
      case ATCK_I16:
      case ATCK_I8:
      case ATCK_U8:
      case ATCK_U16:
      case ATCK_U32: atck_topk_lines<int64_t>(P, bufs, lo, hi, idx); break;
      default: atck_topk_lines<double>(P, bufs, lo, hi, idx); break;
    }
    if (rt && t == 0) {
      int64_t dims[8];
      for (int64_t d = 0; d < P[TK_RANK]; ++d) dims[d] = d == P[TK_AXIS] ? atck_topk_k(P, bufs) : P[TK_DIMS + d];
      atck_put_dims(bufs[P[TK_NIN]], P[TK_AT_V], dims, P[TK_RANK]);
      atck_put_dims(bufs[P[TK_NIN] + 1], P[TK_AT_I], dims, P[TK_RANK]);
    }
  }
}
