// Kernel "maxpool_int": MaxPool on int8 / uint8 (ops/pool/pool.cpp), 1-3 spatial dims. Each
// output is the largest input in its window that lies inside the input (padding never wins);
// a window wholly in the padding gives the type's minimum.
// Params (never renumber): [0] dtype (ATCK_I8 / ATCK_U8), [1] N*C, [2] nd, [3..6) input dims,
// [6..9) output dims, [9..12) kernel, [12..15) strides, [15..18) dilations, [18..21) begin
// pads (outermost first; dims past nd are 1, their pads 0). bufs: X, Y.
// One task per (n, c) plane. 2-D windows on rows of up to kMaxRow bytes run in two vector
// passes per output row: the largest of the window's input rows, column by column (contiguous
// bytes), then the largest of each output's columns of that row, the outputs whose window lies
// inside the row first for every tap (strided loads), the edges tap by tap with bounds checks.
// The scalar loop (one bounds-checked tap at a time, 3-D windows and longer rows) took about
// 5 ns per output of a 3x3 window.
#include "kernels/lib/pool_band.h"
#include "kernels/lib/quant_common.h"

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

const int64_t kMaxRow = 4096;

// Outputs [a, b) of a row whose windows reach past the row's ends: the taps inside it.
template <class T>
ATCK_INLINE void edgeMax(const T* vm, T* yr, int64_t a, int64_t b, int64_t W, int64_t SW, int64_t PW, int64_t KW,
                         int64_t DW, T lowest) {
  for (int64_t ow = a; ow < b; ++ow) {
    T best = lowest;
    for (int64_t kw = 0; kw < KW; ++kw) {
      const int64_t iw = ow * SW - PW + kw * DW;
      if (iw >= 0 && iw < W) best = vm[iw] > best ? vm[iw] : best;
    }
    yr[ow] = best;
  }
}

// One output row of a 2-D window: vm holds the largest of the window's rows per column.
template <class T>
ATCK_INLINE void maxRow(const int64_t* P, const T* vm, T* yr, T lowest) {
  const int64_t W = P[4], OW = P[7], KW = P[10], SW = P[13], DW = P[16], PW = P[19];
  int64_t lo = (PW + SW - 1) / SW, hi = OW;  // outputs [lo, hi) have every tap inside the row
  const int64_t last = W - 1 + PW - (KW - 1) * DW;
  hi = last < 0 ? 0 : last / SW + 1;
  hi = hi < OW ? hi : OW;
  lo = lo < hi ? lo : hi;
  for (int64_t ow = lo; ow < hi; ++ow) {  // the taps in one iteration: LLVM vectorises strided loads so
    const T* w = vm + ow * SW - PW;
    T best = w[0];
    for (int64_t kw = 1; kw < KW; ++kw) best = w[kw * DW] > best ? w[kw * DW] : best;
    yr[ow] = best;
  }
  edgeMax<T>(vm, yr, 0, lo, W, SW, PW, KW, DW, lowest);
  edgeMax<T>(vm, yr, hi, OW, W, SW, PW, KW, DW, lowest);
}

template <class T>
ATCK_INLINE void maxPlane2d(const int64_t* P, const T* x, T* y, T lowest) {
  const int64_t H = P[3], W = P[4], OH = P[6], OW = P[7], KH = P[9], SH = P[12], DH = P[15], PH = P[18];
  T vm[kMaxRow];
  for (int64_t oh = 0; oh < OH; ++oh) {
    bool any = false;
    for (int64_t kh = 0; kh < KH; ++kh) {
      const int64_t ih = oh * SH - PH + kh * DH;
      if (ih < 0 || ih >= H) continue;
      const T* row = x + ih * W;
      if (!any) {
        for (int64_t j = 0; j < W; ++j) vm[j] = row[j];
      } else {
        for (int64_t j = 0; j < W; ++j) vm[j] = row[j] > vm[j] ? row[j] : vm[j];
      }
      any = true;
    }
    T* yr = y + oh * OW;
    if (!any) {
      for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = lowest;
      continue;
    }
    maxRow<T>(P, vm, yr, lowest);
  }
}

template <class T>
ATCK_INLINE void maxPlaneAny(const int64_t* P, const T* x, T* y, T lowest) {
  if (P[2] == 2 && P[4] <= kMaxRow) maxPlane2d<T>(P, x, y, lowest);
  else maxPlane<T>(P, x, y, lowest);
}
}  // namespace

int64_t atck_maxpool_int_ntasks(const int64_t* P) { return P[1]; }

void atck_maxpool_int_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t inPlane = P[3] * P[4] * P[5], outPlane = P[6] * P[7] * P[8];
  for (int64_t t = begin; t < end; ++t) {
    if (P[0] == ATCK_I8)
      maxPlaneAny<int8_t>(P, (const int8_t*)bufs[0] + t * inPlane, (int8_t*)bufs[1] + t * outPlane, (int8_t)-128);
    else
      maxPlaneAny<uint8_t>(P, (const uint8_t*)bufs[0] + t * inPlane, (uint8_t*)bufs[1] + t * outPlane, (uint8_t)0);
  }
}

