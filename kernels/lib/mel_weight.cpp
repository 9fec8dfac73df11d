// mel_weight: MelWeightMatrix (opset 17), as the ONNX reference computes it (the mel edges in
// float32 like its numpy arithmetic, the bin positions in double, floored): Y [dft_length / 2 + 1,
// num_mel_bins] of triangular filters. The scalars come from the inputs, so Y is run-sized
// (kernels/lib/run_sized.h) unless all are constants; num_mel_bins < 1, dft_length < 1 or
// sample_rate < 1 is invalid. bufs = {num_mel_bins, dft_length, sample_rate, lower_edge_hertz,
// upper_edge_hertz, Y (+ slot)}; P = {Y dtype, run-sized, dtypes of the five inputs}.
#include "kernels/lib/run_sized.h"

ATC_KERNEL(mel_weight)

int64_t atck_mel_weight_ntasks(const int64_t*) { return 1; }

static inline ATCK_INLINE double atck_mel_ld(const void* p, int64_t dt) {
  switch (dt) {
    case ATCK_F32: return ((const float*)p)[0];
    case ATCK_F64: return ((const double*)p)[0];
    case ATCK_F16: return atck_h2f(((const uint16_t*)p)[0]);
    default: return (double)atck_index_at(p, dt, 0);
  }
}

void atck_mel_weight_task(const int64_t* P, void** bufs, int64_t begin, int64_t) {
  const int64_t nmb = atck_index_at(bufs[0], P[2], 0), dft = atck_index_at(bufs[1], P[3], 0);
  const int64_t sr = atck_index_at(bufs[2], P[4], 0);
  const int64_t rows = dft / 2 + 1;
  const int valid = nmb >= 1 && nmb <= 65536 && dft >= 1 && dft <= (1 << 24) && sr >= 1;
  if (P[1] && !bufs[5]) {
    if (begin != 0) return;
    const int64_t od[2] = {rows, nmb};
    if (valid) atck_rs_put(bufs[6], od, 2);
    else atck_rs_invalid(bufs[6], 2);
    return;
  }
  if (!valid) return;
  const float lo = (float)atck_mel_ld(bufs[3], P[5]), hi = (float)atck_mel_ld(bufs[4], P[6]);
  const float lm = 2595.0f * (float)__builtin_log10((double)(1.0f + lo / 700.0f));
  const float hm = 2595.0f * (float)__builtin_log10((double)(1.0f + hi / 700.0f));
  const float step = (hm - lm) / (float)(nmb + 2);
  void* y = bufs[5];
  for (int64_t i = 0; i < rows * nmb; ++i) atck_rs_store(y, P[0], i, 0.0);
  int64_t prev2 = 0, prev1 = 0;
  for (int64_t i = 0; i < nmb + 2; ++i) {
    const double mel = (double)i * (double)step + (double)lm;
    const double hz = 700.0 * (__builtin_pow(10.0, mel / 2595.0) - 1.0);
    const int64_t bin = (int64_t)__builtin_floor((double)(dft + 1) * hz / (double)sr);
    if (i >= 2) {  // filter i - 2: left prev2, centre prev1, right bin
      const int64_t f = i - 2, l = prev2, c = prev1, r = bin;
      if (c - l == 0) {
        if (c >= 0 && c < rows) atck_rs_store(y, P[0], c * nmb + f, 1.0);
      } else {
        for (int64_t j = l; j <= c; ++j)
          if (j >= 0 && j < rows) atck_rs_store(y, P[0], j * nmb + f, (double)(j - l) / (double)(c - l));
      }
      if (r - c > 0)
        for (int64_t j = c; j < r; ++j)
          if (j >= 0 && j < rows) atck_rs_store(y, P[0], j * nmb + f, (double)(r - j) / (double)(r - c));
    }
    prev2 = prev1;
    prev1 = bin;
  }
}
