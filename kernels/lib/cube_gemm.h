// The fp32 GEMM microkernels and packing helpers shared by the cube kernels (conv, matmul,
// gemm, conv_transpose). See docs/kernels-cube.md.
//
// C[MR x NR] (= or +=) A_panel * B_panel, NR = 16 columns:
//   A panel: K x MR floats, k-major ([k][MR]) - broadcast operand (weights for conv)
//   B rows : K rows of 16 contiguous floats, row k at B + k * ldb - vector operand
// Two families, chosen by the target profile's vector width (TargetProfile::cubeRows, passed
// to the kernels as a param, so the other family is dead code after specialisation):
//   MR = 6  (256-bit targets): 12 accumulators of 8 floats (two per row) in the 16 ymm registers;
//   MR = 16 (512-bit targets): 16 accumulators of 16 floats (one zmm per row) of the 32 zmm,
//            the A values as broadcast memory operands of the FMAs.
// Written with GCC/Clang vector extensions so they compile natively with g++ and to bitcode
// with clang.
#pragma once
#include "kernels/lib/kernel_abi.h"
#include "kernels/lib/math_ops.h"
#include "kernels/lib/vec_math.h"  // atck_f8 vectors (and the -Wpsabi pragma)

#define CUBE_MR 6       // panel rows of the 256-bit family
#define CUBE_MR_WIDE 16 // panel rows of the 512-bit family
#define CUBE_MR_MAX 16
#define CUBE_NR 16

// A row group of the plane-wise band kernels (conv_dw_rows, pool_band_rows): RG output rows from
// oh (the band's last row repeated past its end) and CG 16-lane chunks from chunk c0 of nch (rows
// of 16 or more outputs: whole chunks, the last one at OW - 16, overlapping; narrower rows: one
// chunk at 0).
template <int RG, int CG>
static inline ATCK_INLINE void cube_row_group(int64_t oh, int64_t oh0, int64_t ohn, int64_t c0, int64_t nch, int64_t OW,
                                              int64_t* row, int64_t* col) {
  for (int r = 0; r < RG; ++r) row[r] = oh + r < oh0 + ohn - 1 ? oh + r : oh0 + ohn - 1;
  for (int j = 0; j < CG; ++j) {
    const int64_t cj = c0 + j < nch - 1 ? c0 + j : nch - 1;
    col[j] = OW >= 16 ? (cj * 16 < OW - 16 ? cj * 16 : OW - 16) : 0;
  }
}

// The panel height a kernel was lowered for (its MR param: 16 or, for 0 / anything else, 6).
static inline ATCK_INLINE int64_t cube_mr(int64_t p) { return p == CUBE_MR_WIDE ? CUBE_MR_WIDE : CUBE_MR; }

// Accumulator initialisation of a tile.
enum CubeInit {
  CUBE_INIT_ZERO = 0,     // C = A*B
  CUBE_INIT_ACC = 1,      // C += A*B
  CUBE_INIT_ROWBIAS = 2,  // C = A*B + bias[row]   (bias: 6 floats)
  CUBE_INIT_COLBIAS = 3,  // C = A*B + bias[col]   (bias: 16 floats)
};

#define CUBE_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)

