// The vectorised 2-D path of the pool kernel (PL_BAND): max and average pooling of column stride
// 1 without an Indices output. Per plane, bands of output rows: the band's input rows are copied
// into a padded tile of the task's workspace (pad value -inf for max, 0 for average, float16
// widened), so every tap reads 16 contiguous floats, then RG rows x CG 16-lane chunks of outputs reduce the KHxKW taps in independent
// registers (the scalar loop took ~11 cycles per output of a 3x3 window: GoogLeNet's inception
// MaxPools 2.3 ms of 16). The taps run in the scalar loop's order and padding adds +0 or compares
// with -inf, so results are bit-identical to it. Average: sum / (taps counted per dim, as the
// scalar path counts them), 0 where no tap counts.
#pragma once
#include "kernels/lib/cube_gemm.h"
#include "kernels/lib/cube_params.h"

// Taps k in [0, K) with lo <= s + k * d < hi.
static inline ATCK_INLINE int64_t pool_taps(int64_t s, int64_t K, int64_t d, int64_t lo, int64_t hi) {
  int64_t c = 0;
  for (int64_t k = 0; k < K; ++k) {
    int64_t x = s + k * d;
    c += (x >= lo && x < hi) ? 1 : 0;
  }
  return c;
}

// Average pooling divisor along one dim for the window starting at s (count_include_pad counts
// taps inside [-pad_begin, in + pad_end), else inside the input).
static inline ATCK_INLINE int64_t pool_count(const int64_t* P, int64_t s, int64_t K, int64_t d, int64_t pb,
                                             int64_t in, int64_t pe) {
  return P[PL_COUNT_PAD] ? pool_taps(s, K, d, -pb, in + pe) : pool_taps(s, K, d, 0, in);
}

// Padded copy of input rows [r0 - PH, r0 - PH + rows) of plane `ib` (element offset).
static inline ATCK_INLINE void pool_band_fill(const int64_t* P, const void* X, int64_t ib, int64_t r0, int64_t rows,
                                              float* pad, float pv) {
  const int64_t IH = P[PL_IH], IW = P[PL_IW], PH = P[PL_PH], PW = P[PL_PW], dt = P[PL_DTYPE];
  const int64_t PADW = P[PL_PADW], RS = PADW;
  const int64_t lo = cube_min(PW, PADW), hi = cube_min(PW + IW, PADW);
  for (int64_t rr = 0; rr < rows; ++rr) {
    float* d = pad + rr * RS;
    const int64_t ih = r0 + rr - PH;
    if (ih < 0 || ih >= IH) {
      for (int64_t q = 0; q < RS; ++q) d[q] = pv;
      continue;
    }
    const int64_t s = ib + ih * IW - PW;
    for (int64_t q = 0; q < lo; ++q) d[q] = pv;
    if (dt == ATCK_F32) {
      if (hi > lo) cube_copy_f32(d + lo, (const float*)X + s + lo, hi - lo);
    } else {
      ATCK_VEC16
      for (int64_t q = lo; q < hi; ++q) d[q] = atck_h2f(((const uint16_t*)X)[s + q]);
    }
    for (int64_t q = hi; q < PADW; ++q) d[q] = pv;
  }
}

