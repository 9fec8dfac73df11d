// The channel-major path of the conv kernel (CV_OCM; chosen by the lowering where it fills more
// lanes than the pixel-major tiles: small maps such as 7x7 and 14x14, and on 256-bit targets
// band convs and 1x1 convs with K > 512).
// Y^T[pixels][M] = col^T x W^T per group: 64 output channels per weight panel are the vector
// operand (cube_ukoc_t), 6 output pixels per tile the broadcast operand, read in place from
// the band of padded input rows (CV_BAND, conv_band.h) or, for unpadded 1x1 convs, from X itself
// (pixel (oh, ow) of channel ic at ic * IH * IW + oh * SH * IW + ow * SW) when it is float32, else
// from a float32 copy of the block's pixels made per K block (a force_fp16 build's 1x1 convs).
// Tiles accumulate in acc[panel][CV_OCM_ROWS pixels][64] in the task slot over the K blocks;
// the finished block is transposed 16x16 at a time into channel rows and stored with the
// epilogue (cube_store_dt: residual, activation, float16/bfloat16 rounding).
// Task = (n, group, block of CV_MB channels, block of pixels: CV_BROWS output rows for the band,
// CV_NB pixels otherwise). The bfloat16 pair tiles (CV_BF16DP, cube_ukbf.h) run the same way over
// pairs of input channels: a band of 32-bit channel-pair words, a 1x1's pairs interleaved per K
// block. Slot: off[K] (int32), gq[pixels] (int32, at CV_OCM_GQ) and, for a
// converted 1x1 input, the pixels' input offsets after it; the band or the converted rows
// (CV_BAND_OFF), acc (CV_ACC).
#pragma once
#include "kernels/lib/conv_band.h"
#include "kernels/lib/cube_ukbf.h"

// Pixels per task up to which the task walks each weight panel's K blocks in a row.
#define CUBE_OCM_PANEL_OUTER 64

static inline ATCK_INLINE void conv_ocm_store(const int64_t* P, void** bufs, const float* acc, int64_t yoff,
                                              int64_t mr, int64_t np, int64_t NR) {
  const int64_t ydt = P[CV_ODT] ? P[CV_ODT] : ATCK_F32;
  const int64_t NPIX = P[CV_OD] * P[CV_OH] * P[CV_OW];
  // mr channels (<= NR, the panel width) of one panel; acc: [ROWS][NR].
  for (int64_t c = 0; c < mr; c += 16) {
    for (int64_t p = 0; p < np; p += 16) {
      float t[256] __attribute__((aligned(64)));
      cube_transpose16(acc + p * NR + c, NR, t);
      cube_store_dt(P + CV_EPI, bufs, ydt, bufs[P[CV_YIDX]], yoff + c * NPIX + p, NPIX, t, 16, cube_min(16, mr - c),
                    cube_min(16, np - p));
    }
  }
}

// A 1x1 conv's K block (rows k0 .. k0 + kc) of a float16 / bfloat16 X as float32 rows [kc][NPB]
// at xb (BF = 0), or, for the pair tiles (BF = 1), pair rows kp0 .. kp0 + kc as 32-bit words
// [kc][NPB] (channel 2kp low, 2kp + 1 high, zero past Cg). gpix: the pixels' input offsets.
template <int BF>
static inline ATCK_INLINE void conv_ocm_convert_block(const int64_t* P, void** bufs, int64_t inOff, int64_t k0,
                                                      int64_t kc, int64_t p0, int64_t np, const int32_t* gpix,
                                                      float* xb) {
  const int64_t xdt = P[CV_DTYPE], NPB = P[CV_OCM_ROWS], IHW = P[CV_IH] * P[CV_IW], Cg = P[CV_C] / P[CV_G];
  const uint16_t* x16 = (const uint16_t*)bufs[0] + inOff;
  const int unit = P[CV_SH] == 1 && P[CV_SW] == 1;  // the block's pixels are contiguous: vector code
  if (BF) {
    uint32_t* d32 = (uint32_t*)xb;
    for (int64_t k = 0; k < kc; ++k) {
      const int64_t c = 2 * (k0 + k);
      const uint16_t* lo = x16 + c * IHW;
      const uint16_t* hi = c + 1 < Cg ? lo + IHW : lo;
      const uint32_t hm = c + 1 < Cg ? 0xffffu : 0u;
      uint32_t* d = d32 + k * NPB;
      if (unit)
        for (int64_t p = 0; p < np; ++p) d[p] = (uint32_t)lo[p0 + p] | ((uint32_t)hi[p0 + p] & hm) << 16;
      else
        for (int64_t p = 0; p < np; ++p) d[p] = (uint32_t)lo[gpix[p]] | ((uint32_t)hi[gpix[p]] & hm) << 16;
    }
    return;
  }
  for (int64_t k = 0; k < kc; ++k) {
    float* d = xb + k * NPB;
    if (unit) {
      const uint16_t* src = x16 + (k0 + k) * IHW + p0;
      if (xdt == ATCK_F16) {
        ATCK_VEC16
        for (int64_t p = 0; p < np; ++p) d[p] = atck_h2f(src[p]);
      } else {
        ATCK_VEC16
        for (int64_t p = 0; p < np; ++p) d[p] = atck_bf2f(src[p]);
      }
    } else {
      for (int64_t p = 0; p < np; ++p) d[p] = cube_ldx(bufs[0], xdt, inOff + (k0 + k) * IHW + gpix[p]);
    }
  }
}