// Full 6x16 tile. C rows at C + i * ldc. A element (row i, k) at A[i * ars + k * acs]:
// a packed panel is ars = 1, acs = CUBE_MR; a row-major matrix read in place (no packing)
// is ars = its row stride, acs = 1 (all 6 rows must exist). Both are kernel params, so the
// broadcasts compile to constant-offset loads either way. brow(k) gives B row k (16 floats);
// it is inlined, so the two wrappers below compile to the plain FMA loop.
template <class BRow>
static inline ATCK_INLINE void cube_ukernel_rows(int64_t K, const float* ATCK_RESTRICT A, BRow brow,
                                                 float* ATCK_RESTRICT C, int64_t ldc, int init,
                                                 const float* bias, int64_t ars, int64_t acs) {
#define CUBE_DECL(i) atck_f8 c##i##0, c##i##1;
  CUBE_ROWS(CUBE_DECL)
#undef CUBE_DECL
  if (init == CUBE_INIT_ACC) {
#define CUBE_INIT(i) c##i##0 = atck_ld8(C + i * ldc); c##i##1 = atck_ld8(C + i * ldc + 8);
    CUBE_ROWS(CUBE_INIT)
#undef CUBE_INIT
  } else if (init == CUBE_INIT_ROWBIAS) {
#define CUBE_INIT(i) c##i##0 = atck_splat8(bias[i]); c##i##1 = c##i##0;
    CUBE_ROWS(CUBE_INIT)
#undef CUBE_INIT
  } else if (init == CUBE_INIT_COLBIAS) {
    atck_f8 b0 = atck_ld8(bias), b1 = atck_ld8(bias + 8);
#define CUBE_INIT(i) c##i##0 = b0; c##i##1 = b1;
    CUBE_ROWS(CUBE_INIT)
#undef CUBE_INIT
  } else {
    atck_f8 z = atck_splat8(0.0f);
#define CUBE_INIT(i) c##i##0 = z; c##i##1 = z;
    CUBE_ROWS(CUBE_INIT)
#undef CUBE_INIT
  }
  for (int64_t k = 0; k < K; ++k) {
    const float* b = brow(k);
    atck_f8 b0 = atck_ld8(b);
    atck_f8 b1 = atck_ld8(b + 8);
    const float* a = A + k * acs;
#define CUBE_FMA(i) { atck_f8 ai = atck_splat8(a[i * ars]); c##i##0 += ai * b0; c##i##1 += ai * b1; }
    CUBE_ROWS(CUBE_FMA)
#undef CUBE_FMA
  }
#define CUBE_STORE(i) atck_st8(C + i * ldc, c##i##0); atck_st8(C + i * ldc + 8, c##i##1);
  CUBE_ROWS(CUBE_STORE)
#undef CUBE_STORE
}

// The 512-bit family: C[16 x 16], one 16-float vector per row (16 of the 32 zmm registers),
// per k one B load and 16 FMAs whose A operand is a broadcast load. Same contract as
// cube_ukernel_rows with MR = 16.
#define CUBE_ROWS16(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
template <class BRow>
static inline ATCK_INLINE void cube_ukernel16_rows(int64_t K, const float* ATCK_RESTRICT A, BRow brow,
                                                   float* ATCK_RESTRICT C, int64_t ldc, int init,
                                                   const float* bias, int64_t ars, int64_t acs) {
#define CUBE_DECL(i) atck_v16f c##i;
  CUBE_ROWS16(CUBE_DECL)
#undef CUBE_DECL
  if (init == CUBE_INIT_ACC) {
#define CUBE_INIT(i) c##i = atck_ld16(C + i * ldc);
    CUBE_ROWS16(CUBE_INIT)
#undef CUBE_INIT
  } else if (init == CUBE_INIT_ROWBIAS) {
#define CUBE_INIT(i) c##i = atck_splat16(bias[i]);
    CUBE_ROWS16(CUBE_INIT)
#undef CUBE_INIT
  } else if (init == CUBE_INIT_COLBIAS) {
    atck_v16f b0 = atck_ld16(bias);
#define CUBE_INIT(i) c##i = b0;
    CUBE_ROWS16(CUBE_INIT)
#undef CUBE_INIT
  } else {
    atck_v16f z = atck_splat16(0.0f);
#define CUBE_INIT(i) c##i = z;
    CUBE_ROWS16(CUBE_INIT)
#undef CUBE_INIT
  }
  for (int64_t k = 0; k < K; ++k) {
    const atck_v16f b = atck_ld16(brow(k));
    const float* a = A + k * acs;
#define CUBE_FMA(i) c##i += atck_splat16(a[i * ars]) * b;
    CUBE_ROWS16(CUBE_FMA)
#undef CUBE_FMA
  }
#define CUBE_STORE(i) atck_st16(C + i * ldc, c##i);
  CUBE_ROWS16(CUBE_STORE)
#undef CUBE_STORE
}

