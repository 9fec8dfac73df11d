// trilu: keeps the upper (j - i >= k) or lower (j - i <= k) triangle of each matrix, zeroes
// the rest. bufs = {in, [k], out}. P = {esize, batch, rows, cols, k, upper, outBuf, kFromBuf}:
// with kFromBuf, k is the int64 scalar bufs[1] (clamped to +-(rows + cols), which keeps or
// drops every element as the exact value would). Items: matrix rows.
#include "kernels/lib/index_elem.h"

ATC_KERNEL(trilu)

int64_t atck_trilu_ntasks(const int64_t* P) { return P[3] == 0 ? 0 : P[1] * P[2]; }

void atck_trilu_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t es = P[0], rows = P[2], cols = P[3], k = P[4], upper = P[5];
  if (P[7]) {
    const int64_t lim = rows + cols, v = *(const int64_t*)bufs[1];
    k = v > lim ? lim : v < -lim ? -lim : v;
  }
  const char* in = (const char*)bufs[0];
  char* out = (char*)bufs[P[6]];
  for (int64_t t = begin; t < end; ++t) {
    int64_t i = t % rows;
    const char* s = in + t * cols * es;
    char* d = out + t * cols * es;
    // Kept columns: [lo, hi).
    int64_t lo = upper ? i + k : 0, hi = upper ? cols : i + k + 1;
    if (lo < 0) lo = 0;
    if (hi > cols) hi = cols;
    if (hi < lo) hi = lo;
    if (lo > cols) lo = hi = cols;
    memset(d, 0, (size_t)(lo * es));
    if (hi > lo) memcpy(d + lo * es, s + lo * es, (size_t)((hi - lo) * es));
    memset(d + hi * es, 0, (size_t)((cols - hi) * es));
  }
}
