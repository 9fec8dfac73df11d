// one_hot: out[o, d, i] = (index[o, i] == d) ? on : off, negative indices count from depth,
// out-of-range indices give an all-off row. bufs = {indices, depth, values [off, on], out}.
// P = {esize, idxDt (int64 / int32 / float32), outer, depth, inner}. Items: outer.
#include "kernels/lib/index_elem.h"

ATC_KERNEL(one_hot)

int64_t atck_one_hot_ntasks(const int64_t* P) { return P[3] * P[4] == 0 ? 0 : P[2]; }

void atck_one_hot_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t es = P[0], dt = P[1], depth = P[3], inner = P[4];
  const char* vals = (const char*)bufs[2];
  char* out = (char*)bufs[3];
  for (int64_t o = begin; o < end; ++o) {
    for (int64_t d = 0; d < depth; ++d)
      for (int64_t i = 0; i < inner; ++i)
        atck_move_one(out + ((o * depth + d) * inner + i) * es, vals, es);
    for (int64_t i = 0; i < inner; ++i) {
      int64_t k = o * inner + i;
      int64_t idx = dt == ATCK_F32 ? (int64_t)((const float*)bufs[0])[k] : atck_index_at(bufs[0], dt, k);
      if (idx < 0) idx += depth;
      if (idx < 0 || idx >= depth) continue;
      atck_move_one(out + ((o * depth + idx) * inner + i) * es, vals + es, es);
    }
  }
}
