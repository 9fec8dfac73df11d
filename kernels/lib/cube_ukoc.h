// The channel-major ("OC-major") microkernel of the 512-bit conv path (kernels/lib/conv_ocm.h,
// docs/kernels-cube.md): output channels are the vector operand, output pixels the broadcast one.
//
// C[PR x 64] (= init or +=) sum over k of  B[off[k] + gq[i]] (pixel i, broadcast) * W[k][0..64)
//   W: a packed weight panel, K rows of 64 output channels ([k][64], the conv's 64-row panels)
//   B: the pixel operand read in place: pixel i of im2col row k is B[off[k] + gq[i]] (a band of
//      padded input rows, or the input itself for 1x1 convs)
//   C: PR rows (pixels) of 64 floats (channels), row i at C + i * 64
// A full tile (PR = 6) holds 24 accumulators; per k it loads 4 weight vectors and 6 pixel
// values for 24 FMAs (the 16x16 tile needs 17 loads for 16 FMAs), and a tile's pixels are any 6
// outputs, so a 7x7 map wastes 5 of 54 lanes instead of 15 of 64. Measured alone with its
// operands in L1 (Zen 5): 265 GFLOP/s of a 275 peak; a 7-pixel tile (28 accumulators + 4
// weights + 1 broadcast > 32 registers) spills and runs at 222.
#pragma once
#include "kernels/lib/cube_gemm.h"

#define CUBE_OC_NR 64  // output channels per panel (4 vectors of 16)
#define CUBE_OC_PR 6   // pixels per full tile

// The initial value of a tile's 64 channels (bias or zeros), passed by value: a load from the
// caller's stack merged with the accumulator loads would leave the oom bounds checks an
// address of two origins (kernels/codegen/bounds_check.cpp).
struct CubeOcInit {
  atck_v16f v[4];
};

// Broadcast operands stored as float16 / bfloat16 (a reduced-precision build's activations):
// arow may return pointers to these, converted one value per broadcast (one vcvtph2ps per row and
// k with F16C) instead of a converted copy of the rows per task.
struct CubeF16 {
  uint16_t v;
};
struct CubeBF16 {
  uint16_t v;
};
static inline ATCK_INLINE float cube_oc_val(float x) { return x; }
static inline ATCK_INLINE float cube_oc_val(CubeF16 x) { return atck_h2f(x.v); }
static inline ATCK_INLINE float cube_oc_val(CubeBF16 x) { return atck_bf2f(x.v); }

// The tile with pixel (row) i of k at arow(k)[q[i]] (float, CubeF16 or CubeBF16): NV vectors of
// 16 columns (4: the 6x64 tile; 2: the 8x32 tile of the conv path's 32-channel panels, 251 GFLOP/s
// alone on Zen 5, where 12x32 runs out of registers for its row offsets: 152); W rows (NV * 16
// floats) ldw floats apart, C rows ldc floats apart.
template <int PR, int NV, class ARow>
static inline ATCK_INLINE void cube_ukoc_rows(int64_t K, const float* ATCK_RESTRICT W, int64_t ldw, ARow arow,
                                              const int64_t* q0, float* ATCK_RESTRICT C, int64_t ldc, int accumulate,
                                              CubeOcInit init) {
  atck_v16f c[PR][NV];
  if (accumulate) {
    for (int i = 0; i < PR; ++i)
      for (int v = 0; v < NV; ++v) c[i][v] = atck_ld16(C + i * ldc + v * 16);
  } else {
    for (int v = 0; v < NV; ++v)
      for (int i = 0; i < PR; ++i) c[i][v] = init.v[v];
  }
  int64_t q[PR];
  for (int i = 0; i < PR; ++i) q[i] = q0[i];
  ATCK_NO_UNROLL
  for (int64_t k = 0; k < K; ++k) {
    const float* w = W + k * ldw;
    atck_v16f wv[NV];
    for (int v = 0; v < NV; ++v) wv[v] = atck_ld16(w + 16 * v);
    const auto* b = arow(k);
    for (int i = 0; i < PR; ++i) {
      const atck_v16f a = atck_splat16(cube_oc_val(b[q[i]]));
      for (int v = 0; v < NV; ++v) c[i][v] += a * wv[v];
    }
  }
  for (int i = 0; i < PR; ++i)
    for (int v = 0; v < NV; ++v) atck_st16(C + i * ldc + v * 16, c[i][v]);
}

// The same tile out of line (noinline: the code generator keeps the attribute). Inlined into the
// channel-major conv task, the loop shared the task's register allocation: accumulators rotated
// through vmovaps chains and two spilled to the stack inside the k loop (a 1x1 conv 128 -> 128 on
// 56x56: 0.56 -> 0.47 ms float32, 0.93 -> 0.52 ms float16). The MatMul and attention tiles stay
// inlined: out of line they ran 4-7% slower (ViT-B/16, BERT-base).
template <int PR, int NV, class ARow>
__attribute__((noinline)) static void cube_ukoc_rows_ool(int64_t K, const float* ATCK_RESTRICT W, int64_t ldw,
                                                         ARow arow, const int64_t* q0, float* ATCK_RESTRICT C,
                                                         int64_t ldc, int accumulate, CubeOcInit init) {
  cube_ukoc_rows<PR, NV>(K, W, ldw, arow, q0, C, ldc, accumulate, init);
}

