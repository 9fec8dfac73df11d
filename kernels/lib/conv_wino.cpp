// Winograd F(4x4, 3x3) convolution in three kernels (params: wino_params.h; the ops and the pass
// that choose it: ops/cube/winograd.cpp, passes/implmode/conv_winograd_pass.cpp; docs/kernels-cube.md).
// Y = A^T [ (G g G^T) . (B^T d B) ] A per 6x6 input patch d and 4x4 output tile: 36 multiplies
// per 16 outputs and input channel instead of 144. Interpolation points 0, 1, -1, 1/2, -2 and
// infinity: B^T and A^T have dyadic coefficients (exact in float32), and the error is about half
// that of the usual 0, +-1, +-2 (measured in float32 on 256-channel sums: 4.0e-6 against 7.6e-6 of
// the largest output; the direct sum: 5e-7).
//   B^T = [1 -3/2 -2 3/2 1 0; 0 -1 1/2 5/2 1 0; 0 1 -5/2 1/2 1 0; 0 -2 -1 2 1 0; 0 1/2 -1 -1/2 1 0;
//          0 1 -3/2 -2 3/2 1]
//   A^T = [1 1 1 1 1 0; 0 1 -1 1/2 -2 0; 0 1 1 1/4 4 0; 0 1 -1 1/8 -8 1]
// (G, the weight transform, runs at compile time in the WinogradGemm lowering.)
#include "kernels/lib/cube_params.h"
#include "kernels/lib/cube_ukoc.h"
#include "kernels/lib/wino_params.h"

// The 1-D input transform B^T d of six vectors (16 tiles each).
static inline ATCK_INLINE void wino_bt6(const atck_v16f* d, atck_v16f* t) {
  const atck_v16f h = atck_splat16(0.5f), two = atck_splat16(2.0f), one5 = atck_splat16(1.5f);
  const atck_v16f two5 = atck_splat16(2.5f);
  t[0] = d[0] + one5 * (d[3] - d[1]) - two * d[2] + d[4];
  t[1] = h * d[2] - d[1] + two5 * d[3] + d[4];
  t[2] = d[1] - two5 * d[2] + h * d[3] + d[4];
  t[3] = two * (d[3] - d[1]) - d[2] + d[4];
  t[4] = h * (d[1] - d[3]) - d[2] + d[4];
  t[5] = d[1] - one5 * d[2] - two * d[3] + one5 * d[4] + d[5];
}

// The 1-D output transform A^T m of six vectors.
static inline ATCK_INLINE void wino_at6(const atck_v16f* m, atck_v16f* o) {
  const atck_v16f s12 = m[1] + m[2], d12 = m[1] - m[2];
  o[0] = m[0] + s12 + m[3] + m[4];
  o[1] = d12 + atck_splat16(0.5f) * m[3] - atck_splat16(2.0f) * m[4];
  o[2] = s12 + atck_splat16(0.25f) * m[3] + atck_splat16(4.0f) * m[4];
  o[3] = d12 + atck_splat16(0.125f) * m[3] - atck_splat16(8.0f) * m[4] + m[5];
}

// ---- wino_in: task = input plane (n, c); V[pos][c][t] for its tiles -------------------------
ATC_KERNEL(wino_in)

int64_t atck_wino_in_ntasks(const int64_t* P) { return P[WI_N] * P[WI_C]; }

