// fill: out = n copies of one element. P = {esize, n, valueBits, outBuf}. (ConstantOfShape)
// write_i64: out = the int64 values in P. P = {n, v_0..v_{n-1}, outBuf}. (Shape, Size)
// outBuf: index of the output in bufs (inputs come first and are not read).
#include "kernels/lib/index_elem.h"

ATC_KERNEL(fill)
ATC_KERNEL(write_i64)

static const int64_t kFillChunk = 1 << 16;

int64_t atck_fill_ntasks(const int64_t* P) { return (P[1] + kFillChunk - 1) / kFillChunk; }

void atck_fill_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t lo = begin * kFillChunk, hi = end * kFillChunk;
  if (hi > P[1]) hi = P[1];
  if (hi > lo) atck_fill_elems((char*)bufs[P[3]] + lo * P[0], hi - lo, P[0], P[2]);
}

int64_t atck_write_i64_ntasks(const int64_t* P) { return P[0] > 0 ? 1 : 0; }

void atck_write_i64_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t n = P[0];
  memcpy(bufs[P[n + 1]], P + 1, (size_t)(n * 8));
}