// B: K rows of 16 floats at B + k * ldb.
static inline ATCK_INLINE void cube_ukernel(int64_t K, const float* ATCK_RESTRICT A,
                                            const float* ATCK_RESTRICT B, int64_t ldb,
                                            float* ATCK_RESTRICT C, int64_t ldc, int init,
                                            const float* bias, int64_t ars = 1,
                                            int64_t acs = CUBE_MR) {
  cube_ukernel_rows(K, A, [&](int64_t k) ATCK_INLINE { return B + k * ldb; }, C, ldc, init, bias, ars, acs);
}

// Copies elements [i, n) (fewer than 16) 8, 4, 2 and 1 at a time: constant sizes, so vector
// moves and never a call.
template <class T>
static inline ATCK_INLINE void cube_copy_tail(T* d, const T* s, int64_t i, int64_t n) {
  for (int w = 8; w >= 1; w /= 2)
    if (n - i >= w) {
      for (int q = 0; q < w; ++q) d[i + q] = s[i + q];
      i += w;
    }
}

// Copies n floats with vector moves. A plain loop from or to a local array becomes a memcpy
// call (LLVM's loop idiom: the arrays cannot alias), and a call in a kernel's inner loop costs
// the call, a vzeroupper and reloads of every live vector register after it (the ragged last
// 16 outputs of each depthwise row, the ragged tiles of the cube kernels). The empty asm keeps
// the 16-float loop from being recognised as a memcpy too.
static inline ATCK_INLINE void cube_copy_f32(float* d, const float* s, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    atck_st16(d + i, atck_ld16(s + i));
    __asm__ volatile("");
  }
  cube_copy_tail(d, s, i, n);
}

// The same for at most 16 16-bit values (float16 / bfloat16 outputs).
static inline ATCK_INLINE void cube_copy16_u16(uint16_t* d, const uint16_t* s, int64_t n) {
  if (n >= 16) {
    for (int q = 0; q < 16; ++q) d[q] = s[q];
    return;
  }
  cube_copy_tail(d, s, 0, n);
}

// Stores the first n (<= 16) lanes of v at element o of Y, of dtype ydt (float32, or float16 /
// bfloat16 rounded to nearest even): whole vectors where n is 16, never a call.
static inline ATCK_INLINE void cube_store16_dt(int64_t ydt, void* Y, int64_t o, atck_v16f v, int64_t n) {
  if (ydt == ATCK_F16 || ydt == ATCK_BF16) {
    uint16_t h[16];
    for (int l = 0; l < 16; ++l) h[l] = ydt == ATCK_F16 ? atck_f2h(v[l]) : atck_f2bf(v[l]);
    cube_copy16_u16((uint16_t*)Y + o, h, n);
  } else if (n == 16) {
    atck_st16((float*)Y + o, v);
  } else {
    float t[16];
    atck_st16(t, v);
    cube_copy_f32((float*)Y + o, t, n);
  }
}

// 16 values at element o of X, of dtype xdt (float32, float16 or bfloat16), as float32 lanes
// (whole-vector conversions once the dtype is a baked-in param).
static inline ATCK_INLINE atck_v16f cube_load16_dt(int64_t xdt, const void* X, int64_t o) {
  if (xdt == ATCK_F32) return atck_ld16((const float*)X + o);
  const uint16_t* h = (const uint16_t*)X + o;
  atck_v16f v;
  for (int l = 0; l < 16; ++l) v[l] = xdt == ATCK_F16 ? atck_h2f(h[l]) : atck_bf2f(h[l]);
  return v;
}

