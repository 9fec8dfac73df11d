// one_hot: out[o, d, i] = (index[o, i] == d) ? on : off, negative indices count from depth,
// out-of-range indices give an all-off row. bufs = {indices, depth, values [off, on], out}.
// P = {esize, idxDt (int64 / int32 / float32), outer, depth, inner}. Items: outer.
#include "kernels/lib/run_sized.h"

ATC_KERNEL(one_hot)

int64_t atck_one_hot_ntasks(const int64_t* P) { return P[3] * P[4] == 0 ? 0 : P[2]; }

static inline ATCK_INLINE void atck_one_hot_rows(int64_t es, int64_t dt, int64_t depth, int64_t inner, void** bufs,
                                                 char* out, int64_t begin, int64_t end) {
  const char* vals = (const char*)bufs[2];
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

void atck_one_hot_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  atck_one_hot_rows(P[0], P[1], P[3], P[4], bufs, (char*)bufs[3], begin, end);
}

// one_hot_rt: depth fed at run time (a scalar or one value of any number type, truncated); the
// output is run-sized (kernels/lib/run_sized.h). bufs = {indices, depth, values, y, y's dims slot};
// P = {esize, indices dtype, outer, inner, depth dtype, axis, indices rank, indices dims[rank]}.
ATC_KERNEL(one_hot_rt)

int64_t atck_one_hot_rt_ntasks(const int64_t* P) { return P[2] > 0 ? P[2] : 1; }

void atck_one_hot_rt_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t r = P[6], axis = P[5];
  if (!bufs[3]) {
    if (begin != 0) return;
    const int64_t depth = atck_rs_int(bufs[1], P[4], 0);
    if (depth < 1) {
      atck_rs_invalid(bufs[4], r + 1);
      return;
    }
    int64_t od[ATCK_RS_MAX_RANK];
    for (int64_t d = 0, k = 0; d <= r; ++d) od[d] = d == axis ? depth : P[7 + k++];
    atck_rs_put(bufs[4], od, r + 1);
    return;
  }
  if (P[2] == 0) return;
  atck_one_hot_rows(P[0], P[1], ((const int64_t*)bufs[4])[axis], P[3], bufs, (char*)bufs[3], begin, end);
}
