// The band of the conv kernel's band paths (kernels/lib/conv.cpp, conv_ocm.h): a task's input
// rows, zero-padded and converted to float32, stored as stride phase planes so that every
// im2col row is read in place at a fixed offset. See docs/kernels-cube.md.
#pragma once
#include "kernels/lib/cube_gemm.h"
#include "kernels/lib/cube_params.h"

// The zero-padded band of input rows of one task, converted to float32, for each input channel
// of the group as SH x SW phase planes (space to depth): plane (phR, phC) row i, column j holds
// padded input row i * SH + phR, column j * SW + phC (one plane for stride 1). A plane has HBR =
// BROWS - 1 + (KH-1)*DH/SH + 1 rows of PQ = OW + (KW-1)*DW/SW floats; rows past the task's last
// needed row or outside the input are zeros. Tap (kh, kw) of output (oh, ow) is then at
// plane((kh*DH)%SH, (kw*DW)%SW) + (oh + kh*DH/SH) * PQ + ow + kw*DW/SW: linear in oh * PQ + ow,
// so 16 consecutive grid positions are 16 consecutive floats, across output rows too. After
// each channel's planes: zeros up to BPLANE, and 32 more after the last, so garbage lanes of
// the last tiles may read past the end.
// The planes of conv_band_fill and conv_band_fill_pairs for NC channels (or channel pairs) of
// BPLANE elements (T: float or 32-bit words): rows outside the input or past the task's last
// needed row and the columns outside [jlo, jhi) are zeros; fill(c, d, at, jlo, jhi) writes
// columns [jlo, jhi) of row d from input element at (relative to channel c's plane: column
// j is at at + j * SW). parts > 1 (the AMX split forms, conv_amx_split.h): the band is repeated
// parts times, pstride elements apart; the zeros go into every copy, fill writes all of them.
template <class T, class Fill>
static inline ATCK_INLINE void conv_band_planes(const int64_t* P, int64_t oh0, int64_t rows, int64_t NC, T* band,
                                                Fill fill, int64_t parts = 1, int64_t pstride = 0) {
  const int64_t IH = P[CV_IH], IW = P[CV_IW], KH = P[CV_KH], DH = P[CV_DH], SH = P[CV_SH], SW = P[CV_SW];
  const int64_t PH = P[CV_PH], PW = P[CV_PW], PQ = P[CV_PQ], HBR = CUBE_CONV_BAND_HBR(P), PLANE = HBR * PQ;
  const int64_t hb = (rows - 1) * SH + (KH - 1) * DH + 1;
  for (int64_t ic = 0; ic < NC; ++ic) {
    for (int64_t phr = 0; phr < SH; ++phr) {
      for (int64_t phc = 0; phc < SW; ++phc) {
        T* pl = band + ic * P[CV_BPLANE] + (phr * SW + phc) * PLANE;
        // Columns j with input column j * SW + phc - PW inside [0, IW).
        const int64_t jlo = cube_min(PQ, PW > phc ? (PW - phc + SW - 1) / SW : 0);
        const int64_t jhi = cube_max(jlo, cube_min(PQ, (IW + PW - phc + SW - 1) / SW));
        for (int64_t i = 0; i < HBR; ++i) {
          T* d = pl + i * PQ;
          const int64_t rr = i * SH + phr, ih = oh0 * SH - PH + rr;
          const int outside = rr >= hb || ih < 0 || ih >= IH;
          for (int64_t part = 0; part < parts; ++part) {
            T* dp = d + part * pstride;
            for (int64_t j = 0; j < (outside ? PQ : jlo); ++j) dp[j] = 0;
            if (!outside)
              for (int64_t j = jhi; j < PQ; ++j) dp[j] = 0;
          }
          if (!outside) fill(ic, d, ih * IW + phc - PW, jlo, jhi);
        }
      }
    }
    for (int64_t part = 0; part < parts; ++part)
      for (int64_t q = SH * SW * PLANE; q < P[CV_BPLANE] + (ic == NC - 1 && part == parts - 1 ? 32 : 0); ++q)
        band[part * pstride + ic * P[CV_BPLANE] + q] = 0;
  }
}