// The microkernel of the family with MR rows (CUBE_MR or CUBE_MR_WIDE; a baked-in param, so
// only one branch survives specialisation).
static inline ATCK_INLINE void cube_ukernel_mr(int64_t MR, int64_t K, const float* ATCK_RESTRICT A,
                                               const float* ATCK_RESTRICT B, int64_t ldb,
                                               float* ATCK_RESTRICT C, int64_t ldc, int init,
                                               const float* bias, int64_t ars, int64_t acs) {
  if (MR == CUBE_MR_WIDE)
    cube_ukernel16_rows(K, A, [&](int64_t k) ATCK_INLINE { return B + k * ldb; }, C, ldc, init, bias, ars, acs);
  else
    cube_ukernel_rows(K, A, [&](int64_t k) ATCK_INLINE { return B + k * ldb; }, C, ldc, init, bias, ars, acs);
}

// B row k at B + boff[k] (unaligned, any spacing): the band path of conv (kernels/lib/conv.cpp)
// reads its rows straight from a zero-padded copy of the input rows, so a 3x3 conv needs no
// im2col. A is a packed panel of MR rows.
static inline ATCK_INLINE void cube_ukernel_off_mr(int64_t MR, int64_t K, const float* ATCK_RESTRICT A,
                                                   const float* ATCK_RESTRICT B,
                                                   const int32_t* ATCK_RESTRICT boff,
                                                   float* ATCK_RESTRICT C, int64_t ldc, int init,
                                                   const float* bias) {
  if (MR == CUBE_MR_WIDE)
    cube_ukernel16_rows(K, A, [&](int64_t k) ATCK_INLINE { return B + boff[k]; }, C, ldc, init, bias, 1, CUBE_MR_WIDE);
  else
    cube_ukernel_rows(K, A, [&](int64_t k) ATCK_INLINE { return B + boff[k]; }, C, ldc, init, bias, 1, CUBE_MR);
}

// Any tile of mr <= MR rows and nr <= 16 columns. A: a packed panel with MR (zero padded)
// rows, or (ars, acs: see cube_ukernel) a matrix read in place, then with MR readable rows.
// B rows must be readable for 16 columns. bias: row bias (mr valid values) or column bias
// (nr valid values) as selected by init.
static inline ATCK_INLINE void cube_tile_mr(int64_t MR, int64_t K, const float* A, const float* B, int64_t ldb,
                                            float* C, int64_t ldc, int64_t mr, int64_t nr,
                                            int init, const float* bias, int64_t ars, int64_t acs) {
  if (mr == MR && nr == CUBE_NR) {
    cube_ukernel_mr(MR, K, A, B, ldb, C, ldc, init, bias, ars, acs);
    return;
  }
  float tmp[CUBE_MR_MAX * CUBE_NR] __attribute__((aligned(64)));
  float pb[CUBE_MR_MAX];
  for (int i = 0; i < CUBE_MR_MAX * CUBE_NR; ++i) tmp[i] = 0.0f;
  for (int i = 0; i < CUBE_MR_MAX; ++i) pb[i] = 0.0f;
  if (init == CUBE_INIT_ACC) {
    for (int64_t i = 0; i < mr; ++i)
      cube_copy_f32(tmp + i * CUBE_NR, C + i * ldc, nr);
  } else if (init == CUBE_INIT_ROWBIAS) {
    for (int64_t i = 0; i < mr; ++i) pb[i] = bias[i];
  } else if (init == CUBE_INIT_COLBIAS) {
    for (int64_t j = 0; j < nr; ++j) pb[j] = bias[j];
  }
  cube_ukernel_mr(MR, K, A, B, ldb, tmp, CUBE_NR, init, pb, ars, acs);
  for (int64_t i = 0; i < mr; ++i)
    cube_copy_f32(C + i * ldc, tmp + i * CUBE_NR, nr);
}

// The 6-row family's tile (attention, conv_transpose).
static inline ATCK_INLINE void cube_tile(int64_t K, const float* A, const float* B, int64_t ldb,
                                         float* C, int64_t ldc, int64_t mr, int64_t nr,
                                         int init, const float* bias, int64_t ars = 1,
                                         int64_t acs = CUBE_MR) {
  cube_tile_mr(CUBE_MR, K, A, B, ldb, C, ldc, mr, nr, init, bias, ars, acs);
}