// Rows per full tile of the NV-vector family: 6 (64 columns), 8 (32 columns) or 6 (16 columns:
// the 256-bit targets' tile, 12 ymm accumulators + 2 weight halves + 1 broadcast of 16 registers).
#define CUBE_OC_ROWS(NV) ((NV) == 2 ? 8 : 6)

// A tile of pr (1..CUBE_OC_ROWS(NV)) rows: the full tile or a ragged last one with fewer
// accumulators.
// OOL: the out-of-line tiles (cube_ukoc_rows_ool).
template <int PR, int NV, bool OOL, class ARow>
static inline ATCK_INLINE void cube_ukoc_pick(int64_t K, const float* W, int64_t ldw, ARow arow, const int64_t* q,
                                              float* C, int64_t ldc, int accumulate, CubeOcInit init) {
  if (OOL) cube_ukoc_rows_ool<PR, NV>(K, W, ldw, arow, q, C, ldc, accumulate, init);
  else cube_ukoc_rows<PR, NV>(K, W, ldw, arow, q, C, ldc, accumulate, init);
}

template <int NV = 4, bool OOL = false, class ARow>
static inline ATCK_INLINE void cube_ukoc_any(int64_t pr, int64_t K, const float* W, int64_t ldw, ARow arow,
                                             const int64_t* q, float* C, int64_t ldc, int accumulate, CubeOcInit init) {
  switch (pr) {
    case 8: if (NV == 2) cube_ukoc_pick<8, NV, OOL>(K, W, ldw, arow, q, C, ldc, accumulate, init); break;
    case 7: if (NV == 2) cube_ukoc_pick<7, NV, OOL>(K, W, ldw, arow, q, C, ldc, accumulate, init); break;
    case 6: cube_ukoc_pick<6, NV, OOL>(K, W, ldw, arow, q, C, ldc, accumulate, init); break;
    case 5: cube_ukoc_pick<5, NV, OOL>(K, W, ldw, arow, q, C, ldc, accumulate, init); break;
    case 4: cube_ukoc_pick<4, NV, OOL>(K, W, ldw, arow, q, C, ldc, accumulate, init); break;
    case 3: cube_ukoc_pick<3, NV, OOL>(K, W, ldw, arow, q, C, ldc, accumulate, init); break;
    case 2: cube_ukoc_pick<2, NV, OOL>(K, W, ldw, arow, q, C, ldc, accumulate, init); break;
    default: cube_ukoc_pick<1, NV, OOL>(K, W, ldw, arow, q, C, ldc, accumulate, init); break;
  }
}

// The conv path's tile: pixel i of im2col row k at B[off[k] + gq[i]], C rows NV * 16 floats apart
// (out of line).
template <int NV>
static inline ATCK_INLINE void cube_ukoc(int64_t pr, int64_t K, const float* W, const float* B, const int32_t* off,
                                         const int32_t* gq, float* C, int accumulate, CubeOcInit init) {
  int64_t q[8];
  for (int i = 0; i < 8; ++i) q[i] = i < pr ? gq[i] : 0;
  cube_ukoc_any<NV, true>(pr, K, W, NV * 16, [&](int64_t k) ATCK_INLINE { return B + off[k]; }, q, C, NV * 16,
                          accumulate, init);
}

// One round of the 16x16 transpose: rows i and i + 8 interleaved (lo / hi halves). Four rounds
// rotate the 8-bit (row, column) index by four bits: a transpose, in 64 two-source shuffles.
static inline ATCK_INLINE void cube_zip16(const atck_v16f* s, atck_v16f* d) {
  for (int i = 0; i < 8; ++i) {
    d[2 * i] = __builtin_shufflevector(s[i], s[i + 8], 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    d[2 * i + 1] =
        __builtin_shufflevector(s[i], s[i + 8], 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  }
}

// a[j][i] = a[i][j] for i, j < 16, in registers (b: scratch).
static inline ATCK_INLINE void cube_transpose16_regs(atck_v16f* a, atck_v16f* b) {
  cube_zip16(a, b);
  cube_zip16(b, a);
  cube_zip16(a, b);
  cube_zip16(b, a);
}

// dst[j * 16 + i] = src[i * lds + j] for i, j < 16.
static inline ATCK_INLINE void cube_transpose16(const float* src, int64_t lds, float* dst) {
  atck_v16f a[16], b[16];
  for (int i = 0; i < 16; ++i) a[i] = atck_ld16(src + i * lds);
  cube_transpose16_regs(a, b);
  for (int i = 0; i < 16; ++i) atck_st16(dst + i * 16, a[i]);
}
