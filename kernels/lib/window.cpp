// window: HannWindow, HammingWindow and BlackmanWindow (opset 17): y[i] = a0 - a1 cos(2 pi i / N)
// + a2 cos(4 pi i / N), N = size (periodic) or size - 1 (symmetric), as the ONNX reference.
// bufs = {size, Y} (a constant size: Y static), or {size, Y, Y's dims slot} when the size is fed
// at run time (Y run-sized, kernels/lib/run_sized.h). P = {kind (0 Hann, 1 Hamming, 2 Blackman),
// periodic, Y dtype, size dtype, static size (-1: at run time)}.
#include "kernels/lib/run_sized.h"

ATC_KERNEL(window)

int64_t atck_window_ntasks(const int64_t*) { return 1; }

void atck_window_task(const int64_t* P, void** bufs, int64_t begin, int64_t) {
  int64_t n = P[4];
  if (n < 0) {
    n = atck_index_at(bufs[0], P[3], 0);
    if (!bufs[1]) {
      if (begin != 0) return;
      if (n < 0) atck_rs_invalid(bufs[2], 1);
      else atck_rs_put(bufs[2], &n, 1);
      return;
    }
  }
  const double a0 = P[0] == 0 ? 0.5 : P[0] == 1 ? 25.0 / 46.0 : 0.42;
  const double a1 = P[0] == 0 ? 0.5 : P[0] == 1 ? 21.0 / 46.0 : 0.5;
  const double a2 = P[0] == 2 ? 0.08 : 0.0;
  const double N = (double)(P[1] ? n : n - 1), pi = 3.14159265358979323846;
  for (int64_t i = 0; i < n; ++i) {
    const double x = 2 * pi * (double)i / N;
    atck_rs_store(bufs[1], P[2], i, a0 - a1 * __builtin_cos(x) + a2 * __builtin_cos(2 * x));
  }
}
