// copy: bufs[1] = bufs[0], P = {bytes}. Used by Identity and by reshape-like ops.
#include "kernels/lib/kernel_abi.h"

ATC_KERNEL(copy)

static const int64_t kCopyChunk = 1 << 16;

int64_t atck_copy_ntasks(const int64_t* P) { return (P[0] + kCopyChunk - 1) / kCopyChunk; }

void atck_copy_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const char* src = (const char*)bufs[0];
  char* dst = (char*)bufs[1];
  int64_t lo = begin * kCopyChunk;
  int64_t hi = end * kCopyChunk;
  if (hi > P[0]) hi = P[0];
  if (src != dst && hi > lo) memcpy(dst + lo, src + lo, (size_t)(hi - lo));
}
