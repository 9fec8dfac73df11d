// Kernel "lrn": LocalResponseNormalization (ops/norm/lrn.cpp), float32 NCHW-like [N, C, inner]:
//   y[c] = x[c] / (bias + alpha / size * sum_{c' in window(c)} x[c']^2) ^ beta
// with window(c) = [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)] within [0, C).
// Params (never renumber): [0] N, [1] C, [2] inner, [3] size, [4] atck_f(alpha), [5] atck_f(beta),
// [6] atck_f(bias). One task per (image, block of 256 inner positions); the window's squares
// are summed in float, like ONNX's reference.
#include "kernels/lib/kernel_abi.h"
#include "kernels/lib/math_ops.h"

ATC_KERNEL(lrn)

#define LRN_BLOCK 256

int64_t atck_lrn_ntasks(const int64_t* P) { return P[0] * ((P[2] + LRN_BLOCK - 1) / LRN_BLOCK); }

void atck_lrn_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t C = P[1], inner = P[2], size = P[3];
  const float alpha = (float)atck_d(P[4]), beta = (float)atck_d(P[5]), bias = (float)atck_d(P[6]);
  const int64_t lo = (size - 1) / 2, hi = size / 2;  // floor((size-1)/2), ceil((size-1)/2)
  const int64_t blocks = (inner + LRN_BLOCK - 1) / LRN_BLOCK;
  const float* X = (const float*)bufs[0];
  float* Y = (float*)bufs[1];
  for (int64_t t = begin; t < end; ++t) {
    const int64_t n = t / blocks, i0 = (t % blocks) * LRN_BLOCK;
    const int64_t i1 = i0 + LRN_BLOCK < inner ? i0 + LRN_BLOCK : inner;
    for (int64_t c = 0; c < C; ++c) {
      const int64_t c0 = c - lo < 0 ? 0 : c - lo, c1 = c + hi < C - 1 ? c + hi : C - 1;
      for (int64_t i = i0; i < i1; ++i) {
        float s = 0.0f;
        for (int64_t k = c0; k <= c1; ++k) {
          const float v = X[(n * C + k) * inner + i];
          s += v * v;
        }
        const int64_t o = (n * C + c) * inner + i;
        Y[o] = X[o] / atck_m_pow(bias + alpha / (float)size * s, beta);
      }
    }
  }
}