static inline ATCK_INLINE void conv_band_fill(const int64_t* P, const void* X, int64_t inOff,
                                                     int64_t oh0, int64_t rows, float* band) {
  const int64_t IHW = P[CV_IH] * P[CV_IW], SW = P[CV_SW], xdt = P[CV_DTYPE];
  conv_band_planes(P, oh0, rows, P[CV_C] / P[CV_G], band,
                   [&](int64_t ic, float* d, int64_t at, int64_t jlo, int64_t jhi) ATCK_INLINE {
                     const int64_t s0 = inOff + ic * IHW + at;
                     if (xdt == ATCK_F32) {
                       const float* sf = (const float*)X + s0;
                       if (SW == 1) cube_copy_f32(d + jlo, sf + jlo, jhi - jlo);  // vector moves
                       else
                         for (int64_t j = jlo; j < jhi; ++j) d[j] = sf[j * SW];
                     } else if (SW == 1) {  // 16-lane conversions
                       ATCK_VEC16
                       for (int64_t j = jlo; j < jhi; ++j) d[j] = cube_ldx(X, xdt, s0 + j);
                     } else {
                       for (int64_t j = jlo; j < jhi; ++j) d[j] = cube_ldx(X, xdt, s0 + j * SW);
                     }
                   });
}

// 32 bits at any 16-bit boundary: a stride-2 run of 16-bit values (s[2j], j < n) is the low halves
// of n consecutive 32-bit words, which vectorises as plain loads (no gathers).
typedef uint32_t conv_u32_u16al __attribute__((aligned(2), may_alias));

// d[j] = lo[2j] | hi[2j] << 16 for j < n (hm 0: hi ignored); the last value read alone, so
// nothing past lo[2(n - 1)] / hi[2(n - 1)] is read.
static inline ATCK_INLINE void conv_pairs_stride2(uint32_t* d, const uint16_t* lo, const uint16_t* hi, uint32_t hm,
                                                  int64_t n) {
  if (n <= 0) return;
  for (int64_t j = 0; j < n - 1; ++j)
    d[j] = (*(const conv_u32_u16al*)(lo + 2 * j) & 0xffffu) | (*(const conv_u32_u16al*)(hi + 2 * j) & hm) << 16;
  d[n - 1] = (uint32_t)lo[2 * (n - 1)] | ((uint32_t)hi[2 * (n - 1)] & hm) << 16;
}

// The band of conv_band_fill for the bfloat16 pair tiles (CV_BF16DP): channel pair p's planes
// hold 32-bit words, bfloat16 channel 2p in the low half and 2p + 1 (zero past Cg) in the high
// half; the same geometry (BPLANE words per pair) so conv_band_offsets over the KP pair rows
// gives each (p, kh, kw) row's start.
static inline ATCK_INLINE void conv_band_fill_pairs(const int64_t* P, const void* X, int64_t inOff, int64_t oh0,
                                                    int64_t rows, uint32_t* band) {
  const int64_t IHW = P[CV_IH] * P[CV_IW], SW = P[CV_SW], Cg = P[CV_C] / P[CV_G];
  const uint16_t* X16 = (const uint16_t*)X;
  conv_band_planes(P, oh0, rows, (Cg + 1) / 2, band,
                   [&](int64_t pi, uint32_t* d, int64_t at, int64_t jlo, int64_t jhi) ATCK_INLINE {
                     const uint16_t* lo = X16 + inOff + 2 * pi * IHW + at;
                     if (SW == 2) {  // strided convs (ResNet's downsampling 3x3): plain vector loads
                       const int last = 2 * pi + 1 >= Cg;
                       conv_pairs_stride2(d + jlo, lo + 2 * jlo, last ? lo + 2 * jlo : lo + IHW + 2 * jlo,
                                          last ? 0u : 0xffffu, jhi - jlo);
                     } else if (2 * pi + 1 >= Cg) {
                       for (int64_t j = jlo; j < jhi; ++j) d[j] = lo[j * SW];
                     } else if (SW == 1) {
                       const uint16_t* hi = lo + IHW;
                       for (int64_t j = jlo; j < jhi; ++j) d[j] = (uint32_t)lo[j] | (uint32_t)hi[j] << 16;
                     } else {
                       const uint16_t* hi = lo + IHW;
                       for (int64_t j = jlo; j < jhi; ++j) d[j] = (uint32_t)lo[j * SW] | (uint32_t)hi[j * SW] << 16;
                     }
                   });
}

