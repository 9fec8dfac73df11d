// Helpers of the kernels whose output shape depends on input values (TopK with a run-time k,
// NonZero, Compress, NonMaxSuppression): the actual dims written after the data
// (Value::shapeFromData, docs/dynamic-shapes.md) and a stable merge sort of indices.
#pragma once
#include "kernels/lib/kernel_abi.h"

// Writes the actual dims (rank of them; at least one slot) at byte offset `at` of buffer `out`.
static inline ATCK_INLINE void atck_put_dims(void* out, int64_t at, const int64_t* dims, int64_t rank) {
  int64_t* d = (int64_t*)((char*)out + at);
  if (rank == 0) d[0] = 0;
  for (int64_t i = 0; i < rank; ++i) d[i] = dims[i];
}

// Stable merge sort of idx[0..n) by before(a, b) ("a goes first"), tmp: n more slots.
template <class Before>
static inline ATCK_INLINE void atck_merge_sort(int64_t* idx, int64_t* tmp, int64_t n, Before before) {
  for (int64_t w = 1; w < n; w *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * w) {
      int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int64_t a = lo, b = mid, o = lo;
      while (a < mid && b < hi) tmp[o++] = before(idx[b], idx[a]) ? idx[b++] : idx[a++];
      while (a < mid) tmp[o++] = idx[a++];
      while (b < hi) tmp[o++] = idx[b++];
    }
    for (int64_t i = 0; i < n; ++i) idx[i] = tmp[i];
  }
}