// Padded input row ih of plane X + xoff as 4 column phases: ph[p][j] = x[ih][4j + p - PL] (zero
// outside the row, or everywhere when ih is outside the plane), j < NJ (a multiple of 16): the
// row copied into a zero-padded buffer, then de-interleaved 64 floats at a time by two rounds of
// two-source shuffles (a stride-4 loop stayed scalar).
static inline ATCK_INLINE void wino_row_phases(const int64_t* P, const void* X, int64_t xoff, int64_t ih, float* ph,
                                               int64_t NJ) {
  const int64_t H = P[WI_H], W = P[WI_W], PL = P[WI_PL], xdt = P[WI_XDT];
  float row[4 * (WINO_MAX_W / 4 + 48)] __attribute__((aligned(64)));
  const int64_t n = 4 * NJ;
  const int inside = ih >= 0 && ih < H;
  const int64_t lo = inside ? cube_min(PL, n) : n, hi = inside ? cube_min(n, PL + W) : n;
  for (int64_t q = 0; q < n; q += 16) {  // vector stores (a zeroing loop became a memset call)
    atck_st16(row + q, atck_splat16(0.0f));
    __asm__ volatile("");
  }
  if (xdt == ATCK_F32) {
    if (hi > lo) cube_copy_f32(row + lo, (const float*)X + xoff + ih * W + lo - PL, hi - lo);
  } else if (xdt == ATCK_F16) {  // contiguous conversions (vcvtph2ps / shifts)
    const uint16_t* src = (const uint16_t*)X + xoff + ih * W - PL;
    ATCK_VEC16
    for (int64_t q = lo; q < hi; ++q) row[q] = atck_h2f(src[q]);
  } else {
    const uint16_t* src = (const uint16_t*)X + xoff + ih * W - PL;
    ATCK_VEC16
    for (int64_t q = lo; q < hi; ++q) row[q] = atck_bf2f(src[q]);
  }
  for (int64_t j = 0; j < NJ; j += 16) {
    const float* r = row + 4 * j;
    const atck_v16f a = atck_ld16(r), b = atck_ld16(r + 16), c = atck_ld16(r + 32), d = atck_ld16(r + 48);
    // Even / odd elements of (a, b) and (c, d), then of those: phases 0, 2 and 1, 3.
    const atck_v16f abE = __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const atck_v16f abO = __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const atck_v16f cdE = __builtin_shufflevector(c, d, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const atck_v16f cdO = __builtin_shufflevector(c, d, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    atck_st16(ph + j, __builtin_shufflevector(abE, cdE, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30));
    atck_st16(ph + 2 * NJ + j,
              __builtin_shufflevector(abE, cdE, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31));
    atck_st16(ph + NJ + j, __builtin_shufflevector(abO, cdO, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30));
    atck_st16(ph + 3 * NJ + j,
              __builtin_shufflevector(abO, cdO, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31));
  }
}

void atck_wino_in_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t C = P[WI_C], H = P[WI_H], W = P[WI_W], PT = P[WI_PT], TH = P[WI_TH], TW = P[WI_TW];
  const int64_t TP = P[WI_TP], VPOS = P[WI_VPOS];
  const int64_t NJ = (TW + 15) / 16 * 16 + 16;  // phase columns: whole 16-tile chunks, +1 tile
  float* V = (float*)bufs[1];
  for (int64_t task = begin; task < end; ++task) {
    const int64_t n = task / C, c = task % C, xoff = task * H * W;
    // Padded rows 4tr .. 4tr + 5 of tile row tr in a ring of 6 (row rr at rr % 6): the next tile
    // row reuses the last two.
    float ph[6][4 * (WINO_MAX_W / 4 / 16 * 16 + 48)] __attribute__((aligned(64)));
    for (int64_t tr = 0; tr < TH; ++tr) {
      for (int64_t r = tr == 0 ? 0 : 2; r < 6; ++r)
        wino_row_phases(P, bufs[0], xoff, 4 * tr - PT + r, ph[(4 * tr + r) % 6], NJ);
      for (int64_t tc = 0; tc < TW; tc += 16) {
        // Rows: B^T along the 6 columns of each patch row (tile lane l: columns 4(tc+l) .. +5).
        atck_v16f w[6][6];
        for (int64_t r = 0; r < 6; ++r) {
          const float* pr = ph[(4 * tr + r) % 6];
          atck_v16f d[6];
          for (int k = 0; k < 6; ++k) d[k] = atck_ld16(pr + (k % 4) * NJ + tc + k / 4);
          wino_bt6(d, w[r]);
        }
        // Columns: B^T along the 6 rows; position (i, k) of tile t at V[(i*6+k)][c][t]. Lanes
        // past the tile row land in the next tile rows of this plane, written later; none may
        // pass the plane's last tile (the next are another task's).
        const int64_t t0 = (n * TH + tr) * TW + tc, nl = cube_min(16, (n + 1) * TH * TW - t0);
        for (int k = 0; k < 6; ++k) {
          atck_v16f col[6], v[6];
          for (int r = 0; r < 6; ++r) col[r] = w[r][k];
          wino_bt6(col, v);
          for (int i = 0; i < 6; ++i) {
            float* dst = V + (int64_t)(i * 6 + k) * VPOS + c * TP + t0;
            if (nl == 16) atck_st16(dst, v[i]);
            else {
              float tmp[16] __attribute__((aligned(64)));
              atck_st16(tmp, v[i]);
              cube_copy_f32(dst, tmp, nl);
            }
          }
        }
      }
    }
  }
}

// ---- wino_gemm: task = (position, tile block, channel block); M[pos][t][oc] --------------------
ATC_KERNEL(wino_gemm)

int64_t atck_wino_gemm_ntasks(const int64_t* P) { return 36 * P[WI_NTB] * P[WI_NMB]; }

// NV: vectors per weight panel (4: 64 channels, 6-tile rows; 2: 32 channels, 8-tile rows; 1: 16
// channels, 6-tile rows, the 256-bit targets' panels).
template <int NV>
static inline ATCK_INLINE void wino_gemm_t(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  constexpr int64_t NR = NV * 16, PR = CUBE_OC_ROWS(NV);
  const int64_t C = P[WI_C], TP = P[WI_TP], OCP = P[WI_OCP], KC = P[WI_KC], TB = P[WI_TB], MB = P[WI_MB];
  const int64_t T = P[WI_T], NP = OCP / NR, VPOS = P[WI_VPOS], MPOS = P[WI_MPOS];
  const float* V = (const float*)bufs[0];
  const float* U = (const float*)bufs[1];
  float* M = (float*)bufs[2];
  for (int64_t task = begin; task < end; ++task) {
    const int64_t mb = task % P[WI_NMB], tb = (task / P[WI_NMB]) % P[WI_NTB], pos = task / (P[WI_NMB] * P[WI_NTB]);
    const int64_t t0 = tb * TB, tEnd = cube_min(T, t0 + TB), m0 = mb * MB, mEnd = cube_min(OCP, m0 + MB);
    CubeOcInit init;
    for (int v = 0; v < 4; ++v) init.v[v] = atck_splat16(0.0f);
    for (int64_t k0 = 0; k0 < C; k0 += KC) {
      const int64_t kc = cube_min(KC, C - k0);
      const float* Vk = V + pos * VPOS + k0 * TP;
      auto arow = [&](int64_t k) ATCK_INLINE { return Vk + k * TP; };
      for (int64_t m = m0; m < mEnd; m += NR) {
        const float* Wp = U + ((pos * NP + m / NR) * C + k0) * NR;
        for (int64_t t = t0; t < tEnd; t += PR) {
          const int64_t pr = cube_min(PR, tEnd - t);
          int64_t q[PR];
          for (int i = 0; i < PR; ++i) q[i] = t + (i < pr ? i : 0);
          cube_ukoc_any<NV>(pr, kc, Wp, NR, arow, q, M + pos * MPOS + t * OCP + m, OCP, k0 > 0, init);
        }
      }
    }
  }
}

void atck_wino_gemm_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  if (P[WI_NR] == 32) wino_gemm_t<2>(P, bufs, begin, end);
  else if (P[WI_NR] == 16) wino_gemm_t<1>(P, bufs, begin, end);
  else wino_gemm_t<4>(P, bufs, begin, end);
}

