// slice_rt: Slice (opset 10+) whose starts, ends, axes or steps come at run time. The kernel
// reads them, clamps as ONNX does (ops/datamove/slice.cpp does the same at compile time), copies
// the slice densely and writes its dims after the data (Value::shapeFromData; the bound is X's
// shape). A repeated or out-of-range axis, a zero step, or starts/ends/axes/steps of different
// lengths (checked at compile time) give -1 as every dim: the run fails.
// bufs: X, starts, ends, [axes], [steps], Y.
#include "kernels/lib/data_shape.h"
#include "kernels/lib/index_elem.h"
#include "kernels/lib/run_sized.h"

ATC_KERNEL(slice_rt)
ATC_KERNEL(slice_rs)

enum { SR_ESIZE, SR_RANK, SR_L, SR_TIND, SR_NIN, SR_AT, SR_HEADER };  // then X's dims[RANK]
#define ATCK_SR_MAX_RANK 16

int64_t atck_slice_rt_ntasks(const int64_t*) { return 1; }

static inline ATCK_INLINE int64_t atck_sr_ld(const void* p, int64_t tind, int64_t i) {
  return tind == ATCK_I32 ? (int64_t)((const int32_t*)p)[i] : ((const int64_t*)p)[i];
}

// Per dim: first index, step and length; 0 when the inputs are invalid.
static inline ATCK_INLINE int atck_sr_plan(const int64_t* P, void** bufs, const int64_t* dims, int64_t* start,
                                           int64_t* step, int64_t* len) {
  const int64_t rank = P[SR_RANK], L = P[SR_L], tind = P[SR_TIND];
  const void* axes = P[SR_NIN] > 3 ? bufs[3] : 0;
  const void* steps = P[SR_NIN] > 4 ? bufs[4] : 0;
  int seen[ATCK_SR_MAX_RANK];
  for (int64_t d = 0; d < rank; ++d) {
    start[d] = 0;
    step[d] = 1;
    len[d] = dims[d];
    seen[d] = 0;
  }
  for (int64_t i = 0; i < L; ++i) {
    int64_t a = axes ? atck_sr_ld(axes, tind, i) : i;
    if (a < 0) a += rank;
    if (a < 0 || a >= rank || seen[a]) return 0;
    seen[a] = 1;
    const int64_t st = steps ? atck_sr_ld(steps, tind, i) : 1, dim = dims[a];
    if (st == 0) return 0;
    int64_t b = atck_sr_ld(bufs[1], tind, i), e = atck_sr_ld(bufs[2], tind, i);
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    const int64_t hi = st > 0 ? dim : dim - 1, elo = st > 0 ? 0 : -1;
    b = b < 0 ? 0 : b > hi ? hi : b;
    e = e < elo ? elo : e > hi ? hi : e;
    const int64_t span = st > 0 ? e - b : b - e;  // no overflow for any step
    int64_t n = span <= 0 || dim == 0 ? 0 : st > 0 ? 1 + (span - 1) / st : st < -span ? 1 : 1 + (span - 1) / -st;
    len[a] = n;
    start[a] = n > 0 ? b : 0;
    step[a] = st;
  }
  return 1;
}

// Copies the slice (start, step, len per dim) of X (dims) densely into y.
static inline ATCK_INLINE void atck_sr_copy(const int64_t* P, void** bufs, const int64_t* dims, const int64_t* start,
                                           const int64_t* step, const int64_t* len, char* y) {
  const int64_t rank = P[SR_RANK], es = P[SR_ESIZE];
  int64_t stride[ATCK_SR_MAX_RANK], idx[ATCK_SR_MAX_RANK], base = 0, total = 1, s = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    base += start[d] * s;
    stride[d] = s * step[d];
    s *= dims[d];
    total *= len[d];
    idx[d] = 0;
  }
  if (total == 0) return;
  const char* x = (const char*)bufs[0];
  const int64_t inner = rank ? len[rank - 1] : 1, istride = rank ? stride[rank - 1] : 1;
  for (int64_t done = 0; done < total; done += inner) {
    int64_t off = base;
    for (int64_t d = 0; d + 1 < rank; ++d) off += idx[d] * stride[d];
    atck_move_strided(y + done * es, x + off * es, inner, istride, es);
    atck_odometer_next(idx, len, rank - 1);
  }
}

void atck_slice_rt_task(const int64_t* P, void** bufs, int64_t, int64_t) {
  const int64_t rank = P[SR_RANK];
  const int64_t* dims = P + SR_HEADER;
  int64_t start[ATCK_SR_MAX_RANK], step[ATCK_SR_MAX_RANK], len[ATCK_SR_MAX_RANK];
  char* y = (char*)bufs[P[SR_NIN]];
  if (!atck_sr_plan(P, bufs, dims, start, step, len)) {
    for (int64_t d = 0; d < rank; ++d) len[d] = -1;  // refused by the runtime's check of the dims
    atck_put_dims(y, P[SR_AT], len, rank);
    return;
  }
  atck_put_dims(y, P[SR_AT], len, rank);
  atck_sr_copy(P, bufs, dims, start, step, len, y);
}

// slice_rs: Slice of a run-sized X (its dims from its slot); Y is run-sized too.
// bufs: X, starts, ends, [axes], [steps], Y, Y's dims slot, X's dims slot; P as slice_rt's (SR_AT unused).
int64_t atck_slice_rs_ntasks(const int64_t*) { return 1; }

void atck_slice_rs_task(const int64_t* P, void** bufs, int64_t begin, int64_t) {
  const int64_t rank = P[SR_RANK], nin = P[SR_NIN];
  const int64_t* dims = (const int64_t*)bufs[nin + 2];
  int64_t start[ATCK_SR_MAX_RANK], step[ATCK_SR_MAX_RANK], len[ATCK_SR_MAX_RANK];
  const int ok = atck_sr_plan(P, bufs, dims, start, step, len);
  if (!bufs[nin]) {
    if (begin != 0) return;
    if (ok) atck_rs_put(bufs[nin + 1], len, rank);
    else atck_rs_invalid(bufs[nin + 1], rank);
    return;
  }
  if (ok) atck_sr_copy(P, bufs, dims, start, step, len, (char*)bufs[nin]);
}
