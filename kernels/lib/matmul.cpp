// gemm: batched fp32 matrix product for MatMul and Gemm:
//   Y[b] (M x N) = alpha * A[b] (M x K) x B[b] (K x N) + beta * Cin (broadcast)
// A and B are strided views (transposes and broadcast batch dims are strides), or
// pre-packed at compile time when constant: A in MR-row panels [ceil(M/MR)][K][MR] (alpha
// applied; MR = P[GM_MR], 6 or 16 by the target's vector width), B in 16-column panels
// [ceil(N/16)][K][16]. Each task computes an MB x NB block of
// one batch: K blocks of KC, A block packed once per K block into the workspace (or, when A
// is float32 with unit k stride and alpha is 1, read in place by the microkernel: only a
// partial last MR-row panel is packed), B panel
// read directly (row-major, full panel), from the pre-packed copy, or packed into the
// workspace; then the MRx16 microkernel (cube_gemm.h). Params: CubeGemmParam.
// bufs: A, B, [Cin], Y, workspace.
#include "kernels/lib/cube_gemm.h"
#include "kernels/lib/cube_params.h"
#include "kernels/lib/cube_amx.h"
#include "kernels/lib/cube_ukbf.h"

ATC_KERNEL(gemm)

static inline ATCK_INLINE int64_t gemm_batch_count(const int64_t* P) {
  int64_t nb = 1;
  for (int64_t i = 0; i < P[GM_NBATCH]; ++i) nb *= P[GM_BATCH0 + i];
  return nb;
}

int64_t atck_gemm_ntasks(const int64_t* P) {
  return gemm_batch_count(P) * P[GM_MBLOCKS] * P[GM_NBLOCKS];
}

// Products of at most 4 rows (batch-1 classifier heads: M = 1) with a packed B and no C other
// than a column bias: B streams from memory once and is the whole cost, so each group of 64
// columns keeps 4 of B's 16-column panels in flight (4 streams, one vector load each per k) with
// R x 4 accumulators; the MRx16 tiles would compute 6 or 16 rows for it and read one panel at a
// time (MobileNetV2's 1280 x 1000 classifier, in the model on Zen 5: 0.48 ms).
template <int R>
static inline ATCK_INLINE void gemm_rows_task(const int64_t* P, void** bufs, int64_t aOff, int64_t yb, int64_t m0,
                                              int64_t n0, int64_t nEnd) {
  const int64_t N = P[GM_N], K = P[GM_K], ARS = P[GM_A_RS], ACS = P[GM_A_CS], adt = P[GM_DTYPE];
  const int64_t ydt = P[GM_ODT] ? P[GM_ODT] : ATCK_F32, NP = (N + CUBE_NR - 1) / CUBE_NR, MR = cube_mr(P[GM_MR]);
  const float alpha = (float)atck_d(P[GM_ALPHA]);
  const float* B = (const float*)bufs[1];
  const float* bias = P[GM_HAS_C] ? (const float*)bufs[2] : 0;
  for (int64_t n = n0; n < nEnd; n += 4 * CUBE_NR) {
    const float* bp[4];
    for (int j = 0; j < 4; ++j) bp[j] = B + cube_min(n / CUBE_NR + j, NP - 1) * K * CUBE_NR;
    atck_v16f acc[R][4];
    for (int i = 0; i < R; ++i)
      for (int j = 0; j < 4; ++j) acc[i][j] = atck_splat16(0.0f);
    for (int64_t k = 0; k < K; ++k) {
      atck_v16f bv[4];
      for (int j = 0; j < 4; ++j) bv[j] = atck_ld16(bp[j] + k * CUBE_NR);
      for (int i = 0; i < R; ++i) {
        // A constant A is packed ([MP][K][MR] panels, f32, alpha folded in); else read in place.
        const int64_t m = m0 + i, ai = P[GM_A_PACKED] ? ((m / MR) * K + k) * MR + m % MR : aOff + m * ARS + k * ACS;
        const atck_v16f a = atck_splat16(adt == ATCK_F32 || P[GM_A_PACKED] ? ((const float*)bufs[0])[ai]
                                                                           : cube_ldx(bufs[0], adt, ai));
        for (int j = 0; j < 4; ++j) acc[i][j] += a * bv[j];
      }
    }
    for (int j = 0; j < 4; ++j) {
      const int64_t c = n + j * CUBE_NR, nr = cube_min(CUBE_NR, nEnd - c);
      if (nr <= 0) break;
      float bt[CUBE_NR] __attribute__((aligned(64)));
      for (int l = 0; l < CUBE_NR; ++l) bt[l] = 0.0f;
      if (bias) cube_copy_f32(bt, bias + c, nr);
      for (int i = 0; i < R; ++i) {
        float t[CUBE_NR] __attribute__((aligned(64)));
        atck_st16(t, acc[i][j] * atck_splat16(alpha) + atck_ld16(bt));
        cube_store_dt(P + GM_EPI, bufs, ydt, bufs[P[GM_YIDX]], yb + (m0 + i) * N + c, N, t, CUBE_NR, 1, nr);
      }
    }
  }
}

