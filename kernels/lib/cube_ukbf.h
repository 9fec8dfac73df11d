// The bfloat16 dot-product form of the channel-major microkernel (cube_ukoc.h) for targets with
// AVX512-BF16 (TargetProfile::bf16Dot, docs/kernels-cube.md "bfloat16 dot products"):
// vdpbf16ps multiplies 16 pairs of bfloat16 values and adds both products to 16 float32
// accumulators, two multiply-adds per lane and instruction (Zen 5: 488 GFLOP/s against 265 for
// float32 FMAs on one core).
//
// C[PR x NV*16] (= init or +=) sum over k-pairs kp of
//     A(i, 2kp) * W[2kp][j] + A(i, 2kp+1) * W[2kp+1][j]
//   W: a packed bfloat16 panel, KP pair rows of NV*16 columns, each column's two k values side by
//      side ([kp][NV*16][2] uint16, ldw uint16 apart)
//   A: pixel / row i of pair kp is the 32-bit word arow(kp)[q[i]]: two bfloat16 values, the even
//      k in the low half (a row-major bfloat16 matrix read in place, or a pair-interleaved band)
// Products of two bfloat16 values are exact in float32; the sums round as float32 FMAs do
// (vdpbf16ps also flushes float32 denormals to zero).
//
// Kernels call the vdpbf16ps form only when a param says the target has it (the lowering sets it
// from the profile) and, in the native build (constant folding, kernel tests), when the host has
// it too; otherwise the same tile runs as float32 FMAs on the unpacked halves (cube_ukbf_emul),
// in the same order, so tests of the packing run on every host.
#pragma once
#include "kernels/lib/cube_ukoc.h"

#if defined(__x86_64__)
#include <immintrin.h>
#if defined(__clang__)
#define CUBE_BF16DP_TARGET __attribute__((target("avx512f,avx512bw,avx512bf16,evex512")))
#else
#define CUBE_BF16DP_TARGET __attribute__((target("avx512f,avx512bw,avx512bf16")))
#endif
#define CUBE_HAVE_BF16DP 1
#else
#define CUBE_HAVE_BF16DP 0
#endif

// True when a kernel lowered with the bfloat16 dot-product flag (1, or 3: AMX, whose targets have
// vdpbf16ps too) may execute vdpbf16ps here; flag 2 asks for the float32 form (tests).
static inline int cube_bf16dp_usable(int64_t flag) {
#if !CUBE_HAVE_BF16DP
  (void)flag;
  return 0;
#elif defined(ATC_BITCODE)
  return flag == 1 || flag == 3;
#else
  return (flag == 1 || flag == 3) && __builtin_cpu_supports("avx512bf16");
#endif
}

// The two bfloat16 halves of 16 32-bit words as float32: low (even k) and high (odd k).
typedef uint32_t cube_v16u __attribute__((vector_size(64)));
static inline ATCK_INLINE atck_v16f cube_bf_lo(cube_v16u w) {
  cube_v16u s = w << 16;  // unsigned: no sign bit shifted out
  atck_v16f f;
  __builtin_memcpy(&f, &s, sizeof f);
  return f;
}
static inline ATCK_INLINE atck_v16f cube_bf_hi(cube_v16u w) {
  cube_v16u s = w & 0xffff0000u;
  atck_v16f f;
  __builtin_memcpy(&f, &s, sizeof f);
  return f;
}
static inline ATCK_INLINE cube_v16u cube_ld16u(const void* p) {
  typedef uint32_t v16uu __attribute__((vector_size(64), aligned(4)));
  return *(const v16uu*)p;
}

// The tile as float32 FMAs (hosts without AVX512-BF16): odd k first, as vdpbf16ps adds them.
template <int PR, int NV, class ARow>
static inline ATCK_INLINE void cube_ukbf_emul(int64_t KP, const uint16_t* ATCK_RESTRICT W, int64_t ldw, ARow arow,
                                              const int64_t* q, float* ATCK_RESTRICT C, int64_t ldc, int accumulate,
                                              CubeOcInit init) {
  atck_v16f c[PR][NV];
  for (int i = 0; i < PR; ++i)
    for (int v = 0; v < NV; ++v) c[i][v] = accumulate ? atck_ld16(C + i * ldc + v * 16) : init.v[v];
  for (int64_t kp = 0; kp < KP; ++kp) {
    atck_v16f wl[NV], wh[NV];
    for (int v = 0; v < NV; ++v) {
      const cube_v16u w = cube_ld16u(W + kp * ldw + 32 * v);
      wl[v] = cube_bf_lo(w);
      wh[v] = cube_bf_hi(w);
    }
    const uint32_t* b = arow(kp);
    for (int i = 0; i < PR; ++i) {
      const uint32_t x = b[q[i]];
      const atck_v16f al = atck_splat16(atck_bf2f((uint16_t)(x & 0xffffu)));
      const atck_v16f ah = atck_splat16(atck_bf2f((uint16_t)(x >> 16)));
      for (int v = 0; v < NV; ++v) {
        c[i][v] += ah * wh[v];
        c[i][v] += al * wl[v];
      }
    }
  }
  for (int i = 0; i < PR; ++i)
    for (int v = 0; v < NV; ++v) atck_st16(C + i * ldc + v * 16, c[i][v]);
}

