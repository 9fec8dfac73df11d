// copy: bufs[1] = bufs[0], P = {bytes}: for nodes with ONE input only (the output is bufs[1]);
// a node with more inputs uses copy_to (ops/datamove dm::copyInput0 picks).
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

// copy_mask: Dropout in inference. bufs = {in, [ratio, training_mode,] out, mask}.
// P = {bytes, maskBytes, nInputs}: out = in, mask = all true (bytes of 1).
ATC_KERNEL(copy_mask)

int64_t atck_copy_mask_ntasks(const int64_t* P) { return (P[0] + P[1]) > 0 ? 1 : 0; }

void atck_copy_mask_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const char* src = (const char*)bufs[0];
  char* dst = (char*)bufs[P[2]];
  if (P[0] > 0 && src != dst) memcpy(dst, src, (size_t)P[0]);
  if (P[1] > 0) memset(bufs[P[2] + 1], 1, (size_t)P[1]);
}

// copy_to: bufs[P[1]] = bufs[0], P = {bytes, outBuf}. Reshape-like ops with more inputs than
// the data (Reshape's shape, Squeeze/Unsqueeze axes): the output follows all inputs.
ATC_KERNEL(copy_to)

int64_t atck_copy_to_ntasks(const int64_t* P) { return (P[0] + kCopyChunk - 1) / kCopyChunk; }

void atck_copy_to_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const char* src = (const char*)bufs[0];
  char* dst = (char*)bufs[P[1]];
  int64_t lo = begin * kCopyChunk;
  int64_t hi = end * kCopyChunk;
  if (hi > P[0]) hi = P[0];
  if (src != dst && hi > lo) memcpy(dst + lo, src + lo, (size_t)(hi - lo));
}
