// Helpers of the kernels with run-sized outputs (KernelCall::sizesOutputs, docs/dynamic-shapes.md
// "Run-sized values"): such a kernel is called twice per run. First with the output's pointer
// null (the size pass): the task that gets item 0 writes the output's dims into its dims slot
// (an arena buffer after the outputs) and nothing else. Then with the memory the runtime sized
// from those dims: the kernel reads the dims back from the slot and writes the data. Invalid
// input values give -1 dims, which fail the run with a message naming the output.
#pragma once
#include "kernels/lib/index_elem.h"

#define ATCK_RS_MAX_RANK 8

static inline ATCK_INLINE void atck_rs_put(void* slot, const int64_t* dims, int64_t rank) {
  int64_t* d = (int64_t*)slot;
  for (int64_t i = 0; i < rank; ++i) d[i] = dims[i];
}

static inline ATCK_INLINE void atck_rs_invalid(void* slot, int64_t rank) {
  int64_t* d = (int64_t*)slot;
  for (int64_t i = 0; i < rank; ++i) d[i] = -1;
  if (rank == 0) d[0] = -1;
}

// An integer read from a shape-like input of dtype code dt (int64, int32, or a float type for
// OneHot's depth, truncated toward zero).
static inline ATCK_INLINE int64_t atck_rs_int(const void* p, int64_t dt, int64_t i) {
  switch (dt) {
    case ATCK_F32: return (int64_t)((const float*)p)[i];
    case ATCK_F64: return (int64_t)((const double*)p)[i];
    default: return atck_index_at(p, dt, i);
  }
}

// y (dense, dims od[rank]) from x read with byte strides xs[rank] (0 where x is repeated):
// Expand's broadcast. rank 0 copies one element.
static inline ATCK_INLINE void atck_rs_strided_fill(char* y, const char* x, const int64_t* od, const int64_t* xs,
                                                    int64_t rank, int64_t es) {
  int64_t n = 1;
  for (int64_t d = 0; d < rank; ++d) n *= od[d];
  if (n == 0) return;
  if (rank == 0) {
    atck_move_one(y, x, es);
    return;
  }
  int64_t idx[ATCK_RS_MAX_RANK] = {0};
  const int64_t last = od[rank - 1], ls = xs[rank - 1];
  for (int64_t row = 0; row < n / last; ++row) {
    int64_t off = 0;
    for (int64_t d = 0; d + 1 < rank; ++d) off += idx[d] * xs[d];
    char* yr = y + row * last * es;
    if (ls == 0) {
      for (int64_t i = 0; i < last; ++i) atck_move_one(yr + i * es, x + off, es);
    } else {
      atck_move_strided(yr, x + off, last, ls / es, es);
    }
    for (int64_t d = rank - 2; d >= 0; --d) {
      if (++idx[d] < od[d]) break;
      idx[d] = 0;
    }
  }
}

// Element i of out (dtype dt) = v: float types rounded to nearest, integer types truncated
// toward zero as a Cast would.
static inline ATCK_INLINE void atck_rs_store(void* out, int64_t dt, int64_t i, double v) {
  switch (dt) {
    case ATCK_F32: ((float*)out)[i] = (float)v; return;
    case ATCK_F64: ((double*)out)[i] = v; return;
    case ATCK_F16: ((uint16_t*)out)[i] = atck_f2h((float)v); return;
    case ATCK_BF16: ((uint16_t*)out)[i] = atck_f2bf((float)v); return;
    case ATCK_I64: ((int64_t*)out)[i] = (int64_t)v; return;
    case ATCK_I32: ((int32_t*)out)[i] = (int32_t)v; return;
    case ATCK_I16: ((int16_t*)out)[i] = (int16_t)v; return;
    case ATCK_I8: ((int8_t*)out)[i] = (int8_t)v; return;
    case ATCK_U8: ((uint8_t*)out)[i] = (uint8_t)v; return;
    default: return;
  }
}
