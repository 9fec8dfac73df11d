// reduce_axes: a Reduce* whose axes come at run time (an "axes" input that is not a constant).
// Each task reads the axes, collapses the input into kept / reduced dims as the lowering does
// for the "reduce" kernel (ops/reduce/reduce_layout.h), runs the same loops
// (kernels/lib/reduce_core.h) over its share of the outputs, and task 0 writes the output's
// actual dims after its data (Value::shapeFromData). Params: kernels/lib/math_reduce_codes.h.
#include "kernels/lib/data_shape.h"
#include "kernels/lib/reduce_core.h"

ATC_KERNEL(reduce_axes)

int64_t atck_reduce_axes_ntasks(const int64_t* P) { return P[ATCK_RA_TASKS]; }

// The reduced-axis mask from the axes input; 0 when an axis is out of range or repeated.
static inline ATCK_INLINE int atck_ra_mask(const int64_t* P, const int64_t* axes, int* red) {
  const int64_t rank = P[ATCK_RA_RANK];
  for (int64_t d = 0; d < rank; ++d) red[d] = 0;
  for (int64_t i = 0; i < P[ATCK_RA_NAXES]; ++i) {
    int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (a < 0 || a >= rank || red[a]) return 0;
    red[a] = 1;
  }
  return 1;
}

// The "reduce" params (ATCK_RP_*) for this run's axes into lp; returns the output count.
static inline ATCK_INLINE int64_t atck_ra_layout(const int64_t* P, const int* red, int64_t* lp) {
  const int64_t rank = P[ATCK_RA_RANK];
  const int64_t* dims = P + ATCK_RA_HEADER;
  int64_t ks[ATCK_REDUCE_MAX_RANK], kst[ATCK_REDUCE_MAX_RANK], rs[ATCK_REDUCE_MAX_RANK], rst[ATCK_REDUCE_MAX_RANK];
  int64_t K = 0, R = 0, nout = 1, nred = 1, stride = 1, strides[ATCK_REDUCE_MAX_RANK];
  for (int64_t d = rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= dims[d];
  }
  int last = -1;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t size = dims[d];
    *(red[d] ? &nred : &nout) *= size;
    if (size == 1) continue;
    int64_t* sh = red[d] ? rs : ks;
    int64_t* st = red[d] ? rst : kst;
    int64_t* cnt = red[d] ? &R : &K;
    if (red[d] == last) {
      sh[*cnt - 1] *= size;
      st[*cnt - 1] = strides[d];
    } else {
      sh[*cnt] = size;
      st[*cnt] = strides[d];
      ++*cnt;
    }
    last = red[d];
  }
  if (R == 0) {
    rs[0] = 1;
    rst[0] = 0;
    R = 1;
  }
  lp[ATCK_RP_OP] = P[ATCK_RA_OP];
  lp[ATCK_RP_CT] = P[ATCK_RA_CT];
  lp[ATCK_RP_INDT] = P[ATCK_RA_INDT];
  lp[ATCK_RP_OUTDT] = P[ATCK_RA_OUTDT];
  lp[ATCK_RP_NOUT] = nout;
  lp[ATCK_RP_NRED] = nred;
  lp[ATCK_RP_KRANK] = K;
  lp[ATCK_RP_RRANK] = R;
  lp[ATCK_RP_INNER] = K > 0 && kst[K - 1] == 1 ? ks[K - 1] : 1;
  lp[ATCK_RP_OUTBUF] = 2;
  lp[ATCK_RP_PER_TASK] = 1;
  int64_t* q = lp + ATCK_RP_HEADER;
  for (int64_t i = 0; i < K; ++i) q[i] = ks[i];
  for (int64_t i = 0; i < K; ++i) q[K + i] = kst[i];
  for (int64_t i = 0; i < R; ++i) q[2 * K + i] = rs[i];
  for (int64_t i = 0; i < R; ++i) q[2 * K + R + i] = rst[i];
  return nout;
}

void atck_reduce_axes_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t rank = P[ATCK_RA_RANK], T = P[ATCK_RA_TASKS];
  int red[ATCK_REDUCE_MAX_RANK];
  int64_t out[ATCK_REDUCE_MAX_RANK], orank = 0;
  const int ok = atck_ra_mask(P, (const int64_t*)bufs[1], red);
  for (int64_t d = 0; d < rank; ++d) {
    if (!ok) out[orank++] = -1;  // refused by the runtime's check of the dims against the bound
    else if (!red[d]) out[orank++] = P[ATCK_RA_HEADER + d];
    else if (P[ATCK_RA_KEEP]) out[orank++] = 1;
  }
  if (begin == 0) atck_put_dims(bufs[2], P[ATCK_RA_AT], out, ok || P[ATCK_RA_KEEP] ? orank : rank - P[ATCK_RA_NAXES]);
  if (!ok) return;
  int64_t lp[ATCK_RP_HEADER + 4 * ATCK_REDUCE_MAX_RANK];
  const int64_t nout = atck_ra_layout(P, red, lp);
  const int64_t lo = nout * begin / T, hi = nout * end / T;
  if (lo < hi) atck_reduce_range(lp, bufs, lo, hi);
}
