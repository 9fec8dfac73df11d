// The AMX path of the conv kernel (CV_AMX: bfloat16 X and weights on targets with AMX-BF16,
// docs/kernels-cube.md "AMX conv"). The product is taken as Y[oc][grid] = W[oc][K] x band[K][grid]
// per group, so that neither operand needs a transpose:
//   W, tdpbf16ps's first operand: packed at compile time as [G][MT][S][16 oc][16 pairs][2]
//     bfloat16 (MT 16-channel tiles, an even count; step s = pb * KHW + tap: pair block pb of 16
//     input channel pairs at one tap), so a step's tile is 1 KB read with a 64-byte row stride;
//   the band, the second operand ("VNNI" layout: 16 rows of 16 pairs): the pair band of
//     conv_band_fill_pairs, 32-bit words of channels 2p and 2p + 1 per grid position. A step's 16
//     pair rows at one tap are 16 planes BPLANE words apart, 16 consecutive grid positions are one
//     64-byte row. The pairs are padded to CV_KC (a multiple of 16) with zero planes. An unpadded
//     1x1 conv interleaves its block's pixels into [CV_KC][NQ] pair rows instead (strided ones
//     through a table of pixel offsets);
//   C: 32 x 32 blocks (2 x 2 tiles: two weight tiles, two band tiles, four tdpbf16ps per step)
//     into a float32 block acc[32][NQ] started from bias tiles; each 32-channel block is then
//     finished (epilogue, rounding) by conv_acc_rows_store while it is in cache.
// Grid positions past a row's OW (and past the block) are computed from whatever the band holds
// there and dropped: a column of C depends only on the same column of the band.
// Tasks run with the channel block fastest (conv_amx_coords), so the tasks of one range that share
// a pixel block fill its band once; the tile configuration is loaded once per range. Convs with few
// input channels (CV_AMX_COL: 3-channel stems) take pairs of im2col rows instead of channel pairs.
// Float16 convs take the same path on two bfloat16 parts per value (CV_AMX_PARTS, conv_amx_split.h).
#pragma once
#include "kernels/lib/conv_amx_split.h"
#include "kernels/lib/conv_band.h"
#include "kernels/lib/cube_amx.h"

// Task coordinates of the AMX path: channel block mb fastest, then pixel block nb, group, batch.
static inline ATCK_INLINE void conv_amx_coords(const int64_t* P, int64_t task, int64_t* nb, int64_t* mb, int64_t* g,
                                               int64_t* n) {
  *mb = task % P[CV_MBLOCKS];
  task /= P[CV_MBLOCKS];
  *nb = task % P[CV_NBLOCKS];
  task /= P[CV_NBLOCKS];
  *g = task % P[CV_G];
  *n = task / P[CV_G];
}

// Steps of 16 channel pairs: KH * KW taps of CV_KC pairs, or CV_KC im2col pairs (CV_AMX_COL).
static inline ATCK_INLINE int64_t conv_amx_steps(const int64_t* P) {
  return (P[CV_AMX_COL] ? 1 : P[CV_KH] * P[CV_KW]) * P[CV_KC] / 16;
}

// True when the kernel may run tdpbf16ps here (flag 1 and a host with AMX-BF16).
static inline int conv_amx_hw(int64_t flag) { return flag == 1 && cube_amx_usable(3); }

#if CUBE_HAVE_AMX
CUBE_AMX_TARGET static inline void conv_amx_config(void) {
  struct AtckAmxCfg cfg;
  atck_amx_cfg_init(&cfg);
  for (int t = 0; t < 8; ++t) atck_amx_cfg_tile(&cfg, t, 16, 64);
  ATCK_AMX_BARRIER(&cfg);
  _tile_loadconfig(&cfg);
}

CUBE_AMX_TARGET static inline void conv_amx_release(void) { _tile_release(); }

// The four C tiles (channels x columns: 0-15 x 0-15, 0-15 x 16-31, 16-31 x 0-15, 16-31 x 16-31) from
// the bias tiles [32][16] (each row its channel's bias), or zeros; stored to C[32][32], ldc floats
// per row.
CUBE_AMX_TARGET static inline ATCK_INLINE void conv_amx_c_init(const float* bias) {
  if (bias) {
    _tile_loadd(0, bias, 64);
    _tile_loadd(1, bias, 64);
    _tile_loadd(2, bias + 256, 64);
    _tile_loadd(3, bias + 256, 64);
  } else {
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
  }
}

