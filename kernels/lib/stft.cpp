// stft: STFT (opset 17), direct DFT of each frame, in double, as the ONNX reference: frame f of
// batch b starts at f * frame_step, holds window_size samples (zeros past the signal's end),
// each times the window, transformed at length frame_length (truncated or zero-padded).
// n_frames = 1 + (signal_length - frame_length) / frame_step; bins = frame_length / 2 + 1 when
// onesided. frame_step and frame_length are read from their inputs, so Y is run-sized
// (kernels/lib/run_sized.h) unless both are constants; a step below 1, a length below 1 or
// beyond the signal, or more than 2^32 multiply-adds in all, is invalid. bufs = {signal, frame_step, [window], [frame_length], Y (+ slot)};
// P = {dtype, batch, signal length, channels (1 real, 2 complex), onesided, window length (0: no
// window), nin, run-sized, frame_step dtype, frame_length dtype (0: absent)}.
#include "kernels/lib/run_sized.h"

ATC_KERNEL(stft)

int64_t atck_stft_ntasks(const int64_t*) { return 1; }

static inline ATCK_INLINE double atck_stft_ld(const void* p, int64_t dt, int64_t i) {
  return dt == ATCK_F64 ? ((const double*)p)[i] : (double)((const float*)p)[i];
}

void atck_stft_task(const int64_t* P, void** bufs, int64_t begin, int64_t) {
  const int64_t dt = P[0], B = P[1], S = P[2], ch = P[3], onesided = P[4], wlen = P[5], nin = P[6];
  const int64_t step = atck_index_at(bufs[1], P[8], 0);
  const int64_t fl = P[9] ? atck_index_at(bufs[3], P[9], 0) : (wlen ? wlen : S);
  const int64_t ws = wlen ? wlen : fl;  // samples per frame
  int valid = step >= 1 && fl >= 1 && fl <= S && fl <= 16384;
  const int64_t frames = valid ? 1 + (S - fl) / step : 0, bins = onesided ? fl / 2 + 1 : fl;
  // The direct DFT's multiply-adds, bounded as the DFT op's (2^32: seconds, not hours).
  if ((double)B * (double)frames * (double)bins * (double)(ws < fl ? ws : fl) > 4294967296.0) valid = 0;
  if (P[7] && !bufs[nin]) {
    if (begin != 0) return;
    const int64_t od[4] = {B, frames, bins, 2};
    if (valid) atck_rs_put(bufs[nin + 1], od, 4);
    else atck_rs_invalid(bufs[nin + 1], 4);
    return;
  }
  if (!valid) return;
  const double pi2 = 6.283185307179586476925286766559;
  const int64_t used = ws < fl ? ws : fl;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t f = 0; f < frames; ++f)
      for (int64_t k = 0; k < bins; ++k) {
        double re = 0, im = 0;
        for (int64_t n = 0; n < used; ++n) {
          const int64_t s = f * step + n;
          if (s >= S) break;
          const double w = wlen ? atck_stft_ld(bufs[2], dt, n) : 1.0;
          const double xr = atck_stft_ld(bufs[0], dt, (b * S + s) * ch) * w;
          const double xi = ch == 2 ? atck_stft_ld(bufs[0], dt, (b * S + s) * ch + 1) * w : 0.0;
          const double a = -pi2 * (double)((k * n) % fl) / (double)fl, c = __builtin_cos(a), sn = __builtin_sin(a);
          re += xr * c - xi * sn;
          im += xr * sn + xi * c;
        }
        const int64_t o = ((b * frames + f) * bins + k) * 2;
        atck_rs_store(bufs[nin], dt, o, re);
        atck_rs_store(bufs[nin], dt, o + 1, im);
      }
}
