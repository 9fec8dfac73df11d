// Kernels that select elements by value, so that their output shape depends on data
// (Value::shapeFromData: the actual dims written after the data, kernels/lib/data_shape.h).
// One task each: the count decides where every element goes.
//
// nonzero: the indices of the non-zero elements of X (any dtype), int64 [rank, count] in
// row-major order of X. bufs: X, Y.
// compress: the slices of X along an axis (or of flattened X) whose condition is true; the
// condition may be shorter than the axis (the rest is dropped). bufs: X, condition (bool), Y.
#include "kernels/lib/data_shape.h"
#include "kernels/lib/math_dtype.h"

ATC_KERNEL(nonzero)
ATC_KERNEL(compress)

enum { NZ_DT, NZ_NUMEL, NZ_AT, NZ_RANK, NZ_DIMS };

int64_t atck_nonzero_ntasks(const int64_t*) { return 1; }

void atck_nonzero_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  if (begin > 0 || end < 1) return;
  const int64_t numel = P[NZ_NUMEL], rank = P[NZ_RANK], dt = P[NZ_DT];
  const void* x = bufs[0];
  int64_t* y = (int64_t*)bufs[1];
  int64_t count = 0;
  for (int64_t i = 0; i < numel; ++i) count += atck_ld<double>(x, dt, i) != 0.0 ? 1 : 0;
  int64_t j = 0;
  for (int64_t i = 0; i < numel; ++i) {
    if (atck_ld<double>(x, dt, i) == 0.0) continue;
    int64_t rest = i;
    for (int64_t d = rank - 1; d >= 0; --d) {
      y[d * count + j] = rest % P[NZ_DIMS + d];
      rest /= P[NZ_DIMS + d];
    }
    ++j;
  }
  const int64_t dims[2] = {rank, count};
  atck_put_dims(y, P[NZ_AT], dims, 2);
}

enum { CP_ESIZE, CP_OUTER, CP_N, CP_INNER, CP_CLEN, CP_AT, CP_AXIS, CP_RANK, CP_DIMS };

int64_t atck_compress_ntasks(const int64_t*) { return 1; }

void atck_compress_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  if (begin > 0 || end < 1) return;
  const int64_t es = P[CP_ESIZE], outer = P[CP_OUTER], n = P[CP_N], inner = P[CP_INNER];
  const int64_t len = P[CP_CLEN] < n ? P[CP_CLEN] : n;
  const char* x = (const char*)bufs[0];
  const uint8_t* cond = (const uint8_t*)bufs[1];
  char* y = (char*)bufs[2];
  int64_t count = 0;
  for (int64_t i = 0; i < len; ++i) count += cond[i] ? 1 : 0;
  const int64_t row = inner * es;
  for (int64_t o = 0; o < outer; ++o) {
    int64_t j = 0;
    for (int64_t i = 0; i < len; ++i) {
      if (!cond[i]) continue;
      const char* src = x + (o * n + i) * row;
      char* dst = y + (o * count + j) * row;
      for (int64_t b = 0; b < row; ++b) dst[b] = src[b];
      ++j;
    }
  }
  if (P[CP_AT] < 0) return;  // a constant condition: a static output
  int64_t dims[8];
  for (int64_t d = 0; d < P[CP_RANK]; ++d) dims[d] = d == P[CP_AXIS] ? count : P[CP_DIMS + d];
  atck_put_dims(y, P[CP_AT], dims, P[CP_RANK]);
}