// Packs rows [m0, m0+mr) x cols [k0, k0+kc) of a matrix A (element (m,k) at
// A[m*rs + k*cs]) into one k-major panel dst[kc][MR], zero padding rows >= mr, times alpha.
static inline ATCK_INLINE void cube_pack_a_f32(const float* A, int64_t rs, int64_t cs,
                                               int64_t m0, int64_t mr, int64_t k0, int64_t kc,
                                               float alpha, float* dst, int64_t MR = CUBE_MR) {
  for (int64_t k = 0; k < kc; ++k) {
    for (int64_t i = 0; i < MR; ++i)
      dst[k * MR + i] = i < mr ? alpha * A[(m0 + i) * rs + (k0 + k) * cs] : 0.0f;
  }
}

// Element i of a float32 / float16 / bfloat16 buffer as float (precision modes: reduced
// inputs are storage types, converted on load/pack; dt is a baked-in kernel param).
static inline ATCK_INLINE float cube_ldx(const void* p, int64_t dt, int64_t i) {
  if (dt == ATCK_F16) return atck_h2f(((const uint16_t*)p)[i]);
  if (dt == ATCK_BF16) return atck_bf2f(((const uint16_t*)p)[i]);
  return ((const float*)p)[i];
}

// cube_pack_a_f32 for any of float32 / float16 / bfloat16.
static inline ATCK_INLINE void cube_pack_a_dt(const void* A, int64_t dt, int64_t rs, int64_t cs,
                                              int64_t m0, int64_t mr, int64_t k0, int64_t kc,
                                              float alpha, float* dst, int64_t MR = CUBE_MR) {
  if (dt == ATCK_F32) {
    cube_pack_a_f32((const float*)A, rs, cs, m0, mr, k0, kc, alpha, dst, MR);
    return;
  }
  for (int64_t k = 0; k < kc; ++k) {
    for (int64_t i = 0; i < MR; ++i)
      dst[k * MR + i] = i < mr ? alpha * cube_ldx(A, dt, (m0 + i) * rs + (k0 + k) * cs) : 0.0f;
  }
}

// 64-byte aligned pointer into a workspace.
static inline ATCK_INLINE float* cube_align(void* p) {
  uintptr_t u = (uintptr_t)p;
  u = (u + 63) & ~(uintptr_t)63;
  return (float*)u;
}

static inline ATCK_INLINE int64_t cube_min(int64_t a, int64_t b) { return a < b ? a : b; }
static inline ATCK_INLINE int64_t cube_max(int64_t a, int64_t b) { return a > b ? a : b; }
static inline ATCK_INLINE int64_t cube_ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Activations the epilogue computes on 8-lane registers: the same operations in the same order
// as atck_unary_f (math_ops.h; atck_expneg8 is atck_expnegf lane by lane), so results are identical.
static inline ATCK_INLINE int cube_act8_ok(int64_t act) {
  return act == ATCK_E_SIGMOID || act == ATCK_E_SILU || act == ATCK_E_HARDSIGMOID ||
         act == ATCK_E_HARDSWISH || act == ATCK_E_LEAKYRELU;
}

template <class VF, class VI, VF (*S)(float), VF (*E)(VF)>
static inline ATCK_INLINE VF cube_act_lanes(int64_t act, VF x, float a, float b) {
  const VF zero = S(0.0f), one = S(1.0f);
  if (act == ATCK_E_LEAKYRELU) return x < zero ? S(a) * x : x;
  if (act == ATCK_E_HARDSIGMOID || act == ATCK_E_HARDSWISH) {
    VF v = act == ATCK_E_HARDSIGMOID ? S(a) * x + S(b) : x * S((float)(1.0 / 6.0)) + S(0.5f);
    v = v < zero ? zero : (v > one ? one : v);
    return act == ATCK_E_HARDSWISH ? x * v : v;
  }
  VI neg = x < zero;  // atck_sigmoidf / atck_siluf (math_fast.h), lane by lane
  VF e = E(neg ? x : -x);
  VF r = one / (one + e);
  VF sg = neg ? e * r : r;
  return act == ATCK_E_SILU ? x * sg : sg;
}

