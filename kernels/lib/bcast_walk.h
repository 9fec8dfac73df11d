// The broadcast walk shared by the element-wise kernels (eltwise, fused_eltwise): visits the
// flat output range [lo, hi) of a `rank`-d shape as contiguous rows of the innermost dim and
// keeps, for each of the `nin` inputs, the element offset of the row start (strides 0 where
// an input is broadcast). row(off, istr, idx, seg) processes `seg` outputs starting at flat
// index idx; off[k] and istr[k] are input k's offset and innermost stride. Mark the row
// lambda ATCK_INLINE: if LLVM does not inline it, the kernel params stop being constants in
// the row code and the specialised loops are lost (measured: Erf 6x slower).
#pragma once
#include "kernels/lib/kernel_abi.h"

#define ATCK_BCAST_MAX_IN 32
#define ATCK_BCAST_MAX_RANK 16

template <class RowFn>
static inline ATCK_INLINE void atck_bcast_walk(const int64_t* shape, const int64_t* strides,
                                               int64_t rank, int64_t nin, int64_t lo, int64_t hi,
                                               RowFn row) {
  int64_t coord[ATCK_BCAST_MAX_RANK];
  int64_t off[ATCK_BCAST_MAX_IN];
  int64_t istr[ATCK_BCAST_MAX_IN];
  int64_t rem = lo;
  for (int64_t d = rank - 1; d >= 0; --d) {
    coord[d] = rem % shape[d];
    rem /= shape[d];
  }
  for (int64_t k = 0; k < nin; ++k) {
    int64_t o = 0;
    for (int64_t d = 0; d < rank; ++d) o += coord[d] * strides[k * rank + d];
    off[k] = o;
    istr[k] = strides[k * rank + rank - 1];
  }
  const int64_t inner = shape[rank - 1];
  int64_t idx = lo;
  while (idx < hi) {
    int64_t seg = inner - coord[rank - 1];
    if (seg > hi - idx) seg = hi - idx;
    row(off, istr, idx, seg);
    idx += seg;
    coord[rank - 1] += seg;
    for (int64_t k = 0; k < nin; ++k) off[k] += seg * istr[k];
    for (int64_t d = rank - 1; d > 0 && coord[d] == shape[d]; --d) {
      coord[d] = 0;
      ++coord[d - 1];
      for (int64_t k = 0; k < nin; ++k)
        off[k] += strides[k * rank + d - 1] - shape[d] * strides[k * rank + d];
    }
  }
}