CUBE_AMX_TARGET static inline ATCK_INLINE void conv_amx_c_store(float* C, int64_t ldc) {
  const int64_t cs = ldc * 4;
  _tile_stored(0, C, cs);
  _tile_stored(1, C + 16, cs);
  _tile_stored(2, C + 16 * ldc, cs);
  _tile_stored(3, C + 16 * ldc + 16, cs);
  ATCK_AMX_BARRIER(C);
}

// C[32][32] (rows ldc floats apart) = bias (tiles [32][16], or zeros) + the S steps: step s
// multiplies weight tiles W + s * 512 (channels 0-15) and W + wpair + s * 512 (16-31) by the band
// rows at B + boff[s] (16 pair rows bstride bytes apart; columns 0-15 and 16-31).
// Tiles: 0-3 C (channels x columns: 0-15 x 0-15, 0-15 x 16-31, 16-31 x 0-15, 16-31 x 16-31),
// 4 / 5 the weights, 6 / 7 the band.
CUBE_AMX_TARGET __attribute__((noinline)) static void conv_amx_block(int64_t S, const uint16_t* W, int64_t wpair,
                                                                     const uint32_t* B, const int32_t* boff,
                                                                     int64_t bstride, float* C, int64_t ldc,
                                                                     const float* bias) {
  conv_amx_c_init(bias);
  for (int64_t s = 0; s < S; ++s) {
    const uint32_t* b = B + boff[s];
    _tile_loadd(4, W + s * 512, 64);
    _tile_loadd(6, b, bstride);
    _tile_dpbf16ps(0, 4, 6);
    _tile_loadd(7, b + 16, bstride);
    _tile_dpbf16ps(1, 4, 7);
    _tile_loadd(5, W + wpair + s * 512, 64);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  conv_amx_c_store(C, ldc);
}

// conv_amx_block for the split form (parts 2): step s holds the parts' weight tiles side by side
// (W + (s * parts + part) * 512) and its band rows at B + boff[s] + part * pstride; the products of
// conv_amx_prod_part, a weight or band tile pair reloaded only when its part changes.
CUBE_AMX_TARGET __attribute__((noinline)) static void conv_amx_block_split(int64_t S, int64_t parts,
                                                                           const uint16_t* W, int64_t wpair,
                                                                           const uint32_t* B, const int32_t* boff,
                                                                           int64_t pstride, int64_t bstride,
                                                                           float* C, int64_t ldc, const float* bias) {
  const int64_t nprod = conv_amx_nprod(parts);
  conv_amx_c_init(bias);
  for (int64_t s = 0; s < S; ++s) {
    const uint16_t* w = W + s * parts * 512;
    const uint32_t* b = B + boff[s];
    int lw = -1, lx = -1;
    for (int64_t j = 0; j < nprod; ++j) {
      const int pw = conv_amx_prod_part(parts, j, 0), px = conv_amx_prod_part(parts, j, 1);
      if (pw != lw) {
        _tile_loadd(4, w + pw * 512, 64);
        _tile_loadd(5, w + wpair + pw * 512, 64);
        lw = pw;
      }
      if (px != lx) {
        _tile_loadd(6, b + px * pstride, bstride);
        _tile_loadd(7, b + px * pstride + 16, bstride);
        lx = px;
      }
      _tile_dpbf16ps(0, 4, 6);
      _tile_dpbf16ps(1, 4, 7);
      _tile_dpbf16ps(2, 5, 6);
      _tile_dpbf16ps(3, 5, 7);
    }
  }
  conv_amx_c_store(C, ldc);
}
#endif

// conv_amx_block's and conv_amx_block_split's sums in plain code (hosts without AMX, and tests):
// float32 products of the bfloat16 values (parts), accumulated per channel pair.
static inline void conv_amx_block_plain(int64_t S, int64_t parts, const uint16_t* W, int64_t wpair,
                                        const uint32_t* B, const int32_t* boff, int64_t pstride, int64_t bstride,
                                        float* C, int64_t ldc, const float* bias) {
  for (int64_t i = 0; i < 32; ++i) {
    float acc[32];
    for (int64_t j = 0; j < 32; ++j) acc[j] = bias ? bias[i * 16] : 0.0f;
    for (int64_t s = 0; s < S; ++s) {
      for (int64_t pr = 0; pr < conv_amx_nprod(parts); ++pr) {
        const int64_t pw = conv_amx_prod_part(parts, pr, 0), px = conv_amx_prod_part(parts, pr, 1);
        const uint16_t* w = W + (i < 16 ? 0 : wpair) + (s * parts + pw) * 512 + (i % 16) * 32;
        for (int64_t r = 0; r < 16; ++r) {
          const uint32_t* row = (const uint32_t*)((const char*)(B + boff[s] + px * pstride) + r * bstride);
          const float w0 = atck_bf2f(w[2 * r]), w1 = atck_bf2f(w[2 * r + 1]);
          for (int64_t j = 0; j < 32; ++j)
            acc[j] += w0 * atck_bf2f((uint16_t)(row[j] & 0xffffu)) + w1 * atck_bf2f((uint16_t)(row[j] >> 16));
        }
      }
    }
    for (int64_t j = 0; j < 32; ++j) C[i * ldc + j] = acc[j];
  }
}

// An unpadded 1x1 conv's pixels p0 .. p0 + np of one group as pair rows [KPT][NQ] (32-bit words,
// channel 2kp low, 2kp + 1 high; zero rows past the group's Cg channels). pix: the pixels' input
// offsets (strided convs), or null for unit stride (contiguous pixels).
static inline ATCK_INLINE void conv_amx_pairs_1x1(const int64_t* P, const uint16_t* X, int64_t p0, int64_t np,
                                                  int64_t NQ, int64_t KPT, const int32_t* pix, uint32_t* d) {
  const int64_t Cg = P[CV_C] / P[CV_G], IHW = P[CV_IH] * P[CV_IW];
  for (int64_t kp = 0; kp < KPT; ++kp) {
    uint32_t* row = d + kp * NQ;
    const int64_t c = 2 * kp;
    if (c >= Cg) {
      for (int64_t p = 0; p < NQ; ++p) row[p] = 0;
      continue;
    }
    const uint16_t* lo = X + c * IHW;
    const uint16_t* hi = c + 1 < Cg ? lo + IHW : lo;
    const uint32_t hm = c + 1 < Cg ? 0xffffu : 0u;
    if (!pix) {
      for (int64_t p = 0; p < np; ++p) row[p] = (uint32_t)lo[p0 + p] | ((uint32_t)hi[p0 + p] & hm) << 16;
    } else if (P[CV_SW] == 2) {  // per output row, a stride-2 run: plain vector loads
      for (int64_t p = 0, run; p < np; p += run) {
        run = cube_min(np - p, P[CV_OW] - (p0 + p) % P[CV_OW]);
        conv_pairs_stride2(row + p, lo + pix[p], hi + pix[p], hm, run);
      }
    } else {
      for (int64_t p = 0; p < np; ++p) row[p] = (uint32_t)lo[pix[p]] | ((uint32_t)hi[pix[p]] & hm) << 16;
    }
  }
}

// The im2col form (CV_AMX_COL: convs with few input channels, such as 3-channel stems, whose pair
// band would be mostly zero planes): the task's input rows as a bfloat16 band (band geometry, one
// value per position), then pair rows [KPT][NQ] of im2col rows 2r and 2r + 1 (k = (ic, kh, kw):
// two contiguous runs of the band interleaved), zero rows past K. off: K row offsets.
static inline ATCK_INLINE void conv_amx_col_rows(const int64_t* P, const void* X, int64_t inOff, int64_t oh0,
                                                 int64_t rows, int64_t nq, uint16_t* band, int32_t* off,
                                                 uint32_t* d) {
  const int64_t Cg = P[CV_C] / P[CV_G], K = Cg * P[CV_KH] * P[CV_KW], KPT = P[CV_KC], NQ = P[CV_NQ];
  const int64_t IHW = P[CV_IH] * P[CV_IW], SW = P[CV_SW], nq32 = (nq + 31) / 32 * 32;
  const uint16_t* X16 = (const uint16_t*)X + inOff;
  conv_band_planes(P, oh0, rows, Cg, band,
                   [&](int64_t ic, uint16_t* dd, int64_t at, int64_t jlo, int64_t jhi) ATCK_INLINE {
                     const uint16_t* src = X16 + ic * IHW + at;
                     if (SW == 2 && jhi > jlo) {  // the low halves of 32-bit words: vector loads
                       for (int64_t j = jlo; j < jhi - 1; ++j)
                         dd[j] = (uint16_t)(*(const conv_u32_u16al*)(src + 2 * j) & 0xffffu);
                       dd[jhi - 1] = src[2 * (jhi - 1)];
                     } else {
                       for (int64_t j = jlo; j < jhi; ++j) dd[j] = src[j * SW];
                     }
                   });
  conv_band_offsets(P, K, off);
  for (int64_t r = 0; r < KPT; ++r) {
    uint32_t* row = d + r * NQ;
    if (2 * r >= K) {
      for (int64_t q = 0; q < nq32; ++q) row[q] = 0;
      continue;
    }
    const uint16_t* lo = band + off[2 * r];
    const uint16_t* hi = 2 * r + 1 < K ? band + off[2 * r + 1] : lo;
    const uint32_t hm = 2 * r + 1 < K ? 0xffffu : 0u;
    for (int64_t q = 0; q < nq32; ++q) row[q] = (uint32_t)lo[q] | ((uint32_t)hi[q] & hm) << 16;
  }
}

// Where a task's band or pair rows come from; fills them unless the last task of this range had the
// same pixel block (*filled: its index; -1 none). Returns the pixels (1x1) or grid positions (band)
// to compute and sets the step offsets boff[S] (words), the row stride (bytes), the rows and row
// length that conv_acc_rows_store writes and the output offset of the block.
static inline ATCK_INLINE int64_t conv_amx_fill(const int64_t* P, void** bufs, int64_t nb, int64_t g, int64_t n,
                                                float* slot, int64_t* filled, int64_t* bstride, int64_t* rows,
                                                int64_t* len, int64_t* y0) {
  const int64_t C = P[CV_C], G = P[CV_G], Cg = C / G, KPT = P[CV_KC], CP = (Cg + 1) / 2;
  const int64_t KHW = P[CV_KH] * P[CV_KW], S = conv_amx_steps(P), NQ = P[CV_NQ];
  const int64_t OH = P[CV_OH], OW = P[CV_OW], IHW = P[CV_IH] * P[CV_IW];
  const int64_t key = (n * G + g) * P[CV_NBLOCKS] + nb, inOff = (n * C + g * Cg) * IHW;
  int32_t* boff = (int32_t*)slot;
  uint32_t* B = (uint32_t*)(slot + P[CV_BAND_OFF]);
  const int64_t parts = P[CV_AMX_PARTS] > 1 ? P[CV_AMX_PARTS] : 1;
  const int split = parts > 1;
  const int fill = *filled != key;
  *filled = key;
  if (P[CV_BAND]) {
    const int64_t oh0 = nb * P[CV_BROWS];
    *rows = cube_min(P[CV_BROWS], OH - oh0);
    *len = OW;
    *y0 = oh0 * OW;
    *bstride = P[CV_AMX_COL] ? NQ * 4 : P[CV_BPLANE] * 4;
    if (*rows <= 0) return 0;
    const int64_t nq = (*rows - 1) * P[CV_PQ] + OW;
    if (fill && P[CV_AMX_COL]) {
      if (split)
        conv_amx_col_split(P, bufs[0], inOff, oh0, *rows, nq, slot + P[CV_AMX_COL], (int32_t*)(slot + P[CV_AMX_PIX]),
                           B);
      else
        conv_amx_col_rows(P, bufs[0], inOff, oh0, *rows, nq, (uint16_t*)(slot + P[CV_AMX_COL]),
                          (int32_t*)(slot + P[CV_AMX_PIX]), B);
      for (int64_t s = 0; s < S; ++s) boff[s] = (int32_t)(s * 16 * NQ);
    } else if (fill) {
      if (split) conv_band_fill_split(P, bufs[0], inOff, oh0, *rows, B);
      else conv_band_fill_pairs(P, bufs[0], inOff, oh0, *rows, B);
      for (int64_t part = 0; part < parts; ++part)  // zero pair planes (and 32 words after the last part)
        for (int64_t q = CP * P[CV_BPLANE]; q < KPT * P[CV_BPLANE] + (part == parts - 1 ? 32 : 0); ++q)
          B[part * P[CV_AMX_PSTRIDE] + q] = 0;
      conv_band_offsets(P, KHW, boff);  // the taps of pair 0
      for (int64_t s = S - 1; s >= 0; --s) boff[s] = (int32_t)(s / KHW * 16 * P[CV_BPLANE] + boff[s % KHW]);
    }
    return nq;
  }
  const int64_t p0 = nb * P[CV_NB], np = cube_min(P[CV_NB], OH * OW - p0);
  *rows = 1;
  *len = np;
  *y0 = p0;
  *bstride = NQ * 4;
  if (np <= 0) return 0;
  if (fill) {
    int32_t* pix = 0;
    if (P[CV_SH] != 1 || P[CV_SW] != 1) {
      pix = (int32_t*)(slot + P[CV_AMX_PIX]);
      for (int64_t p = 0; p < np; ++p)
        pix[p] = (int32_t)((p0 + p) / OW * P[CV_SH] * P[CV_IW] + (p0 + p) % OW * P[CV_SW]);
    }
    if (split) conv_amx_split_1x1(P, bufs[0], inOff, p0, np, NQ, KPT, pix, B);
    else conv_amx_pairs_1x1(P, (const uint16_t*)bufs[0] + inOff, p0, np, NQ, KPT, pix, B);
    for (int64_t s = 0; s < S; ++s) boff[s] = (int32_t)(s * 16 * NQ);
  }
  return np;
}

// One task: channels m0 .. mEnd of group g (32 at a time) over the task's pixel block.
static inline ATCK_INLINE void conv_amx_task(const int64_t* P, void** bufs, int64_t task, float* slot,
                                             int64_t* filled, int hw) {
  const int64_t G = P[CV_G], OC = P[CV_OC], M = OC / G, MB = P[CV_MB], NQ = P[CV_NQ];
  const int64_t S = conv_amx_steps(P), MT = (M + 31) / 32 * 2, parts = P[CV_AMX_PARTS] > 1 ? P[CV_AMX_PARTS] : 1;
  const int64_t pstride = P[CV_AMX_PSTRIDE];
  const int64_t NPIX = P[CV_OD] * P[CV_OH] * P[CV_OW];
  int64_t nb, mb, g, n, bstride, rows, len, y0;
  conv_amx_coords(P, task, &nb, &mb, &g, &n);
  const int64_t m0 = mb * MB, mEnd = cube_min(M, m0 + MB);
  if (m0 >= mEnd) return;
  const int64_t nq = conv_amx_fill(P, bufs, nb, g, n, slot, filled, &bstride, &rows, &len, &y0);
  if (nq <= 0) return;
  const int32_t* boff = (const int32_t*)slot;
  const uint32_t* B = (const uint32_t*)(slot + P[CV_BAND_OFF]);
  float* acc = slot + P[CV_ACC];
  float* bt = slot + P[CV_AMX_BIAS];
  const float* Bias = P[CV_HAS_BIAS] ? (const float*)bufs[2] + g * M : 0;
  const uint16_t* W = (const uint16_t*)bufs[1];
  for (int64_t m = m0; m < mEnd; m += 32) {
    if (Bias)
      for (int64_t i = 0; i < 32; ++i)
        for (int64_t j = 0; j < 16; ++j) bt[i * 16 + j] = m + i < M ? Bias[m + i] : 0.0f;
    const int64_t wpair = S * parts * 512;
    const uint16_t* Wm = W + (g * MT + m / 16) * S * parts * 512;
    for (int64_t q = 0; q < nq; q += 32) {
#if CUBE_HAVE_AMX
      if (hw && parts == 1) {
        conv_amx_block(S, Wm, wpair, B + q, boff, bstride, acc + q, NQ, Bias ? bt : 0);
        continue;
      }
      if (hw) {
        conv_amx_block_split(S, parts, Wm, wpair, B + q, boff, pstride, bstride, acc + q, NQ, Bias ? bt : 0);
        continue;
      }
#endif
      conv_amx_block_plain(S, parts, Wm, wpair, B + q, boff, pstride, bstride, acc + q, NQ, Bias ? bt : 0);
    }
    conv_acc_rows_store(P, bufs, acc, NQ, P[CV_BAND] ? P[CV_PQ] : 0, m, cube_min(mEnd, m + 32), rows, len,
                        (n * OC + g * M) * NPIX + y0);
  }
  (void)hw;
}

// The tasks begin .. end in one slot: the tile configuration loaded once, bands shared.
static inline ATCK_INLINE void conv_amx_range(const int64_t* P, void** bufs, int64_t begin, int64_t end, float* slot) {
  const int hw = conv_amx_hw(P[CV_AMX]);
  int64_t filled = -1;
#if CUBE_HAVE_AMX
  if (hw) conv_amx_config();
#endif
  for (int64_t task = begin; task < end; ++task) conv_amx_task(P, bufs, task, slot, &filled, hw);
#if CUBE_HAVE_AMX
  if (hw) conv_amx_release();
#endif
}
