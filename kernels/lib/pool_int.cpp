// Kernel "maxpool_int": MaxPool on int8 / uint8 (ops/pool/pool.cpp), 1-3 spatial dims. Each
// output is the largest input in its window that lies inside the input (padding never wins);
// a window wholly in the padding gives the type's minimum.
// Params (never renumber): [0] dtype (ATCK_I8 / ATCK_U8), [1] N*C, [2] nd, [3..6) input dims,
// [6..9) output dims, [9..12) kernel, [12..15) strides, [15..18) dilations, [18..21) begin
// pads (outermost first; dims past nd are 1, their pads 0). bufs: X, Y.
// One task per (n, c) plane.
#include "kernels/lib/kernel_abi.h"

ATC_KERNEL(maxpool_int)

namespace {
template <class T>
ATCK_INLINE void maxPlane(const int64_t* P, const T* x, T* y, T lowest) {
  const int64_t *in = P + 3, *out = P + 6, *k = P + 9, *s = P + 12, *d = P + 15, *pb = P + 18;
  for (int64_t o0 = 0; o0 < out[0]; ++o0)
    for (int64_t o1 = 0; o1 < out[1]; ++o1)
      for (int64_t o2 = 0; o2 < out[2]; ++o2) {
        T best = lowest;
        for (int64_t k0 = 0; k0 < k[0]; ++k0) {
          const int64_t i0 = o0 * s[0] - pb[0] + k0 * d[0];
          if (i0 < 0 || i0 >= in[0]) continue;
          for (int64_t k1 = 0; k1 < k[1]; ++k1) {
            const int64_t i1 = o1 * s[1] - pb[1] + k1 * d[1];
            if (i1 < 0 || i1 >= in[1]) continue;
            for (int64_t k2 = 0; k2 < k[2]; ++k2) {
              const int64_t i2 = o2 * s[2] - pb[2] + k2 * d[2];
              if (i2 < 0 || i2 >= in[2]) continue;
              const T v = x[(i0 * in[1] + i1) * in[2] + i2];
              best = v > best ? v : best;
            }
          }
        }
        y[(o0 * out[1] + o1) * out[2] + o2] = best;
      }
}
}  // namespace

int64_t atck_maxpool_int_ntasks(const int64_t* P) { return P[1]; }

void atck_maxpool_int_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t inPlane = P[3] * P[4] * P[5], outPlane = P[6] * P[7] * P[8];
  for (int64_t t = begin; t < end; ++t) {
    if (P[0] == ATCK_I8)
      maxPlane<int8_t>(P, (const int8_t*)bufs[0] + t * inPlane, (int8_t*)bufs[1] + t * outPlane, (int8_t)-128);
    else
      maxPlane<uint8_t>(P, (const uint8_t*)bufs[0] + t * inPlane, (uint8_t*)bufs[1] + t * outPlane, (uint8_t)0);
  }
}
