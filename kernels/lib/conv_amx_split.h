// The split form of the AMX conv (CV_AMX_PARTS 2, docs/kernels-cube.md "AMX conv"): float16 X and
// W on tdpbf16ps. Each float16 value (11 significant bits) is the exact sum of two bfloat16 parts
// (8 bits each): x0 = x rounded to nearest, x1 = x - x0. The tiles sum three part products per
// pair, w0 x0 + w1 x0 + w0 x1; the dropped w1 x1 is below 2^-18 |w x|, far under float16's own
// rounding of x and w (2^-11), and the products are exact in the float32 accumulators. The band
// (or 1x1 pair rows) holds each part's planes CV_AMX_PSTRIDE words apart; the weights are packed
// with the parts of a step side by side. The parts of the code take a part count so that a
// three-part float32 form could use them: measured, it did not pay (docs/kernels-cube.md).
#pragma once
#include "kernels/lib/bf16_split.h"
#include "kernels/lib/conv_band.h"

// Products of the forms (1 or 2 parts): (weight part, band part), ordered so that consecutive
// products share a tile pair (conv_amx_block_split reloads only the operand that changes).
static inline ATCK_INLINE int64_t conv_amx_nprod(int64_t parts) { return parts == 1 ? 1 : 3; }
static inline ATCK_INLINE int conv_amx_prod_part(int64_t parts, int64_t j, int band) {
  static const signed char two[3][2] = {{0, 0}, {1, 0}, {0, 1}};
  return parts == 1 ? 0 : two[j][band];
}

static inline ATCK_INLINE float conv_amx_val(float x) { return x; }
static inline ATCK_INLINE float conv_amx_val(uint16_t x) { return atck_h2f(x); }  // float16

// Pair words of lo[j * sw] and hi[j * sw] (hi null: zero) for j < n.
template <int NP, class T>
static inline ATCK_INLINE void conv_amx_split_run(uint32_t* d, int64_t ps, const T* lo, const T* hi, int64_t sw,
                                                  int64_t n) {
  if (!hi) {
    for (int64_t j = 0; j < n; ++j) atck_bf16_split_word<NP>(d + j, ps, conv_amx_val(lo[j * sw]), 0.0f);
  } else if (sw == 1) {
    for (int64_t j = 0; j < n; ++j) atck_bf16_split_word<NP>(d + j, ps, conv_amx_val(lo[j]), conv_amx_val(hi[j]));
  } else {
    for (int64_t j = 0; j < n; ++j)
      atck_bf16_split_word<NP>(d + j, ps, conv_amx_val(lo[j * sw]), conv_amx_val(hi[j * sw]));
  }
}

// The same from float16 X at element offsets lo and hi (-1: zero).
static inline ATCK_INLINE void conv_amx_split_x(uint32_t* d, int64_t ps, const void* X, int64_t lo, int64_t hi,
                                                int64_t sw, int64_t n) {
  const uint16_t* x = (const uint16_t*)X;
  conv_amx_split_run<2>(d, ps, x + lo, hi >= 0 ? x + hi : (const uint16_t*)0, sw, n);
}

// The pair band of conv_band_fill_pairs, each part's planes CV_AMX_PSTRIDE words after the last's.
static inline ATCK_INLINE void conv_band_fill_split(const int64_t* P, const void* X, int64_t inOff, int64_t oh0,
                                                    int64_t rows, uint32_t* band) {
  const int64_t IHW = P[CV_IH] * P[CV_IW], SW = P[CV_SW], Cg = P[CV_C] / P[CV_G], ps = P[CV_AMX_PSTRIDE];
  conv_band_planes(
      P, oh0, rows, (Cg + 1) / 2, band,
      [&](int64_t pi, uint32_t* d, int64_t at, int64_t jlo, int64_t jhi) ATCK_INLINE {
        const int64_t lo = inOff + 2 * pi * IHW + at + jlo * SW;
        conv_amx_split_x(d + jlo, ps, X, lo, 2 * pi + 1 < Cg ? lo + IHW : -1, SW, jhi - jlo);
      },
      P[CV_AMX_PARTS], ps);
}

// conv_amx_pairs_1x1 for the split forms: pixels p0 .. p0 + np of one group (X + inOff) as pair rows
// [KPT][NQ] per part.
static inline ATCK_INLINE void conv_amx_split_1x1(const int64_t* P, const void* X, int64_t inOff, int64_t p0,
                                                  int64_t np, int64_t NQ, int64_t KPT, const int32_t* pix,
                                                  uint32_t* d) {
  const int64_t Cg = P[CV_C] / P[CV_G], IHW = P[CV_IH] * P[CV_IW];
  const int64_t parts = P[CV_AMX_PARTS], ps = P[CV_AMX_PSTRIDE];
  for (int64_t kp = 0; kp < KPT; ++kp) {
    uint32_t* row = d + kp * NQ;
    const int64_t c = 2 * kp;
    if (c >= Cg) {
      for (int64_t q = 0; q < parts; ++q)
        for (int64_t p = 0; p < NQ; ++p) row[q * ps + p] = 0;
      continue;
    }
    const int64_t lo = inOff + c * IHW, hi = c + 1 < Cg ? lo + IHW : -1;
    if (!pix) {
      conv_amx_split_x(row, ps, X, lo + p0, hi >= 0 ? hi + p0 : -1, 1, np);
      continue;
    }
    for (int64_t p = 0, run; p < np; p += run) {  // per output row, a run of stride SW
      run = cube_min(np - p, P[CV_OW] - (p0 + p) % P[CV_OW]);
      conv_amx_split_x(row + p, ps, X, lo + pix[p], hi >= 0 ? hi + pix[p] : -1, P[CV_SW], run);
    }
  }
}

// conv_amx_col_rows for the split forms: the input rows as a float32 band (conv_band_fill), then
// the parts of im2col rows 2r and 2r + 1 as pair rows [KPT][NQ] per part, zero rows past K.
static inline ATCK_INLINE void conv_amx_col_split(const int64_t* P, const void* X, int64_t inOff, int64_t oh0,
                                                  int64_t rows, int64_t nq, float* band, int32_t* off, uint32_t* d) {
  const int64_t K = P[CV_C] / P[CV_G] * P[CV_KH] * P[CV_KW], KPT = P[CV_KC], NQ = P[CV_NQ];
  const int64_t parts = P[CV_AMX_PARTS], ps = P[CV_AMX_PSTRIDE], nq32 = (nq + 31) / 32 * 32;
  conv_band_fill(P, X, inOff, oh0, rows, band);
  conv_band_offsets(P, K, off);
  for (int64_t r = 0; r < KPT; ++r) {
    uint32_t* row = d + r * NQ;
    if (2 * r >= K) {
      for (int64_t q = 0; q < parts; ++q)
        for (int64_t p = 0; p < nq32; ++p) row[q * ps + p] = 0;
      continue;
    }
    const float* lo = band + off[2 * r];
    const float* hi = 2 * r + 1 < K ? band + off[2 * r + 1] : (const float*)0;
    conv_amx_split_run<2>(row, ps, lo, hi, 1, nq32);
  }
}