static inline ATCK_INLINE atck_f8 cube_act8(int64_t act, atck_f8 x, float a, float b) {
  return cube_act_lanes<atck_f8, atck_i8, atck_splat8, atck_expneg8>(act, x, a, b);
}
// The same on 16 lanes: one zmm on 512-bit targets (half the instructions of two 8-lane halves).
static inline ATCK_INLINE atck_v16f cube_act16(int64_t act, atck_v16f x, float a, float b) {
  return cube_act_lanes<atck_v16f, atck_v16i, atck_splat16, atck_expneg16>(act, x, a, b);
}

// Epilogue of a finished output tile (UB fusion, TbeCommonRules0FusionPass): E[0] = unary
// AtckEltOp code + 1 (0: none), E[1]/E[2] its alpha/beta (double bits), E[3] = buffer index
// + 1 of a residual input laid out like the output (0: none), added before the activation.
// C is the tile inside output Y; the tile is still in L1 when this runs.
// Vectorised: the tile (+ residual) is copied into a 6x16 block, the activation runs over
// whole 16-float rows (constant trip count, so LLVM vectorises the polynomial exp/erf/tanh of
// math_fast.h into 8-lane vectors; a variable nr <= 16 would leave it all in the scalar
// remainder loop), and the valid part is stored back.
// cube_epilogue_r: the same with the residual tile R (row stride ldc; null: none) given.
static inline ATCK_INLINE void cube_epilogue_r(const int64_t* E, const float* R, float* C, int64_t ldc,
                                               int64_t mr, int64_t nr) {
  const int64_t act = E[0] - 1;
  if (act < 0 && !R) return;
  if (act < 0 || act == ATCK_E_RELU || act == ATCK_E_CLIP) {
    // Cheap ops: in place, no staging (vectorises well enough on full rows).
    AtckEltPrm prm;
    prm.a = atck_d(E[1]);
    prm.b = atck_d(E[2]);
    const float lo = act == ATCK_E_RELU ? 0.0f : (float)prm.a, hi = act == ATCK_E_CLIP ? (float)prm.b : 0.0f;
    for (int64_t i = 0; i < mr; ++i) {
      float* c = C + i * ldc;
      const float* r = R ? R + i * ldc : 0;
      if (nr == CUBE_NR) {
        atck_f8 v0 = atck_ld8(c), v1 = atck_ld8(c + 8);
        if (R) v0 += atck_ld8(r), v1 += atck_ld8(r + 8);
        if (act >= 0) {
          atck_f8 l = atck_splat8(lo);
          v0 = v0 < l ? l : v0;
          v1 = v1 < l ? l : v1;
          if (act == ATCK_E_CLIP) {
            atck_f8 h = atck_splat8(hi);
            v0 = v0 > h ? h : v0;
            v1 = v1 > h ? h : v1;
          }
        }
        atck_st8(c, v0);
        atck_st8(c + 8, v1);
        continue;
      }
      for (int64_t j = 0; j < nr; ++j) {
        float v = c[j];
        if (R) v += r[j];
        if (act >= 0) {
          v = v < lo ? lo : v;
          if (act == ATCK_E_CLIP) v = v > hi ? hi : v;
        }
        c[j] = v;
      }
    }
    return;
  }
  if (cube_act8_ok(act)) {  // in registers, no staging
    const float a = (float)atck_d(E[1]), b = (float)atck_d(E[2]);
    for (int64_t i = 0; i < mr; ++i) {
      float* c = C + i * ldc;
      const float* r = R ? R + i * ldc : 0;
      if (nr == CUBE_NR) {
        atck_v16f v = atck_ld16(c);
        if (R) v += atck_ld16(r);
        atck_st16(c, cube_act16(act, v, a, b));
        continue;
      }
      float t[CUBE_NR] __attribute__((aligned(32)));
      for (int j = 0; j < CUBE_NR; ++j) t[j] = 0.0f;
      if (R)
        for (int64_t j = 0; j < nr; ++j) t[j] = c[j] + r[j];
      else
        cube_copy_f32(t, c, nr);
      atck_st16(t, cube_act16(act, atck_ld16(t), a, b));
      cube_copy_f32(c, t, nr);
    }
    return;
  }
  AtckEltPrm prm;
  prm.a = atck_d(E[1]);
  prm.b = atck_d(E[2]);
  prm.g = 0;
  prm.ia = 0;
  prm.ib = 0;
  float t[CUBE_MR_MAX * CUBE_NR] __attribute__((aligned(32)));  // mr <= MR of either family
  for (int64_t i = 0; i < mr; ++i) {
    const float* c = C + i * ldc;
    const float* r = R ? R + i * ldc : 0;
    float* d = t + i * CUBE_NR;
    if (nr == CUBE_NR) {
      atck_f8 v0 = atck_ld8(c), v1 = atck_ld8(c + 8);
      if (R) v0 += atck_ld8(r), v1 += atck_ld8(r + 8);
      *(atck_f8*)d = v0;
      *(atck_f8*)(d + 8) = v1;
    } else {
      for (int j = 0; j < CUBE_NR; ++j) d[j] = 0.0f;
      if (R)
        for (int64_t j = 0; j < nr; ++j) d[j] = c[j] + r[j];
      else
        cube_copy_f32(d, c, nr);
    }
  }
  ATCK_ROWS_LOOP
  for (int64_t i = 0; i < mr; ++i) {
    float* d = t + i * CUBE_NR;
    for (int j = 0; j < CUBE_NR; ++j) d[j] = atck_unary_f<float>(act, d[j], prm);
  }
  for (int64_t i = 0; i < mr; ++i) {
    float* c = C + i * ldc;
    const float* d = t + i * CUBE_NR;
    if (nr == CUBE_NR) {
      atck_st8(c, *(const atck_f8*)d);
      atck_st8(c + 8, *(const atck_f8*)(d + 8));
    } else {
      cube_copy_f32(c, d, nr);
    }
  }
}