// NV: vectors per panel (CV_OCM: 4, 64-channel panels and 6-pixel tiles; 2, 32-channel panels and
// 8-pixel tiles; 1, 16-channel panels and 6-pixel tiles, the 256-bit targets' form). BF: the
// bfloat16 pair tiles (CV_BF16DP): K counts pairs of input channels.
template <int NV, int BF>
static inline ATCK_INLINE void conv_ocm_task_t(const int64_t* P, void** bufs, int64_t task, float* slot) {
  constexpr int64_t NR = NV * 16, PR = CUBE_OC_ROWS(NV);
  const int64_t G = P[CV_G], C = P[CV_C], OC = P[CV_OC];
  const int64_t M = OC / G, Cg = C / G, KH = P[CV_KH], KW = P[CV_KW];
  const int64_t K = (BF ? (Cg + 1) / 2 : Cg) * KH * KW, MP = (M + NR - 1) / NR;
  const int64_t OH = P[CV_OH], OW = P[CV_OW], NPIX = OH * OW, IHW = P[CV_IH] * P[CV_IW];
  const int64_t MB = P[CV_MB], KC = P[CV_KC], ROWS = P[CV_OCM_ROWS];
  int64_t nb, mb, g, n;
  conv_task_coords(P, task, &nb, &mb, &g, &n);
  const int64_t m0 = mb * MB, mEnd = cube_min(M, m0 + MB);
  int32_t* off = (int32_t*)slot;
  int32_t* gq = (int32_t*)(slot + P[CV_OCM_GQ]);
  // 1x1 on a float16 / bfloat16 X: the input offsets of the block's pixels (after gq), and the
  // K block of converted rows at CV_BAND_OFF ([KC][NPB] floats or pair words).
  int32_t* gpix = gq + P[CV_OCM_ROWS];
  const int64_t xdt = P[CV_DTYPE], NPB = P[CV_OCM_ROWS];
  const int cvt = BF || xdt != ATCK_F32;
  float* acc = slot + P[CV_ACC];
  const int64_t inOff = (n * C + g * Cg) * IHW;
  const float* B;
  int64_t p0, np;
  if (P[CV_BAND]) {
    const int64_t oh0 = nb * P[CV_BROWS], rows = cube_min(P[CV_BROWS], OH - oh0);
    p0 = oh0 * OW;
    np = rows * OW;
    if (rows <= 0 || m0 >= mEnd) return;
    float* band = slot + P[CV_BAND_OFF];
    conv_band_offsets(P, K, off);
    if (BF) conv_band_fill_pairs(P, bufs[0], inOff, oh0, rows, (uint32_t*)band);
    else conv_band_fill(P, bufs[0], inOff, oh0, rows, band);
    for (int64_t p = 0; p < np; ++p) gq[p] = (int32_t)(p / OW * P[CV_PQ] + p % OW);
    B = band;
  } else {  // 1x1, unpadded: float32 X read in place, else converted per K block (below)
    p0 = nb * P[CV_NB];
    np = cube_min(P[CV_NB], NPIX - p0);
    if (np <= 0 || m0 >= mEnd) return;
    for (int64_t k = 0; k < K; ++k) off[k] = (int32_t)(!cvt ? k * IHW : (k % KC) * NPB);
    for (int64_t p = 0; p < np; ++p) {
      const int64_t oh = (p0 + p) / OW, ow = (p0 + p) % OW;
      const int64_t at = oh * P[CV_SH] * P[CV_IW] + ow * P[CV_SW];
      gq[p] = (int32_t)(!cvt ? at : p);
      if (cvt) gpix[p] = (int32_t)at;
    }
    B = !cvt ? (const float*)bufs[0] + inOff : slot + P[CV_BAND_OFF];
  }
  const float* W = (const float*)bufs[1];
  const float* Bias = P[CV_HAS_BIAS] ? (const float*)bufs[2] + g * M : 0;
  const int dp = BF && cube_bf16dp_usable(P[CV_BF16DP]);
  // The pixels in ceil(np / PR) tiles of equal size (+-1): a ragged last tile of 1 or 2 pixels
  // costs most of a full one (its few accumulators wait on the FMA latency); a 7x7 map takes
  // 4 x 6 + 5 x 5 pixels instead of 8 x 6 + 1 (ResNet's 512-channel 3x3 convs: -5%).
  const int64_t ntiles = (np + PR - 1) / PR, tsmall = np / ntiles, tbig = np % ntiles;
  auto tileRows = [&](int64_t t) ATCK_INLINE { return tsmall + (t < tbig ? 1 : 0); };
  // The tiles of K block k0 (kc rows) for the NR channels at m.
  auto block = [&](int64_t k0, int64_t kc, int64_t m) ATCK_INLINE {
      CubeOcInit init;
      for (int v = 0; v < 4; ++v) init.v[v] = atck_splat16(0.0f);
      if (Bias && k0 == 0) {
        float pb[NR] __attribute__((aligned(64)));
        for (int64_t i = 0; i < NR; ++i) pb[i] = m + i < M ? Bias[m + i] : 0.0f;
        for (int v = 0; v < NV; ++v) init.v[v] = atck_ld16(pb + v * 16);
      }
      float* a = acc + (m - m0) * ROWS;
      if constexpr (BF != 0) {
        const uint16_t* Wp = (const uint16_t*)bufs[1] + ((g * MP + m / NR) * K + k0) * NR * 2;
        const uint32_t* B32 = (const uint32_t*)B;
        const int32_t* ok = off + k0;
        auto prow = [&](int64_t kp) ATCK_INLINE { return B32 + ok[kp]; };
        for (int64_t t = 0, p = 0; t < ntiles; p += tileRows(t), ++t) {
          int64_t q[8];
          const int64_t pr = tileRows(t);
          for (int i = 0; i < 8; ++i) q[i] = i < pr ? gq[p + i] : 0;
          cube_ukbf_tile<NV>(dp, pr, kc, Wp, NR * 2, prow, q, a + p * NR, NR, k0 > 0, init);
        }
      } else {
        const float* Wp = W + ((g * MP + m / NR) * K + k0) * NR;
        for (int64_t t = 0, p = 0; t < ntiles; p += tileRows(t), ++t)
          cube_ukoc<NV>(tileRows(t), kc, Wp, B, off + k0, gq + p, a + p * NR, k0 > 0, init);
      }
  };
  if (np <= CUBE_OCM_PANEL_OUTER && !(cvt && !P[CV_BAND])) {
    // Few pixels (7x7 maps): each K block of a weight panel serves few tiles, so the panel's
    // blocks are walked in memory order (one sequential stream the prefetchers follow) instead
    // of jumping K * NR floats to the next panel's block after each.
    for (int64_t m = m0; m < mEnd; m += NR)
      for (int64_t k0 = 0; k0 < K; k0 += KC) block(k0, cube_min(KC, K - k0), m);
  } else {
    for (int64_t k0 = 0; k0 < K; k0 += KC) {
      const int64_t kc = cube_min(KC, K - k0);
      if (!P[CV_BAND] && cvt) conv_ocm_convert_block<BF>(P, bufs, inOff, k0, kc, p0, np, gpix, slot + P[CV_BAND_OFF]);
      for (int64_t m = m0; m < mEnd; m += NR) block(k0, kc, m);
    }
  }
  for (int64_t m = m0; m < mEnd; m += NR)
    conv_ocm_store(P, bufs, acc + (m - m0) * ROWS, (n * OC + g * M + m) * NPIX + p0, cube_min(NR, mEnd - m),
                   np, NR);
}

static inline ATCK_INLINE void conv_ocm_task(const int64_t* P, void** bufs, int64_t task, float* slot) {
  if (P[CV_BF16DP]) {
    if (P[CV_OCM] == 2) conv_ocm_task_t<2, 1>(P, bufs, task, slot);
    else conv_ocm_task_t<4, 1>(P, bufs, task, slot);
  } else {
    if (P[CV_OCM] == 2) conv_ocm_task_t<2, 0>(P, bufs, task, slot);
    else if (P[CV_OCM] == 1) conv_ocm_task_t<1, 0>(P, bufs, task, slot);
    else conv_ocm_task_t<4, 0>(P, bufs, task, slot);
  }
}
