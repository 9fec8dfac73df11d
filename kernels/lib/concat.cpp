// concat: bufs = {in_0..in_{n-1}, out}. Viewed as [outer, rowBytes_i] blocks along the axis.
// P = {n, outer, rowBytes_0..rowBytes_{n-1}}; the output row is the sum of the input rows.
// split: the inverse, bufs = {in, [split,] out_0..out_{n-1}}, P = {n, outer, rowBytes_i..., firstOut}
// (firstOut: index of out_0 in bufs).
// Work items: (outer row, input) pairs, big blocks split into chunks.
#include "kernels/lib/index_elem.h"

ATC_KERNEL(concat)
ATC_KERNEL(split)

namespace {
const int64_t kChunk = 1 << 16;

ATCK_INLINE int64_t totalRow(const int64_t* P) {
  int64_t s = 0;
  for (int64_t i = 0; i < P[0]; ++i) s += P[2 + i];
  return s;
}

ATCK_INLINE int64_t maxRow(const int64_t* P) {
  int64_t s = 0;
  for (int64_t i = 0; i < P[0]; ++i) s = P[2 + i] > s ? P[2 + i] : s;
  return s;
}

// Items: outer * n * chunksPerPart, chunksPerPart from the largest part.
ATCK_INLINE int64_t chunksPerPart(const int64_t* P) {
  int64_t m = maxRow(P);
  return m > kChunk ? (m + kChunk - 1) / kChunk : 1;
}

ATCK_INLINE void moveParts(const int64_t* P, void** bufs, int64_t begin, int64_t end, bool isConcat) {
  int64_t n = P[0];
  int64_t row = totalRow(P);
  int64_t cpp = chunksPerPart(P);
  char* big = (char*)bufs[isConcat ? n : 0];
  for (int64_t t = begin; t < end; ++t) {
    int64_t c = t % cpp;
    int64_t pi = (t / cpp) % n;
    int64_t o = t / (cpp * n);
    int64_t rb = P[2 + pi];
    int64_t lo = c * kChunk, hi = cpp == 1 ? rb : lo + kChunk;
    if (hi > rb) hi = rb;
    if (hi <= lo) continue;
    int64_t off = 0;
    for (int64_t i = 0; i < pi; ++i) off += P[2 + i];
    char* part = (char*)bufs[isConcat ? pi : P[2 + n] + pi];
    char* b = big + o * row + off + lo;
    char* p = part + o * rb + lo;
    if (isConcat) memcpy(b, p, (size_t)(hi - lo));
    else memcpy(p, b, (size_t)(hi - lo));
  }
}
}  // namespace

int64_t atck_concat_ntasks(const int64_t* P) {
  if (totalRow(P) == 0) return 0;
  return P[1] * P[0] * chunksPerPart(P);
}
void atck_concat_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  moveParts(P, bufs, begin, end, true);
}

int64_t atck_split_ntasks(const int64_t* P) {
  if (totalRow(P) == 0) return 0;
  return P[1] * P[0] * chunksPerPart(P);
}
void atck_split_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  moveParts(P, bufs, begin, end, false);
}