// Epilogues that cube_epi16 computes on a register: none, ReLU, Clip and the cube_act8_ok ones.
static inline ATCK_INLINE int cube_epi_in_regs(const int64_t* E) {
  const int64_t act = E[0] - 1;
  return act < 0 || atck_act_in_regs(act);
}

// The epilogue of 16 finished outputs held in a register (R: their 16 residual values, or null),
// with the same operations as cube_epilogue_r. A kernel that stores its outputs and has the
// epilogue reload them pays a failed store-to-load forward whenever the reload is wider than the
// stores, and the reload then waits for the stores to retire (a depthwise layer with SiLU ran
// at 9 GFLOP/s that way).
// Activation act (< 0: none; else one of atck_act_in_regs) with parameters a, b on 16 lanes.
static inline ATCK_INLINE atck_v16f cube_act16_regs(int64_t act, atck_v16f v, float a, float b) {
  if (act == ATCK_E_RELU || act == ATCK_E_CLIP) {
    const atck_v16f l = atck_splat16(act == ATCK_E_RELU ? 0.0f : a);
    v = v < l ? l : v;
    if (act == ATCK_E_CLIP) {
      const atck_v16f h = atck_splat16(b);
      v = v > h ? h : v;
    }
    return v;
  }
  return act >= 0 ? cube_act16(act, v, a, b) : v;
}

static inline ATCK_INLINE atck_v16f cube_epi16(const int64_t* E, atck_v16f v, const float* R) {
  if (R) v += atck_ld16(R);
  return cube_act16_regs(E[0] - 1, v, (float)atck_d(E[1]), (float)atck_d(E[2]));
}