static inline ATCK_INLINE void gemm_rows(const int64_t* P, void** bufs, int64_t aOff, int64_t yb, int64_t m0,
                                         int64_t mEnd, int64_t n0, int64_t nEnd) {
  switch (mEnd - m0) {
    case 4: gemm_rows_task<4>(P, bufs, aOff, yb, m0, n0, nEnd); break;
    case 3: gemm_rows_task<3>(P, bufs, aOff, yb, m0, n0, nEnd); break;
    case 2: gemm_rows_task<2>(P, bufs, aOff, yb, m0, n0, nEnd); break;
    default: gemm_rows_task<1>(P, bufs, aOff, yb, m0, n0, nEnd); break;
  }
}

// GM_WIDE (512-bit targets, constant B): 6 rows x 64 columns per tile (cube_ukoc_rows: 4 B vectors
// and 6 A broadcasts per k for 24 FMAs, where the 16x16 tile loads 17 values for 16 FMAs),
// accumulated over K blocks of GM_KC straight in Y (row stride N), the epilogue on each finished
// tile. A ragged last panel (N not a multiple of 64) goes through a 6x64 tile on the stack.
// Reduced precision: a float16 / bfloat16 A is converted per K block into the slot ([MB][kc]
// floats), and a float16 / bfloat16 Y accumulates in the task slot's fp32 block (GM_ACC, [MB][NB])
// and is rounded on the store after the epilogue (cube_store_dt).
// BF (GM_BF16DP): bfloat16 A and B on the pair tiles (cube_ukbf.h): B packed in bfloat16 pairs,
// A's pairs read in place as 32-bit words when its rows and K are even (else copied per K block
// into the slot as [MB][kc/2] words, an odd K's last pair padded with a zero). GM_BF16DP 3 (AMX
// targets): 16-row tiles on tdpbf16ps (cube_amx.h) over the same A rows and B panel.
template <int BF>
static inline ATCK_INLINE void gemm_wide_tiles(const int64_t* P, void** bufs, float* slot, int64_t aOff, int64_t yb,
                                               int64_t m0, int64_t mEnd, int64_t n0, int64_t nEnd) {
  const int64_t N = P[GM_N], K = P[GM_K], KC = P[GM_KC], ARS = P[GM_A_RS], ACS = P[GM_A_CS], NB = P[GM_NB];
  const int64_t ydt = P[GM_ODT] ? P[GM_ODT] : ATCK_F32, KP = (K + 1) / 2;
  const float* A = (const float*)bufs[0] + aOff;
  const float* B = (const float*)bufs[1];
  const float* bias = P[GM_HAS_C] ? (const float*)bufs[2] : 0;
  float* Ybase = (float*)bufs[P[GM_YIDX]];
  float* Y = Ybase + yb;
  float* acc = slot + P[GM_ACC];  // fp32 Y block [MB][NB] (ydt != f32)
  float* Af = slot;               // float16 / bfloat16 A: this K block's rows as float32 [MB][kc]
  uint32_t* Ap = (uint32_t*)slot;  // BF, A not in place: this K block's pairs [MB][(kc + 1) / 2]
  const uint16_t* A16 = (const uint16_t*)bufs[0] + aOff;
  const int cvt = !BF && P[GM_DTYPE] != ATCK_F32;
  const int inPlace = BF && ACS == 1 && ARS % 2 == 0 && aOff % 2 == 0 && K % 2 == 0;
  const int dp = BF && cube_bf16dp_usable(P[GM_BF16DP]);
  const int amx = BF && cube_amx_usable(P[GM_BF16DP]);
  const int64_t step = amx ? 16 : CUBE_OC_PR;  // rows per tile
#if CUBE_HAVE_AMX
  struct CubeAmxState amxState = {0, 0};
#endif
  for (int64_t k0 = 0; k0 < K; k0 += KC) {
    const int64_t kc = cube_min(KC, K - k0), kpc = (kc + 1) / 2;
    const int last = k0 + kc >= K;
    if (cvt)
      for (int64_t m = m0; m < mEnd; ++m) {
        const uint16_t* src = A16 + m * ARS + k0 * ACS;
        float* d = Af + (m - m0) * kc;
        if (ACS == 1) {  // contiguous rows: 16-lane conversions
          ATCK_VEC16
          for (int64_t k = 0; k < kc; ++k) d[k] = P[GM_DTYPE] == ATCK_F16 ? atck_h2f(src[k]) : atck_bf2f(src[k]);
        } else if (P[GM_DTYPE] == ATCK_F16) {
          for (int64_t k = 0; k < kc; ++k) d[k] = atck_h2f(src[k * ACS]);
        } else {
          for (int64_t k = 0; k < kc; ++k) d[k] = atck_bf2f(src[k * ACS]);
        }
      }
    if (BF && !inPlace)
      for (int64_t m = m0; m < mEnd; ++m) {
        const uint16_t* src = A16 + m * ARS + k0 * ACS;
        uint32_t* d = Ap + (m - m0) * kpc;
        for (int64_t kp = 0; kp < kpc; ++kp) {
          const uint32_t hi = 2 * kp + 1 < kc ? src[(2 * kp + 1) * ACS] : 0u;
          d[kp] = src[2 * kp * ACS] | hi << 16;
        }
      }
    auto arow = [&](int64_t k) ATCK_INLINE { return cvt ? (const float*)(Af + k) : A + (k0 + k) * ACS; };
    auto prow = [&](int64_t kp) ATCK_INLINE {
      return inPlace ? (const uint32_t*)(A16 + k0) + kp : (const uint32_t*)Ap + kp;
    };
    for (int64_t n = n0; n < nEnd; n += CUBE_OC_NR) {
      const int64_t nr = cube_min(CUBE_OC_NR, nEnd - n);
      const float* Wp = B + ((n / CUBE_OC_NR) * K + k0) * CUBE_OC_NR;
      const uint16_t* Wb = (const uint16_t*)bufs[1] + ((n / CUBE_OC_NR) * KP + k0 / 2) * 2 * CUBE_OC_NR;
      CubeOcInit init;
      float pb[CUBE_OC_NR] __attribute__((aligned(64)));
      for (int v = 0; v < 4; ++v) init.v[v] = atck_splat16(0.0f);
      if (bias && k0 == 0) {
        for (int64_t i = 0; i < CUBE_OC_NR; ++i) pb[i] = i < nr ? bias[n + i] : 0.0f;
        for (int v = 0; v < 4; ++v) init.v[v] = atck_ld16(pb + v * 16);
      }
      for (int64_t m = m0; m < mEnd; m += step) {
        const int64_t pr = cube_min(step, mEnd - m);
        int64_t q[CUBE_OC_PR];
        for (int i = 0; i < CUBE_OC_PR; ++i) {
          const int64_t r = m + (i < pr ? i : 0);
          q[i] = BF ? (inPlace ? r * ARS / 2 : (r - m0) * kpc) : cvt ? (r - m0) * kc : r * ARS;
        }
        auto tile = [&](float* C, int64_t ldc) ATCK_INLINE {
          if constexpr (BF != 0) {
#if CUBE_HAVE_AMX
            if (amx) {
              const uint16_t* At = inPlace ? A16 + m * ARS + k0 : (const uint16_t*)(Ap + (m - m0) * kpc);
              // prefetch the sub-panel the task reads next, spread over this panel's row tiles
              const int64_t tiles = (mEnd - m0 + 15) / 16, lines = kpc * 4;
              const uint16_t* next = n + CUBE_OC_NR < nEnd ? Wb + KP * 2 * CUBE_OC_NR
                                     : k0 + KC < K       ? (const uint16_t*)bufs[1] + ((n0 / CUBE_OC_NR) * KP + (k0 + KC) / 2) * 2 * CUBE_OC_NR
                                                         : 0;
              const int64_t per = (lines + tiles - 1) / tiles, first = (m - m0) / 16 * per;
              cube_amx_tile(&amxState, pr, kpc, Wb, At, inPlace ? ARS : 2 * kpc, C, ldc, k0 > 0, bias && k0 == 0 ? pb : 0,
                            next ? (const char*)next + 64 * first : 0, cube_min(per, lines - first));
              return;
            }
#endif
            cube_ukbf_tile<4>(dp, pr, kpc, Wb, 2 * CUBE_OC_NR, prow, q, C, ldc, k0 > 0, init);
          } else {
            cube_ukoc_any(pr, kc, Wp, CUBE_OC_NR, arow, q, C, ldc, k0 > 0, init);
          }
        };
        if (ydt != ATCK_F32) {  // the fp32 block holds whole 64-column panels (NB is a multiple of 64)
          tile(acc + (m - m0) * NB + (n - n0), NB);
          continue;
        }
        float* Yt = Y + m * N + n;
        if (nr == CUBE_OC_NR) {
          tile(Yt, N);
        } else {
          float t[16 * CUBE_OC_NR] __attribute__((aligned(64)));
          if (k0 > 0)
            for (int64_t i = 0; i < pr; ++i) cube_copy_f32(t + i * CUBE_OC_NR, Yt + i * N, nr);
          tile(t, CUBE_OC_NR);
          for (int64_t i = 0; i < pr; ++i) cube_copy_f32(Yt + i * N, t + i * CUBE_OC_NR, nr);
        }
        if (last)
          for (int64_t c = 0; c < nr; c += CUBE_NR)
            cube_epilogue(P + GM_EPI, bufs, Ybase, Yt + c, N, pr, cube_min(CUBE_NR, nr - c));
      }
    }
  }
#if CUBE_HAVE_AMX
  if (amx) cube_amx_done(&amxState);
#endif
  // A float16 / bfloat16 Y: the epilogue and the rounding store in their own loops after all the
  // tiles. Inside the tile loops, LLVM hoisted the epilogue's constants (GELU's) out of them and
  // kept them live through the 6x64 k loop, which then spilled its accumulators (ViT's GELU
  // MatMuls ran at half their float32 speed).
  if (ydt != ATCK_F32)
    for (int64_t m = m0; m < mEnd; m += CUBE_MR_WIDE)
      for (int64_t n = n0; n < nEnd; n += CUBE_NR)
        cube_store_dt(P + GM_EPI, bufs, ydt, bufs[P[GM_YIDX]], yb + m * N + n, N, acc + (m - m0) * NB + (n - n0), NB,
                      cube_min(CUBE_MR_WIDE, mEnd - m), cube_min(CUBE_NR, nEnd - n));
}

