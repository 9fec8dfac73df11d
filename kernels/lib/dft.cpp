// Kernel "dft": DFT (ops/signal/dft.cpp), float32, one transform per (outer, inner) position
// along the axis, by the definition (O(N^2), twiddles in double):
//   Y[k] = scale * sum_{t<N} x[t] exp(sign 2 pi i k t / N), k < nOut,
// sign -1 forward, +1 inverse (scale 1/N). x[t] is the input for t < nIn, else 0 (dft_length
// longer than the axis zero-pads; shorter truncates); for a onesided inverse (a half spectrum
// of nIn bins) x[t] for t >= nIn is conj(x[N - t]) (Hermitian symmetry) and Y is real.
// Params (never renumber): [0] outer, [1] inner, [2] nIn, [3] N, [4] nOut, [5] input
// components (1 real, 2 complex), [6] output components, [7] inverse, [8] onesided inverse,
// [9] index of Y in bufs (the node's input count: dft_length and axis are inputs too),
// [10] -1, or the bufs index of an axis fed at run time (two-sided, N = nIn = nOut: [0] is then
// the most transforms any axis gives, [1] 1, [11] the axis dtype, [12] rank - 1, [13..] the
// dims before the last; the axis is clamped into [0, rank - 2] after adding rank to a negative
// one, as CumSum's run-time axis: kernels cannot raise errors); [13 + rank - 1] onesided,
// [14 + rank - 1] run-sized: a onesided transform along a run-time axis sizes Y
// (kernels/lib/run_sized.h; a half spectrum of one bin is invalid) and takes N and nOut from
// that axis's dim.
// bufs: X [outer, nIn, inner, cin], ..., Y [outer, nOut, inner, cout].
#include "kernels/lib/kernel_abi.h"
#include "kernels/lib/math_ops.h"
#include "kernels/lib/run_sized.h"

ATC_KERNEL(dft)

int64_t atck_dft_ntasks(const int64_t* P) { return P[0] * P[1]; }

void atck_dft_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t inner = P[1], nIn = P[2], N = P[3], nOut = P[4], transforms = P[0] * P[1];
  const int64_t cin = P[5], cout = P[6];
  if (P[10] >= 0) {
    const int64_t rs = P[12];
    int64_t a = P[11] == ATCK_I32 ? (int64_t)((const int32_t*)bufs[P[10]])[0] : ((const int64_t*)bufs[P[10]])[0];
    if (a < 0) a += rs + 1;
    a = a < 0 ? 0 : a > rs - 1 ? rs - 1 : a;
    int64_t outer = 1;
    inner = 1;
    for (int64_t d = 0; d < a; ++d) outer *= P[13 + d];
    for (int64_t d = a + 1; d < rs; ++d) inner *= P[13 + d];
    nIn = N = nOut = P[13 + a];
    transforms = outer * inner;
    if (P[13 + rs]) {  // onesided: a half spectrum in (inverse) or out (forward)
      if (P[8]) N = nOut = 2 * (nIn - 1);
      else nOut = N / 2 + 1;
    }
    if (P[14 + rs] && !bufs[P[9]]) {  // the size pass: X's dims with the axis' and the last replaced
      if (begin != 0) return;
      int64_t od[ATCK_RS_MAX_RANK];
      for (int64_t d = 0; d < rs; ++d) od[d] = d == a ? nOut : P[13 + d];
      od[rs] = cout;
      if (N >= 1) atck_rs_put(bufs[P[9] + 1], od, rs + 1);
      else atck_rs_invalid(bufs[P[9] + 1], rs + 1);
      return;
    }
    if (N < 1) return;
  }
  const bool inverse = P[7] != 0, hermitian = P[8] != 0;
  const double sign = inverse ? 1.0 : -1.0, scale = inverse ? 1.0 / (double)N : 1.0;
  const double step = 2.0 * 3.14159265358979323846 / (double)N;
  const float* X = (const float*)bufs[0];
  float* Y = (float*)bufs[P[9]];
  for (int64_t task = begin; task < end && task < transforms; ++task) {
    const int64_t o = task / inner, i = task % inner;
    const float* x = X + (o * nIn * inner + i) * cin;
    float* y = Y + (o * nOut * inner + i) * cout;
    for (int64_t k = 0; k < nOut; ++k) {
      double re = 0, im = 0;
      for (int64_t t = 0; t < N; ++t) {
        double xr = 0, xi = 0;
        if (t < nIn) {
          xr = x[t * inner * cin];
          xi = cin == 2 ? x[t * inner * cin + 1] : 0.0;
        } else if (hermitian && N - t < nIn) {
          xr = x[(N - t) * inner * cin];
          xi = cin == 2 ? -x[(N - t) * inner * cin + 1] : 0.0;
        } else {
          continue;
        }
        const double a = sign * step * (double)((k * t) % N), c = cos(a), s = sin(a);
        re += xr * c - xi * s;
        im += xr * s + xi * c;
      }
      y[k * inner * cout] = (float)(re * scale);
      if (cout == 2) y[k * inner * cout + 1] = (float)(im * scale);
    }
  }
}