static inline ATCK_INLINE void cube_epilogue(const int64_t* E, void** bufs, const float* Y, float* C,
                                             int64_t ldc, int64_t mr, int64_t nr) {
  const int64_t ri = E[3] - 1;
  cube_epilogue_r(E, ri >= 0 ? (const float*)bufs[ri] + (C - Y) : 0, C, ldc, mr, nr);
}

// Store of a finished fp32 tile (acc, row stride lda) into an output of dtype ydt (f32, f16,
// bf16) at element offset yoff of bufs-output Y (row stride ldy): the epilogue (residual,
// float32, at the same offset of its buffer; activation) in fp32, then round to nearest even
// on the store (atck_f2h / atck_f2bf). Used when a cube op writes float16/bfloat16 directly
// (CastFoldingPass folded the Cast after it).
static inline ATCK_INLINE void cube_store_dt(const int64_t* E, void** bufs, int64_t ydt, void* Y, int64_t yoff,
                                             int64_t ldy, const float* acc, int64_t lda, int64_t mr, int64_t nr) {
  const int64_t act = E[0] - 1, ri = E[3] - 1;
  const float* R = ri >= 0 ? (const float*)bufs[ri] + yoff : 0;
  if (nr == CUBE_NR && act >= 0 && !cube_epi_in_regs(E)) {
    // Activations computed outside registers (GELU's erf, tanh, ...): the whole tile through
    // cube_epilogue_r's staged 16-float rows, as the float32 stores do; row by row below they
    // stayed scalar (BERT-base's GELU MatMuls, float16 output: 3x their float32 time).
    float t[CUBE_MR_MAX * CUBE_NR] __attribute__((aligned(64)));
    for (int64_t i = 0; i < mr; ++i) {
      atck_v16f v = atck_ld16(acc + i * lda);
      if (ri >= 0) v += atck_ld16(R + i * ldy);
      atck_st16(t + i * CUBE_NR, v);
    }
    cube_epilogue_r(E, 0, t, CUBE_NR, mr, CUBE_NR);
    ATCK_ROWS_LOOP
    for (int64_t i = 0; i < mr; ++i) cube_store16_dt(ydt, Y, yoff + i * ldy, atck_ld16(t + i * CUBE_NR), CUBE_NR);
    return;
  }
  AtckEltPrm prm;
  prm.a = atck_d(E[1]);
  prm.b = atck_d(E[2]);
  prm.g = 0;
  prm.ia = 0;
  prm.ib = 0;
  ATCK_ROWS_LOOP
  for (int64_t i = 0; i < mr; ++i) {
    const float* c = acc + i * lda;
    const float* r = ri >= 0 ? R + i * ldy : 0;  // ri is a constant: no null select left (oom checks)
    const int64_t o = yoff + i * ldy;
    if (nr == CUBE_NR && cube_epi_in_regs(E)) {  // full row, epilogue in a register
      cube_store16_dt(ydt, Y, o, cube_epi16(E, atck_ld16(c), ri >= 0 ? r : 0), CUBE_NR);
      continue;
    }
    if (nr == CUBE_NR) {  // full rows: constant trip counts, so every step vectorises
      float t[CUBE_NR];
      for (int j = 0; j < CUBE_NR; ++j) t[j] = ri >= 0 ? c[j] + r[j] : c[j];
      if (act >= 0)
        for (int j = 0; j < CUBE_NR; ++j) t[j] = atck_unary_f<float>(act, t[j], prm);
      cube_store16_dt(ydt, Y, o, atck_ld16(t), CUBE_NR);
      continue;
    }
    for (int64_t j = 0; j < nr; ++j) {
      float v = c[j];
      if (ri >= 0) v += r[j];
      if (act >= 0) v = atck_unary_f<float>(act, v, prm);
      if (ydt == ATCK_F16) ((uint16_t*)Y)[o + j] = atck_f2h(v);
      else if (ydt == ATCK_BF16) ((uint16_t*)Y)[o + j] = atck_f2bf(v);
      else ((float*)Y)[o + j] = v;
    }
  }
}