#if CUBE_HAVE_BF16DP
// The tile with vdpbf16ps: per pair NV weight loads, PR 32-bit broadcasts, PR * NV dot products.
template <int PR, int NV, class ARow>
CUBE_BF16DP_TARGET static inline ATCK_INLINE void cube_ukbf_dp(int64_t KP, const uint16_t* ATCK_RESTRICT W,
                                                               int64_t ldw, ARow arow, const int64_t* q0,
                                                               float* ATCK_RESTRICT C, int64_t ldc, int accumulate,
                                                               CubeOcInit init) {
  __m512 c[PR][NV];
  for (int i = 0; i < PR; ++i)
    for (int v = 0; v < NV; ++v)
      c[i][v] = accumulate ? _mm512_loadu_ps(C + i * ldc + v * 16) : (__m512)init.v[v];
  int64_t q[PR];
  for (int i = 0; i < PR; ++i) q[i] = q0[i];
  ATCK_NO_UNROLL
  for (int64_t kp = 0; kp < KP; ++kp) {
    __m512bh wv[NV];
    for (int v = 0; v < NV; ++v) wv[v] = (__m512bh)_mm512_loadu_si512((const void*)(W + kp * ldw + 32 * v));
    const uint32_t* b = arow(kp);
    for (int i = 0; i < PR; ++i) {
      const __m512bh a = (__m512bh)_mm512_set1_epi32((int)b[q[i]]);
      for (int v = 0; v < NV; ++v) c[i][v] = _mm512_dpbf16_ps(c[i][v], a, wv[v]);
    }
  }
  for (int i = 0; i < PR; ++i)
    for (int v = 0; v < NV; ++v) _mm512_storeu_ps(C + i * ldc + v * 16, c[i][v]);
}
#endif

// A tile of pr (1..CUBE_OC_ROWS(NV)) rows.
#define CUBE_UKBF_SWITCH(F)                                                                     \
  switch (pr) {                                                                                 \
    case 8: if (NV == 2) F<8, NV>(KP, W, ldw, arow, q, C, ldc, accumulate, init); break;        \
    case 7: if (NV == 2) F<7, NV>(KP, W, ldw, arow, q, C, ldc, accumulate, init); break;        \
    case 6: F<6, NV>(KP, W, ldw, arow, q, C, ldc, accumulate, init); break;                     \
    case 5: F<5, NV>(KP, W, ldw, arow, q, C, ldc, accumulate, init); break;                     \
    case 4: F<4, NV>(KP, W, ldw, arow, q, C, ldc, accumulate, init); break;                     \
    case 3: F<3, NV>(KP, W, ldw, arow, q, C, ldc, accumulate, init); break;                     \
    case 2: F<2, NV>(KP, W, ldw, arow, q, C, ldc, accumulate, init); break;                     \
    default: F<1, NV>(KP, W, ldw, arow, q, C, ldc, accumulate, init); break;                    \
  }
#if CUBE_HAVE_BF16DP
// Not inlined: the caller need not carry the target attribute (one call per tile of up to
// KC/2 pairs).
template <int NV, class ARow>
CUBE_BF16DP_TARGET __attribute__((noinline)) static void cube_ukbf_tile_dp(int64_t pr, int64_t KP, const uint16_t* W,
                                                                       int64_t ldw, ARow arow, const int64_t* q,
                                                                       float* C, int64_t ldc, int accumulate,
                                                                       CubeOcInit init) {
  CUBE_UKBF_SWITCH(cube_ukbf_dp)
}
#endif

// dp: cube_bf16dp_usable(the kernel's flag): vdpbf16ps, else float32 FMAs.
template <int NV, class ARow>
static inline ATCK_INLINE void cube_ukbf_tile(int dp, int64_t pr, int64_t KP, const uint16_t* W, int64_t ldw,
                                              ARow arow, const int64_t* q, float* C, int64_t ldc, int accumulate,
                                              CubeOcInit init) {
#if CUBE_HAVE_BF16DP
  if (dp) {
    cube_ukbf_tile_dp<NV>(pr, KP, W, ldw, arow, q, C, ldc, accumulate, init);
    return;
  }
#else
  (void)dp;
#endif
  CUBE_UKBF_SWITCH(cube_ukbf_emul)
}
