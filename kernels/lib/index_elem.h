// Helpers shared by the data-movement kernels: element moves parametrised by element size
// (the kernels move bytes, not typed values) and odometer-style multi-index stepping.
#pragma once
#include "kernels/lib/kernel_abi.h"

// Copies n elements of esize bytes from src (element stride sstride, in elements) to a
// dense dst. The size switch folds away once esize is a constant.
static inline void atck_move_strided(char* ATCK_RESTRICT dst, const char* ATCK_RESTRICT src,
                                     int64_t n, int64_t sstride, int64_t esize) {
  if (sstride == 1) {
    memcpy(dst, src, (size_t)(n * esize));
    return;
  }
  switch (esize) {
    case 1: {
      uint8_t* d = (uint8_t*)dst;
      const uint8_t* s = (const uint8_t*)src;
      for (int64_t i = 0; i < n; ++i) d[i] = s[i * sstride];
      return;
    }
    case 2: {
      uint16_t* d = (uint16_t*)dst;
      const uint16_t* s = (const uint16_t*)src;
      for (int64_t i = 0; i < n; ++i) d[i] = s[i * sstride];
      return;
    }
    case 4: {
      uint32_t* d = (uint32_t*)dst;
      const uint32_t* s = (const uint32_t*)src;
      for (int64_t i = 0; i < n; ++i) d[i] = s[i * sstride];
      return;
    }
    case 8: {
      uint64_t* d = (uint64_t*)dst;
      const uint64_t* s = (const uint64_t*)src;
      for (int64_t i = 0; i < n; ++i) d[i] = s[i * sstride];
      return;
    }
    default:
      for (int64_t i = 0; i < n; ++i)
        memcpy(dst + i * esize, src + i * sstride * esize, (size_t)esize);
  }
}

// Fills n elements of esize bytes (esize <= 8) with the low esize bytes of `bits`.
static inline void atck_fill_elems(char* dst, int64_t n, int64_t esize, int64_t bits) {
  switch (esize) {
    case 1: {
      uint8_t v = (uint8_t)bits;
      memset(dst, v, (size_t)n);
      return;
    }
    case 2: {
      uint16_t v = (uint16_t)bits;
      uint16_t* d = (uint16_t*)dst;
      for (int64_t i = 0; i < n; ++i) d[i] = v;
      return;
    }
    case 4: {
      uint32_t v = (uint32_t)bits;
      uint32_t* d = (uint32_t*)dst;
      for (int64_t i = 0; i < n; ++i) d[i] = v;
      return;
    }
    default: {
      uint64_t v = (uint64_t)bits;
      uint64_t* d = (uint64_t*)dst;
      for (int64_t i = 0; i < n; ++i) d[i] = v;
      return;
    }
  }
}

// Copies one element of esize bytes.
static inline void atck_move_one(char* dst, const char* src, int64_t esize) {
  switch (esize) {
    case 1: *(uint8_t*)dst = *(const uint8_t*)src; return;
    case 2: *(uint16_t*)dst = *(const uint16_t*)src; return;
    case 4: *(uint32_t*)dst = *(const uint32_t*)src; return;
    case 8: *(uint64_t*)dst = *(const uint64_t*)src; return;
    default: memcpy(dst, src, (size_t)esize);
  }
}

// Reads index i of an index tensor stored as int64 (dt 5) or int32 (dt 6).
static inline int64_t atck_index_at(const void* p, int64_t dt, int64_t i) {
  if (dt == ATCK_I32) return ((const int32_t*)p)[i];
  return ((const int64_t*)p)[i];
}

// Decomposes linear index `lin` over dims[0..rank) (row-major) into idx[].
static inline void atck_unravel(int64_t lin, const int64_t* dims, int64_t rank, int64_t* idx) {
  for (int64_t d = rank - 1; d >= 0; --d) {
    int64_t n = dims[d];
    idx[d] = n > 0 ? lin % n : 0;
    lin = n > 0 ? lin / n : 0;
  }
}

// Advances idx[] over dims[0..rank) by one (row-major odometer).
static inline void atck_odometer_next(int64_t* idx, const int64_t* dims, int64_t rank) {
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (++idx[d] < dims[d]) return;
    idx[d] = 0;
  }
}

#define ATCK_MAX_RANK 16
// resize: the most tap combinations over the leading dims of one output row (the lowering
// refuses more: kernels/lib/resize.cpp keeps this many and would drop the rest).
#define ATCK_RESIZE_MAX_COMBOS 1024
