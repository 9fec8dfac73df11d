// range: out[i] = start + i * delta. P = {dtype, n, start, delta, outBuf}; start/delta are
// int64 for integer dtypes and double bits (atck_d) for float dtypes.
#include "kernels/lib/index_elem.h"

ATC_KERNEL(range)

static const int64_t kRangeChunk = 1 << 14;

int64_t atck_range_ntasks(const int64_t* P) { return (P[1] + kRangeChunk - 1) / kRangeChunk; }

void atck_range_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t dt = P[0], n = P[1];
  int64_t lo = begin * kRangeChunk, hi = end * kRangeChunk;
  if (hi > n) hi = n;
  void* out = bufs[P[4]];
  for (int64_t i = lo; i < hi; ++i) {
    switch (dt) {
      case ATCK_F32: ((float*)out)[i] = (float)(atck_d(P[2]) + (double)i * atck_d(P[3])); break;
      case ATCK_F64: ((double*)out)[i] = atck_d(P[2]) + (double)i * atck_d(P[3]); break;
      case ATCK_F16: ((uint16_t*)out)[i] = atck_f2h((float)(atck_d(P[2]) + (double)i * atck_d(P[3]))); break;
      case ATCK_BF16: ((uint16_t*)out)[i] = atck_f2bf((float)(atck_d(P[2]) + (double)i * atck_d(P[3]))); break;
      case ATCK_I64: ((int64_t*)out)[i] = P[2] + i * P[3]; break;
      case ATCK_I32: ((int32_t*)out)[i] = (int32_t)(P[2] + i * P[3]); break;
      case ATCK_I16: ((int16_t*)out)[i] = (int16_t)(P[2] + i * P[3]); break;
      case ATCK_I8: ((int8_t*)out)[i] = (int8_t)(P[2] + i * P[3]); break;
      case ATCK_U8: ((uint8_t*)out)[i] = (uint8_t)(P[2] + i * P[3]); break;
      default: break;
    }
  }
}
