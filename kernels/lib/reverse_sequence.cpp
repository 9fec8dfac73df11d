// Kernel "reverse_sequence": ReverseSequence (ops/datamove/reverse_sequence.cpp). X of any
// dtype with time and batch axes 0 and 1 (either order) and `inner` elements after them; per
// batch item b the first len[b] time steps are reversed, the rest copied.
// Params (never renumber): [0] time axis (0 or 1), [1] T, [2] B, [3] inner, [4] element bytes.
// bufs: X, sequence_lens (int64 [B]), Y. One task per (t, b) row.
#include "kernels/lib/kernel_abi.h"

ATC_KERNEL(reverse_sequence)

int64_t atck_reverse_sequence_ntasks(const int64_t* P) { return P[1] * P[2]; }

void atck_reverse_sequence_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t T = P[1], B = P[2], row = P[3] * P[4];
  const int64_t* lens = (const int64_t*)bufs[1];
  for (int64_t k = begin; k < end; ++k) {
    const int64_t t = k / B, b = k % B;
    int64_t len = lens[b];
    len = len < 0 ? 0 : len > T ? T : len;
    const int64_t src = t < len ? len - 1 - t : t;
    // Row of (t, b) in the [T, B] or [B, T] order of the axes.
    const int64_t yo = P[0] == 0 ? t * B + b : b * T + t, xo = P[0] == 0 ? src * B + b : b * T + src;
    memcpy((char*)bufs[2] + yo * row, (const char*)bufs[0] + xo * row, (size_t)row);
  }
}