template <int CG, int RG>
static inline ATCK_INLINE void pool_band_rows(const int64_t* P, void** bufs, const float* pad, const float* wdiv,
                                              int64_t pl, int64_t oh0, int64_t ohn) {
  const int64_t OH = P[PL_OH], OW = P[PL_OW], KH = P[PL_KH], KW = P[PL_KW], SH = P[PL_SH];
  const int64_t DH = P[PL_DH], DW = P[PL_DW], RS = P[PL_PADW];
  const int64_t kind = P[PL_KIND], dt = P[PL_DTYPE];
  const int64_t nch = OW >= 16 ? (OW + 15) / 16 : 1;
  const float init = kind == 0 ? -INFINITY : 0.0f;
  for (int64_t oh = oh0; oh < oh0 + ohn; oh += RG)
    for (int64_t c0 = 0; c0 < nch; c0 += CG) {
      int64_t row[RG], col[CG];
      cube_row_group<RG, CG>(oh, oh0, ohn, c0, nch, OW, row, col);
      atck_v16f acc[RG][CG];
      for (int r = 0; r < RG; ++r)
        for (int j = 0; j < CG; ++j) acc[r][j] = atck_splat16(init);
      for (int64_t kh = 0; kh < KH; ++kh)
        for (int64_t kw = 0; kw < KW; ++kw) {
          const int64_t tap = kh * DH * RS + kw * DW;
          for (int r = 0; r < RG; ++r) {
            const float* rp = pad + (row[r] - oh0) * SH * RS + tap;
            for (int j = 0; j < CG; ++j) {
              const atck_v16f v = atck_ld16(rp + col[j]);
              if (kind == 0) acc[r][j] = v > acc[r][j] ? v : acc[r][j];
              else acc[r][j] += v;
            }
          }
        }
      for (int r = 0; r < RG; ++r) {
        const float ch = kind == 1 ? (float)pool_count(P, row[r] * SH - P[PL_PH], KH, DH, P[PL_PH], P[PL_IH], P[PL_EH]) : 1.0f;
        for (int j = 0; j < CG; ++j) {
          atck_v16f v = acc[r][j];
          if (kind == 1) {
            const atck_v16f dv = atck_splat16(ch) * atck_ld16(wdiv + col[j]);
            const atck_v16f q = v / (dv > atck_splat16(0.0f) ? dv : atck_splat16(1.0f));
            v = dv > atck_splat16(0.0f) ? q : atck_splat16(0.0f);
          }
          // A narrow row's 16 lanes land in the rows after it (written later) but not past the plane.
          const int64_t nv = OW >= 16 || row[r] * OW + 16 <= OH * OW ? 16 : OW;
          cube_store16_dt(dt, bufs[P[PL_YIDX]], pl * OH * OW + row[r] * OW + col[j], v, nv);
        }
      }
    }
}

// Planes [pl0, pl1) of one task; slot: the width divisors (average), then the padded band.
static inline ATCK_INLINE void pool_band_planes(const int64_t* P, void** bufs, int64_t slotIndex, int64_t pl0,
                                                int64_t pl1) {
  const int64_t OH = P[PL_OH], OW = P[PL_OW], KH = P[PL_KH], SH = P[PL_SH], DH = P[PL_DH];
  const int64_t OWP = (OW + 15) / 16 * 16, BROWS = P[PL_BROWS];
  float* slot = cube_align(bufs[P[PL_YIDX] + 1]) + slotIndex * P[PL_SLOT];
  float* wdiv = slot;
  float* pad = slot + OWP;
  const float pv = P[PL_KIND] == 0 ? -INFINITY : 0.0f;
  for (int64_t q = 0; q < OWP; ++q)
    wdiv[q] = q < OW ? (float)pool_count(P, q * P[PL_SW] - P[PL_PW], P[PL_KW], P[PL_DW], P[PL_PW], P[PL_IW], P[PL_EW])
                     : 1.0f;
  const int64_t nch = OW >= 16 ? (OW + 15) / 16 : 1;
  for (int64_t pl = pl0; pl < pl1; ++pl)
    for (int64_t oh0 = 0; oh0 < OH; oh0 += BROWS) {
      const int64_t ohn = cube_min(BROWS, OH - oh0);
      pool_band_fill(P, bufs[0], pl * P[PL_IH] * P[PL_IW], oh0 * SH, (ohn - 1) * SH + (KH - 1) * DH + 1, pad, pv);
      if (nch >= 3) pool_band_rows<4, 2>(P, bufs, pad, wdiv, pl, oh0, ohn);
      else if (nch == 2) pool_band_rows<2, 4>(P, bufs, pad, wdiv, pl, oh0, ohn);
      else pool_band_rows<1, 8>(P, bufs, pad, wdiv, pl, oh0, ohn);
    }
}