// ---- wino_out: task = (n, 16 output channels, tile row); Y with bias and epilogue --------------
ATC_KERNEL(wino_out)

int64_t atck_wino_out_ntasks(const int64_t* P) { return P[WI_N] * (P[WI_OCP] / 16) * P[WI_TH]; }

void atck_wino_out_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t OC = P[WI_OC], OCP = P[WI_OCP], OH = P[WI_OH], OW = P[WI_OW], TH = P[WI_TH], TW = P[WI_TW];
  const int64_t MPOS = P[WI_MPOS], NPIX = OH * OW, NOB = OCP / 16;
  const int64_t ydt = P[WI_ODT] ? P[WI_ODT] : ATCK_F32;
  const float* M = (const float*)bufs[0];
  const float* bias = P[WI_HAS_BIAS] ? (const float*)bufs[1] : 0;
  for (int64_t task = begin; task < end; ++task) {
    const int64_t tr = task % TH, ob = (task / TH) % NOB, n = task / (TH * NOB), oc0 = ob * 16;
    if (oc0 >= OC) continue;
    float bv[16] __attribute__((aligned(64)));
    for (int l = 0; l < 16; ++l) bv[l] = bias && oc0 + l < OC ? bias[oc0 + l] : 0.0f;
    const atck_v16f b = atck_ld16(bv);
    const int64_t mr = cube_min(16, OC - oc0), rows = cube_min(4, OH - 4 * tr);
    for (int64_t tc0 = 0; tc0 < TW; tc0 += 4) {
      // Up to 4 tiles: 16 output columns of 4 rows for 16 channels, staged [oc][row][16].
      float st[16 * 4 * 16] __attribute__((aligned(64)));
      for (int64_t tc = tc0; tc < cube_min(TW, tc0 + 4); ++tc) {
        const float* m0 = M + ((n * TH + tr) * TW + tc) * OCP + oc0;
        atck_v16f s[6][4];
        for (int i = 0; i < 6; ++i) {
          atck_v16f mv[6];
          for (int k = 0; k < 6; ++k) mv[k] = atck_ld16(m0 + (int64_t)(i * 6 + k) * MPOS);
          wino_at6(mv, s[i]);
        }
        float y[256] __attribute__((aligned(64)));  // [row * 4 + col][oc]
        for (int x = 0; x < 4; ++x) {
          atck_v16f col[6], o[4];
          for (int i = 0; i < 6; ++i) col[i] = s[i][x];
          wino_at6(col, o);
          for (int r = 0; r < 4; ++r) atck_st16(y + (r * 4 + x) * 16, o[r] + b);
        }
        float yt[256] __attribute__((aligned(64)));  // [oc][row * 4 + col]
        cube_transpose16(y, 16, yt);
        for (int oc = 0; oc < 16; ++oc)
          for (int r = 0; r < 4; ++r)
            for (int x = 0; x < 4; ++x) st[(oc * 4 + r) * 16 + (tc - tc0) * 4 + x] = yt[oc * 16 + r * 4 + x];
      }
      const int64_t col0 = 4 * tc0, nr = cube_min(16, OW - col0);
      for (int64_t r = 0; r < rows; ++r)
        cube_store_dt(P + WI_EPI, bufs, ydt, bufs[P[WI_YIDX]], (n * OC + oc0) * NPIX + (4 * tr + r) * OW + col0, NPIX,
                      st + r * 16, 64, mr, nr);
    }
  }
}
