// AMX-BF16 tiles for the bfloat16 pair form of the wide MatMul/Gemm (bf16_path "amx",
// docs/kernels-cube.md "AMX tiles"): on CPUs with Advanced Matrix Extensions (Sapphire Rapids and
// newer Xeons) one tdpbf16ps multiplies a 16x32 bfloat16 tile by a 32x16 one into a 16x16 float32
// tile: 8,192 multiply-adds per instruction.
//
// C[mr x 64] (= init or +=) A[mr x 2*KP] * W, where
//   A: mr (<= 16) rows of bfloat16 pairs, row i at A + i * lda (uint16 units), read in place
//      (AMX loads rows of 64 bytes with any stride);
//   W: a packed pair panel [KP][64][2] (cube_ukbf.h): 16 pair rows of 16 columns are exactly the
//      second operand of tdpbf16ps (the "VNNI" layout), loaded with a 256-byte row stride;
//   C: float32 rows of 64 columns, ldc floats apart.
// Tiles: 0-3 the four 16-column C tiles, 4 / 5 A and W for 16 pairs, 6 / 7 A and W for the last
// KP % 16 pairs (configured per call, so no padding of A or W is read).
//
// Numerics: as vdpbf16ps (cube_ukbf_dp): products of bfloat16 values exact, sums in float32
// (the order of additions inside one tdpbf16ps differs, within float32 rounding).

#pragma once
#include "kernels/lib/amx_common.h"
#include "kernels/lib/cube_ukbf.h"

#if ATCK_HAVE_AMX && CUBE_HAVE_BF16DP
#define CUBE_HAVE_AMX 1
#define CUBE_AMX_TARGET __attribute__((target("amx-tile,amx-bf16")))
#else
#define CUBE_HAVE_AMX 0
#endif

// True when a kernel lowered with the AMX flag (GM_BF16DP == 3) may execute AMX here.
static inline int cube_amx_usable(int64_t flag) {
#if !CUBE_HAVE_AMX
  (void)flag;
  return 0;
#elif defined(ATC_BITCODE)
  return flag == 3;
#else
  return flag == 3 && atck_amx_host(22);
#endif
}

#if CUBE_HAVE_AMX
// The configuration a task's tiles run under: loaded when a call needs another (rows, K tail) and
// released once at the task's end (cube_amx_done). ldtilecfg and tilerelease cost hundreds of
// cycles each; per 16 x 64 tile call they took most of its time (BERT-base FFN MatMuls at 11% of
// the tiles' peak).
struct CubeAmxState {
  int64_t rows, tail;  // configured for; rows 0: none loaded
};

CUBE_AMX_TARGET static inline void cube_amx_config(struct CubeAmxState* st, int64_t mr, int64_t tail) {
  if (st->rows == mr && st->tail == tail) return;
  struct AtckAmxCfg cfg;
  atck_amx_cfg_init(&cfg);
  for (int t = 0; t < 6; ++t) atck_amx_cfg_tile(&cfg, t, t == 5 ? 16 : mr, 64);
  if (tail) {
    atck_amx_cfg_tile(&cfg, 6, mr, 4 * tail);
    atck_amx_cfg_tile(&cfg, 7, tail, 64);
  }
  ATCK_AMX_BARRIER(&cfg);
  _tile_loadconfig(&cfg);
  st->rows = mr;
  st->tail = tail;
}

CUBE_AMX_TARGET static inline void cube_amx_done(struct CubeAmxState* st) {
  if (st->rows) _tile_release();
  st->rows = 0;
}

// init: 64 float32 column values every row starts from (the bias), or null for zeros; ignored
// when accumulate (C holds the sums of earlier K blocks).
// pf, pfLines: cache lines to prefetch while the tiles run (the weight sub-panel the task reads
// next: the tiles stream the weights faster than the hardware prefetchers fetch them), or none.
CUBE_AMX_TARGET __attribute__((noinline, unused)) static void cube_amx_tile(struct CubeAmxState* st, int64_t mr, int64_t KP,
                                                                    const uint16_t* W, const uint16_t* A, int64_t lda,
                                                                    float* C, int64_t ldc, int accumulate,
                                                                    const float* init, const char* pf,
                                                                    int64_t pfLines) {
  const int64_t full = KP / 16, tail = KP % 16;
  const int64_t pfStep = pf && full ? (pfLines + full - 1) / full : 0;
  cube_amx_config(st, mr, tail);
  const int64_t cs = ldc * 4, as = lda * 2;
  if (accumulate) {
    _tile_loadd(0, C, cs);
    _tile_loadd(1, C + 16, cs);
    _tile_loadd(2, C + 32, cs);
    _tile_loadd(3, C + 48, cs);
  } else if (init) {  // every row the same 16 values: row stride 0
    _tile_loadd(0, init, 0);
    _tile_loadd(1, init + 16, 0);
    _tile_loadd(2, init + 32, 0);
    _tile_loadd(3, init + 48, 0);
  } else {
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
  }
  for (int64_t s = 0; s < full; ++s) {
    const uint16_t* w = W + s * 16 * 128;
    for (int64_t i = s * pfStep; i < (s + 1) * pfStep && i < pfLines; ++i) _mm_prefetch(pf + 64 * i, _MM_HINT_T0);
    _tile_loadd(4, A + s * 32, as);
    _tile_loadd(5, w, 256);
    _tile_dpbf16ps(0, 4, 5);
    _tile_loadd(5, w + 32, 256);
    _tile_dpbf16ps(1, 4, 5);
    _tile_loadd(5, w + 64, 256);
    _tile_dpbf16ps(2, 4, 5);
    _tile_loadd(5, w + 96, 256);
    _tile_dpbf16ps(3, 4, 5);
  }
  if (tail) {
    const uint16_t* w = W + full * 16 * 128;
    _tile_loadd(6, A + full * 32, as);
    _tile_loadd(7, w, 256);
    _tile_dpbf16ps(0, 6, 7);
    _tile_loadd(7, w + 32, 256);
    _tile_dpbf16ps(1, 6, 7);
    _tile_loadd(7, w + 64, 256);
    _tile_dpbf16ps(2, 6, 7);
    _tile_loadd(7, w + 96, 256);
    _tile_dpbf16ps(3, 6, 7);
  }
  _tile_stored(0, C, cs);
  _tile_stored(1, C + 16, cs);
  _tile_stored(2, C + 32, cs);
  _tile_stored(3, C + 48, cs);
  ATCK_AMX_BARRIER(C);
}
#endif