// Kernel "avgpool_q8": average pooling of an 8-bit tensor, requantized (QuantizedAvgPool,
// ops/quant/quantized_avg_pool.cpp). Per output: the window's taps inside the input, x - x_zp
// summed exactly (int64), times x_scale, divided by the count (the pool kernel's pool_count:
// with count_include_pad the taps inside the padded extent, else those inside the input; per
// dim, multiplied), then QuantizeLinear's rounding: rint(v / y_scale) + y_zp, saturated.
// Params (never renumber): [0] X dtype, [1] Y dtype, [2] N*C, [3..6) input dims, [6..9) output
// dims, [9..12) kernel, [12..15) strides, [15..18) dilations, [18..21) begin pads, [21..24) end
// pads (outermost first; dims past the spatial ones 1, pads 0), [24] count_include_pad,
// [25] x_scale (double bits), [26] x_zp, [27] y_scale, [28] y_zp. bufs: X, x_scale, x_zp,
// y_scale, y_zp, Y. One task per (n, c) plane.
ATC_KERNEL(avgpool_q8)

namespace {
template <class T>
ATCK_INLINE int64_t q8WindowSum(const int64_t* P, const T* x, int64_t o0, int64_t o1, int64_t o2, int64_t* count) {
  const int64_t *in = P + 3, *k = P + 9, *s = P + 12, *d = P + 15, *pb = P + 18, *pe = P + 21;
  const int64_t o[3] = {o0, o1, o2};
  int64_t cnt = 1;
  for (int i = 0; i < 3; ++i) {
    const int64_t st = o[i] * s[i] - pb[i];
    cnt *= P[24] ? pool_taps(st, k[i], d[i], -pb[i], in[i] + pe[i]) : pool_taps(st, k[i], d[i], 0, in[i]);
  }
  *count = cnt;
  int64_t sum = 0;
  for (int64_t k0 = 0; k0 < k[0]; ++k0) {
    const int64_t i0 = o0 * s[0] - pb[0] + k0 * d[0];
    if (i0 < 0 || i0 >= in[0]) continue;
    for (int64_t k1 = 0; k1 < k[1]; ++k1) {
      const int64_t i1 = o1 * s[1] - pb[1] + k1 * d[1];
      if (i1 < 0 || i1 >= in[1]) continue;
      const T* row = x + (i0 * in[1] + i1) * in[2];
      int64_t rs = 0, taps = 0;
      for (int64_t k2 = 0; k2 < k[2]; ++k2) {
        const int64_t i2 = o2 * s[2] - pb[2] + k2 * d[2];
        const bool inside = i2 >= 0 && i2 < in[2];
        rs += inside ? (int64_t)row[inside ? i2 : 0] : 0;
        taps += inside ? 1 : 0;
      }
      sum += rs - taps * P[26];
    }
  }
  return sum;
}

template <class T, class Y>
ATCK_INLINE void q8AvgPlane(const int64_t* P, const T* x, Y* y) {
  const int64_t* out = P + 6;
  const float xs = (float)atck_d(P[25]), ys = (float)atck_d(P[27]), yz = (float)P[28];
  const float lo = P[1] == ATCK_I8 ? -128.0f : 0.0f, hi = P[1] == ATCK_I8 ? 127.0f : 255.0f;
  for (int64_t o0 = 0; o0 < out[0]; ++o0)
    for (int64_t o1 = 0; o1 < out[1]; ++o1)
      for (int64_t o2 = 0; o2 < out[2]; ++o2) {
        int64_t count = 0;
        const int64_t sum = q8WindowSum<T>(P, x, o0, o1, o2, &count);
        // No tap counted (a window wholly in the padding without count_include_pad): 0, as the
        // float pool writes, quantized.
        const float v = count > 0 ? (float)sum * xs / (float)count : 0.0f;
        y[(o0 * out[1] + o1) * out[2] + o2] = (Y)(int)atck_q_value(v / ys, yz, lo, hi);
      }
}

template <class T>
ATCK_INLINE void q8AvgPlaneTo(const int64_t* P, const T* x, void* y, int64_t outPlane, int64_t t) {
  if (P[1] == ATCK_I8) q8AvgPlane<T, int8_t>(P, x, (int8_t*)y + t * outPlane);
  else q8AvgPlane<T, uint8_t>(P, x, (uint8_t*)y + t * outPlane);
}
}  // namespace

int64_t atck_avgpool_q8_ntasks(const int64_t* P) { return P[2]; }

void atck_avgpool_q8_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t inPlane = P[3] * P[4] * P[5], outPlane = P[6] * P[7] * P[8];
  for (int64_t t = begin; t < end; ++t) {
    if (P[0] == ATCK_I8) q8AvgPlaneTo<int8_t>(P, (const int8_t*)bufs[0] + t * inPlane, bufs[5], outPlane, t);
    else q8AvgPlaneTo<uint8_t>(P, (const uint8_t*)bufs[0] + t * inPlane, bufs[5], outPlane, t);
  }
}