static inline ATCK_INLINE void gemm_wide_task(const int64_t* P, void** bufs, float* slot, int64_t aOff, int64_t yb,
                                              int64_t m0, int64_t mEnd, int64_t n0, int64_t nEnd) {
  if (P[GM_BF16DP]) gemm_wide_tiles<1>(P, bufs, slot, aOff, yb, m0, mEnd, n0, nEnd);
  else gemm_wide_tiles<0>(P, bufs, slot, aOff, yb, m0, mEnd, n0, nEnd);
}

void atck_gemm_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t M = P[GM_M], N = P[GM_N], K = P[GM_K];
  const int64_t MB = P[GM_MB], NB = P[GM_NB], KC = P[GM_KC];
  const int64_t MBLOCKS = P[GM_MBLOCKS], NBLOCKS = P[GM_NBLOCKS];
  const int64_t MR = cube_mr(P[GM_MR]);
  const int64_t ARS = P[GM_A_RS], ACS = P[GM_A_CS], BRS = P[GM_B_RS], BCS = P[GM_B_CS];
  const int hasC = (int)P[GM_HAS_C];
  const int64_t CRS = P[GM_C_RS], CCS = P[GM_C_CS];
  const float alpha = (float)atck_d(P[GM_ALPHA]), beta = (float)atck_d(P[GM_BETA]);
  // A / B element types (f32, f16, bf16): P[GM_DTYPE] / P[GM_BDT]; packed copies are f32.
  const int64_t adt = P[GM_DTYPE], bdt = P[GM_BDT];
  const float* A = (const float*)bufs[0];
  const float* B = (const float*)bufs[1];
  const float* Cin = hasC ? (const float*)bufs[2] : 0;
  float* Y = (float*)bufs[P[GM_YIDX]];
  float* ws = cube_align(bufs[P[GM_YIDX] + 1]);
  // Reduced-precision Y (f16/bf16): tiles accumulate in an fp32 [MB][NB] block of the task
  // slot, rounded on store after the epilogue.
  const int64_t ydt = P[GM_ODT] ? P[GM_ODT] : ATCK_F32;
  const int red = ydt != ATCK_F32;
  const int colBias = hasC && CRS == 0 && CCS == 1 && beta == 1.0f;
  // A read in place by the microkernel (no packing): float32, unit k stride, no alpha, unless
  // the lowering found that the MR rows would share a few L1 sets (GM_PACK_A: 16 rows a multiple
  // of 4 KB apart all fall into one set; ViT's K = 3072, rows 12 KB apart: 115 GFLOP/s in
  // place, 170 packed).
  // At most 4 rows, B packed, no C other than a column bias: gemm_rows.
  const int rowsPath = P[GM_B_PACKED] && M <= 4 && (!hasC || colBias) && !P[GM_WIDE];
  // The 6x64 tiles (GM_WIDE; the lowering checked the rest) with B packed by the lowering in
  // 64-column panels (a test may run the same params on an unpacked B: the tiles below then).
  const int widePath = P[GM_WIDE] && P[GM_B_PACKED] && !P[GM_A_PACKED] && P[GM_NB] % CUBE_OC_NR == 0;
  const int directA = !P[GM_A_PACKED] && !P[GM_PACK_A] && adt == ATCK_F32 && ACS == 1 && alpha == 1.0f;
  // One workspace slot per call, reused by the chunk's tasks (it stays in the thread's cache).
  float* slot = ws + begin * P[GM_SLOT];
  for (int64_t task = begin; task < end; ++task) {
    int64_t t = task;
    const int64_t nb = t % NBLOCKS;
    t /= NBLOCKS;
    const int64_t mb = t % MBLOCKS;
    int64_t b = t / MBLOCKS;
    // Batch offsets (last batch dim fastest).
    int64_t aOff = 0, bOff = 0;
    {
      int64_t r = b;
      for (int64_t i = P[GM_NBATCH] - 1; i >= 0; --i) {
        int64_t d = P[GM_BATCH0 + i];
        int64_t idx = r % d;
        r /= d;
        aOff += idx * P[GM_ABS0 + i];
        bOff += idx * P[GM_BBS0 + i];
      }
    }
    const float* Ab = A + aOff;
    const float* Bb = B + bOff;
    float* Yb = red ? 0 : Y + b * M * N;
    const int64_t m0 = mb * MB, mEnd = cube_min(M, m0 + MB);
    const int64_t n0 = nb * NB, nEnd = cube_min(N, n0 + NB);
    if (m0 >= mEnd || n0 >= nEnd) continue;
    if (rowsPath) {
      gemm_rows(P, bufs, aOff, b * M * N, m0, mEnd, n0, nEnd);
      continue;
    }
    if (widePath) {
      gemm_wide_task(P, bufs, slot, aOff, b * M * N, m0, mEnd, n0, nEnd);
      continue;
    }
    float* wsA = slot;
    float* wsB = wsA + MB * KC;
    float* acc = wsA + P[GM_ACC];
    for (int64_t k0 = 0; k0 < K; k0 += KC) {
      const int64_t kc = cube_min(KC, K - k0);
      if (directA) {  // only a partial last panel is packed (the microkernel reads MR rows)
        const int64_t m = m0 + (mEnd - m0) / MR * MR;
        if (m < mEnd)
          cube_pack_a_f32(Ab, ARS, ACS, m, mEnd - m, k0, kc, alpha, wsA + ((m - m0) / MR) * kc * MR, MR);
      } else if (!P[GM_A_PACKED]) {
        for (int64_t m = m0; m < mEnd; m += MR)
          cube_pack_a_dt(adt == ATCK_F32 ? (const void*)Ab : (const void*)((const uint16_t*)bufs[0] + aOff), adt,
                         ARS, ACS, m, cube_min(MR, mEnd - m), k0, kc, alpha,
                         wsA + ((m - m0) / MR) * kc * MR, MR);
      }
      for (int64_t n = n0; n < nEnd; n += CUBE_NR) {
        const int64_t nr = cube_min(CUBE_NR, nEnd - n);
        const float* Bp;
        int64_t ldb;
        if (P[GM_B_PACKED]) {
          Bp = B + ((n / CUBE_NR) * K + k0) * CUBE_NR;
          ldb = CUBE_NR;
        } else if (bdt == ATCK_F32 && BCS == 1 && nr == CUBE_NR) {
          Bp = Bb + k0 * BRS + n;
          ldb = BRS;
        } else {
          for (int64_t k = 0; k < kc; ++k) {
            const int64_t src = bOff + (k0 + k) * BRS + n * BCS;
            float* d = wsB + k * CUBE_NR;
            for (int64_t l = 0; l < CUBE_NR; ++l) d[l] = l < nr ? cube_ldx(bufs[1], bdt, src + l * BCS) : 0.0f;
          }
          Bp = wsB;
          ldb = CUBE_NR;
        }
        for (int64_t m = m0; m < mEnd; m += MR) {
          const int64_t mr = cube_min(MR, mEnd - m);
          const float* Ap = P[GM_A_PACKED] ? A + ((m / MR) * K + k0) * MR
                                           : wsA + ((m - m0) / MR) * kc * MR;
          int64_t ars = 1, acs = MR;
          if (directA && mr == MR) {
            Ap = Ab + m * ARS + k0;
            ars = ARS;
            acs = 1;
          }
          float* Yt = red ? acc + (m - m0) * NB + (n - n0) : Yb + m * N + n;
          const int64_t ldy = red ? NB : N;
          int init = CUBE_INIT_ACC;
          const float* bias = 0;
          if (k0 == 0) {
            if (!hasC) {
              init = CUBE_INIT_ZERO;
            } else if (colBias) {
              init = CUBE_INIT_COLBIAS;
              bias = Cin + n;
            } else {
              for (int64_t i = 0; i < mr; ++i)
                for (int64_t j = 0; j < nr; ++j)
                  Yt[i * ldy + j] = beta * Cin[(m + i) * CRS + (n + j) * CCS];
            }
          }
          cube_tile_mr(MR, kc, Ap, Bp, ldb, Yt, ldy, mr, nr, init, bias, ars, acs);
          if (k0 + kc >= K) {
            if (red)
              cube_store_dt(P + GM_EPI, bufs, ydt, bufs[P[GM_YIDX]], b * M * N + m * N + n, N, Yt, ldy, mr, nr);
            else
              cube_epilogue(P + GM_EPI, bufs, Y, Yt, N, mr, nr);
          }
        }
      }
    }
  }
}