// off[k] for k < K: where im2col row k = (ic, kh, kw) starts in the band (conv_band_fill).
static inline ATCK_INLINE void conv_band_offsets(const int64_t* P, int64_t K, int32_t* off) {
  const int64_t KH = P[CV_KH], KW = P[CV_KW], SH = P[CV_SH], SW = P[CV_SW], DH = P[CV_DH], DW = P[CV_DW];
  const int64_t PQ = P[CV_PQ], PLANE = CUBE_CONV_BAND_HBR(P) * PQ;
  for (int64_t k = 0; k < K; ++k) {
    const int64_t kw = k % KW, kh = (k / KW) % KH, ic = k / (KW * KH);
    off[k] = (int32_t)(ic * P[CV_BPLANE] + (((kh * DH) % SH) * SW + (kw * DW) % SW) * PLANE + (kh * DH) / SH * PQ +
                       (kw * DW) / SW);
  }
}

// The finished accumulator rows of the band paths (conv_band_task, conv_amx.h): for channels
// m0 .. mEnd (acc row m - m0, NQ floats apart) and output rows r < rows, the len values at
// acc[(m - m0) * NQ + r * PQ] go to Y at ybase + m * NPIX + r * len. The epilogue runs on the
// float32 row in place (written long before: no store-to-load forwarding to wait for, unlike a
// reload of the freshly copied output row), then the row is copied out, rounded for f16/bf16.
static inline ATCK_INLINE void conv_acc_rows_store(const int64_t* P, void** bufs, float* acc, int64_t NQ, int64_t PQ,
                                                   int64_t m0, int64_t mEnd, int64_t rows, int64_t len,
                                                   int64_t ybase) {
  const int64_t ydt = P[CV_ODT] ? P[CV_ODT] : ATCK_F32;
  const int64_t NPIX = P[CV_OD] * P[CV_OH] * P[CV_OW];
  for (int64_t m = m0; m < mEnd; ++m) {
    for (int64_t r = 0; r < rows; ++r) {
      float* a = acc + (m - m0) * NQ + r * PQ;
      const int64_t yoff = ybase + m * NPIX + r * len;
      const float* R = P[CV_EPI + 3] ? (const float*)bufs[P[CV_EPI + 3] - 1] + yoff : 0;
      for (int64_t q = 0; q < len; q += CUBE_NR)
        cube_epilogue_r(P + CV_EPI, R ? R + q : 0, a + q, 0, 1, cube_min(CUBE_NR, len - q));
      if (ydt != ATCK_F32) {
        uint16_t* y16 = (uint16_t*)bufs[P[CV_YIDX]] + yoff;
        if (ydt == ATCK_F16)
          for (int64_t q = 0; q < len; ++q) y16[q] = atck_f2h(a[q]);
        else
          for (int64_t q = 0; q < len; ++q) y16[q] = atck_f2bf(a[q]);
        continue;
      }
      float* y = (float*)bufs[P[CV_YIDX]] + yoff;
      for (int64_t q = 0; q < len; ++q) y[q] = a[q];
    }
  }
}

// Coordinates of a conv task (band, channel-major and im2col paths): pixel block nb, channel block
// mb, group g, batch n (nb fastest).
static inline ATCK_INLINE void conv_task_coords(const int64_t* P, int64_t task, int64_t* nb, int64_t* mb, int64_t* g,
                                                int64_t* n) {
  *nb = task % P[CV_NBLOCKS];
  task /= P[CV_NBLOCKS];
  *mb = task % P[CV_MBLOCKS];
  task /= P[CV_MBLOCKS];
  *g = task % P[CV_G];
  *n = task / P[CV_G];
}
