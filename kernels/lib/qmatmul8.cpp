// Kernel "qmatmul8": matrix product of an 8-bit input X [M][K] with constant int8 weights and a
// float32 output (QuantizedMatMul; params and layouts: quant_params.h QMatMul8Param). The int8
// path of a QDQ model's MatMul / Gemm (a transformer's projections, a classifier head).
//
// A task is (block of MB rows, group of 16-column weight panels):
//  1. row fill: the block's rows of X quantized (float X: QuantizeLinear's rint(x / scale) +
//     zero point, saturated) or copied (uint8; int8 flipped to uint8), zero-point padded to
//     whole k-quads: 4 consecutive k per 32-bit word, the broadcast operand of vpdpbusd;
//  2. per 3 panels (48 columns) and per 8 rows: 8 x 48 int32 accumulators over the k-quads,
//     one 64-byte weight load per panel and one broadcast row word per row and k-quad
//     (24 vpdpbusd per 11 loads; a row's accumulators are whole output row segments, so the
//     epilogue needs no transpose);
//  3. epilogue: (acc - comp[n]) * mult[n] + bias[n], stored to Y's rows.
// The accumulation has five implementations with identical results: vpdpbusd on 512-bit
// vectors (QM_VNNI 1, AVX512-VNNI) or on 256-bit ones (QM_VNNI 2, AVX-VNNI: targets without
// AVX-512), AMX tiles (QM_VNNI 3, AMX-INT8: 16 rows per tile, tdpbusd), vpmaddwd on operands
// widened to int16 (QM_VNNI 4, AVX2 without VNNI; weights packed widened), in the native build
// also only when the host has it, and portable int32 vector code (any host: constant folding,
// kernel tests).
#include <string.h>

#include "kernels/lib/amx_common.h"
#include "kernels/lib/qconv8_common.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

ATC_KERNEL(qmatmul8)

int64_t atck_qmatmul8_ntasks(const int64_t* P) { return P[QM_NMB] * P[QM_NPG]; }

// Rows [m0, m0 + MBP) of xq as bytes, KQ * 4 per row (rows past M and bytes past K: the zero
// point).
static void qm_rows_fill(const int64_t* P, void** bufs, int64_t m0, int64_t mbp, uint8_t* rows) {
  const int64_t M = P[QM_M], K = P[QM_K], RL = P[QM_KQ] * 4;
  const Q8Quant q = q8_in_quant(P[QM_XSCALE], P[QM_XZP], P[QM_QDT]);
  const uint8_t zpb = (uint8_t)((P[QM_XZP] + q.flip) & 0xFF);
  for (int64_t i = 0; i < mbp; ++i) {
    uint8_t* d = rows + i * RL;
    const int64_t m = m0 + i;
    if (m >= M) {
      memset(d, zpb, (size_t)RL);
      continue;
    }
    int64_t k = 0;
    switch (P[QM_XDT]) {
      case ATCK_F32: {
        const float* x = (const float*)bufs[P[QM_XBUF]] + m * K;
        for (; k + 16 <= K; k += 16) *(q8_u8x16*)(d + k) = __builtin_convertvector(q8_quant16(q, x + k), q8_u8x16);
        for (; k < K; ++k) d[k] = (uint8_t)q8_quant1(q, x[k]);
        break;
      }
      case ATCK_U8:
        memcpy(d, (const uint8_t*)bufs[P[QM_XBUF]] + m * K, (size_t)K);
        k = K;
        break;
      default: {
        const uint8_t* x = (const uint8_t*)bufs[P[QM_XBUF]] + m * K;
        for (; k < K; ++k) d[k] = (uint8_t)(x[k] ^ 0x80u);
      }
    }
    for (k = K; k < RL; ++k) d[k] = zpb;
  }
}

// 8 rows x nv panels: acc[(i * 3 + v) * 16 + j] = sum over k-quads of row i's words times
// column j of panel v (pw: panel 0's weights, panels pstride bytes apart).
static void qm_tile_portable(const uint32_t* xr, int64_t KQ, const int8_t* pw, int64_t pstride, int nv, int32_t* acc) {
  for (int v = 0; v < nv; ++v)
    for (int i = 0; i < 8; ++i) {
      q8_i32 a = q8_splati(0);
      const uint32_t* x = xr + i * KQ;
      const int8_t* w = pw + v * pstride;
      for (int64_t kq = 0; kq < KQ; ++kq) {
        const q8_i32 wv = *(const q8_i32u*)(w + kq * 64);
        const uint32_t xw = x[kq];
        for (int b = 0; b < 4; ++b) a += q8_splati((int32_t)((xw >> (8 * b)) & 0xFFu)) * ((q8_i32)((q8_u32)wv << (24 - 8 * b)) >> 24);
      }
      *(q8_i32u*)(acc + (i * 3 + v) * 16) = a;
    }
}

// The same over widened weights (Q8_WIDE_PATH: per k-quad 16 words of bytes 0 and 2 as int16,
// then 16 of bytes 1 and 3), for hosts without AVX2.
static void qm_tile_portable_wide(const uint32_t* xr, int64_t KQ, const int32_t* pw, int64_t pstride, int nv,
                                  int32_t* acc) {
  for (int v = 0; v < nv; ++v)
    for (int i = 0; i < 8; ++i) {
      q8_i32 a = q8_splati(0);
      const uint32_t* x = xr + i * KQ;
      const int32_t* w = pw + v * pstride / 4;
      for (int64_t kq = 0; kq < KQ; ++kq, w += 32) {
        const q8_i32 e = *(const q8_i32u*)w, o = *(const q8_i32u*)(w + 16);
        const q8_i32 e0 = (q8_i32)((q8_u32)e << 16) >> 16, o0 = (q8_i32)((q8_u32)o << 16) >> 16;  // low halves
        const uint32_t xw = x[kq];
        a += q8_splati((int32_t)(xw & 0xFFu)) * e0 + q8_splati((int32_t)((xw >> 16) & 0xFFu)) * (e >> 16) +
             q8_splati((int32_t)((xw >> 8) & 0xFFu)) * o0 + q8_splati((int32_t)(xw >> 24)) * (o >> 16);
      }
      *(q8_i32u*)(acc + (i * 3 + v) * 16) = a;
    }
}

#if defined(__x86_64__)
#if defined(__clang__)
#define QM_VNNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni,evex512")))
#else
#define QM_VNNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni")))
#endif
#define QM_VNNI256_TARGET __attribute__((target("avx2,avxvnni")))
#define QM_AVX2_TARGET __attribute__((target("avx2")))
// The same with vpdpbusd: per k-quad NV 64-byte weight loads and 8 broadcast row words.
template <int NV>
QM_VNNI_TARGET static void qm_tile_vnni(const uint32_t* xr, int64_t KQ, const int8_t* pw, int64_t pstride,
                                        int32_t* acc) {
  __m512i a[8][NV];
  for (int i = 0; i < 8; ++i)
    for (int v = 0; v < NV; ++v) a[i][v] = _mm512_setzero_si512();
  for (int64_t kq = 0; kq < KQ; ++kq) {
    __m512i wv[NV];
    for (int v = 0; v < NV; ++v) wv[v] = _mm512_loadu_si512((const void*)(pw + v * pstride + kq * 64));
    for (int i = 0; i < 8; ++i) {
      const __m512i xb = _mm512_set1_epi32((int32_t)xr[i * KQ + kq]);
      for (int v = 0; v < NV; ++v) a[i][v] = _mm512_dpbusd_epi32(a[i][v], xb, wv[v]);
    }
  }
  for (int i = 0; i < 8; ++i)
    for (int v = 0; v < NV; ++v) _mm512_storeu_si512((void*)(acc + (i * 3 + v) * 16), a[i][v]);
}

// The 8 x 16 * nv tile with 256-bit vpdpbusd (AVX-VNNI, int8_path vnni256): per panel and 4
// rows, 8 ymm accumulators; per k-quad two 32-byte weight loads and four broadcast row words.
QM_VNNI256_TARGET static void qm_tile_vnni256(const uint32_t* xr, int64_t KQ, const int8_t* pw, int64_t pstride,
                                              int nv, int32_t* acc) {
  for (int v = 0; v < nv; ++v)
    for (int h = 0; h < 2; ++h) {
      const uint32_t* x = xr + 4 * h * KQ;
      const int8_t* w = pw + v * pstride;
      __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
      for (int64_t kq = 0; kq < KQ; ++kq) {
        const __m256i w0 = _mm256_loadu_si256((const __m256i*)(w + kq * 64));
        const __m256i w1 = _mm256_loadu_si256((const __m256i*)(w + kq * 64 + 32));
        __m256i xb = _mm256_set1_epi32((int32_t)x[kq]);
        a0 = _mm256_dpbusd_avx_epi32(a0, xb, w0);
        a1 = _mm256_dpbusd_avx_epi32(a1, xb, w1);
        xb = _mm256_set1_epi32((int32_t)x[KQ + kq]);
        a2 = _mm256_dpbusd_avx_epi32(a2, xb, w0);
        a3 = _mm256_dpbusd_avx_epi32(a3, xb, w1);
        xb = _mm256_set1_epi32((int32_t)x[2 * KQ + kq]);
        a4 = _mm256_dpbusd_avx_epi32(a4, xb, w0);
        a5 = _mm256_dpbusd_avx_epi32(a5, xb, w1);
        xb = _mm256_set1_epi32((int32_t)x[3 * KQ + kq]);
        a6 = _mm256_dpbusd_avx_epi32(a6, xb, w0);
        a7 = _mm256_dpbusd_avx_epi32(a7, xb, w1);
      }
      const __m256i r[8] = {a0, a1, a2, a3, a4, a5, a6, a7};
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 2; ++j)
          _mm256_storeu_si256((__m256i*)(acc + ((4 * h + i) * 3 + v) * 16 + 8 * j), r[2 * i + j]);
    }
}
#endif

#if defined(__x86_64__)
// The 8 x 16 * nv tile without VNNI (Q8_WIDE_PATH, AVX2; qconv8.cpp q8_tile_avx2 explains the
// widening): per panel and 4 rows, 8 ymm accumulators; per k-quad four 32-byte widened weight
// loads and four broadcast row words split into their even and odd bytes.
QM_AVX2_TARGET static void qm_tile_avx2(const uint32_t* xr, int64_t KQ, const int32_t* pw, int64_t pstride, int nv,
                                        int32_t* acc) {
  const __m256i lo = _mm256_set1_epi32(0x00FF00FF);
  for (int v = 0; v < nv; ++v)
    for (int h = 0; h < 2; ++h) {
      const uint32_t* x = xr + 4 * h * KQ;
      const int32_t* w = pw + v * pstride / 4;
      __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
      for (int64_t kq = 0; kq < KQ; ++kq, w += 32) {
        const __m256i e0 = _mm256_loadu_si256((const __m256i*)w), e1 = _mm256_loadu_si256((const __m256i*)(w + 8));
        const __m256i o0 = _mm256_loadu_si256((const __m256i*)(w + 16));
        const __m256i o1 = _mm256_loadu_si256((const __m256i*)(w + 24));
#define QM_AVX2_ROW(r, A, B)                                                                \
  {                                                                                         \
    const __m256i xb = _mm256_set1_epi32((int32_t)x[(r) * KQ + kq]);                       \
    const __m256i xe = _mm256_and_si256(xb, lo), xo = _mm256_srli_epi16(xb, 8);             \
    A = q8_madd4_avx2(A, xe, xo, e0, o0);                                                   \
    B = q8_madd4_avx2(B, xe, xo, e1, o1);                                                   \
  }
        QM_AVX2_ROW(0, a0, a1)
        QM_AVX2_ROW(1, a2, a3)
        QM_AVX2_ROW(2, a4, a5)
        QM_AVX2_ROW(3, a6, a7)
#undef QM_AVX2_ROW
      }
      const __m256i r[8] = {a0, a1, a2, a3, a4, a5, a6, a7};
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 2; ++j)
          _mm256_storeu_si256((__m256i*)(acc + ((4 * h + i) * 3 + v) * 16 + 8 * j), r[2 * i + j]);
    }
}
#endif

#if ATCK_HAVE_AMX
// The tiles' configuration, the same for every call of a kernel (16 rows, KQ's tail): loaded once
// per task range and released at its end (ldtilecfg / tilerelease per call cost as much as the
// tiles' work at K = 768).
__attribute__((target("amx-tile"), noinline)) static void qm_amx_config(int64_t KQ) {
  struct AtckAmxCfg cfg;
  atck_amx_cfg_init(&cfg);
  const int64_t tail = KQ % 16;
  for (int t = 0; t < 5; ++t) atck_amx_cfg_tile(&cfg, t, 16, 64);
  if (tail) {
    atck_amx_cfg_tile(&cfg, 5, 16, 4 * tail);
    atck_amx_cfg_tile(&cfg, 6, tail, 64);
  }
  ATCK_AMX_BARRIER(&cfg);
  _tile_loadconfig(&cfg);
}

__attribute__((target("amx-tile"), noinline)) static void qm_amx_release(void) { _tile_release(); }

// 16 rows x nv panels on AMX (int8_path amx): the rows' k-quads are tdpbusd's first operand (16
// rows of 16 k-quads, KQ * 4 bytes apart), a panel's [KQ][16][4] weights its second (16 k-quads
// of 16 columns, 64 bytes apart); tiles 0-2 the panels' int32 sums, 3 / 4 the operands for 16
// k-quads, 5 / 6 for the last KQ % 16. acc as qm_tile_vnni's, 16 rows.
// Runs under qm_amx_config(KQ).
__attribute__((target("amx-tile,amx-int8"), noinline)) static void qm_tile_amx(const uint32_t* xr, int64_t KQ,
                                                                                const int8_t* pw, int64_t pstride,
                                                                                int nv, int32_t* acc) {
  const int64_t full = KQ / 16, tail = KQ % 16, xs = KQ * 4;
  ATCK_AMX_BARRIER(xr);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  for (int64_t s = 0; s < full; ++s) {
    const int8_t* w = pw + s * 16 * 64;
    _tile_loadd(3, xr + s * 16, xs);
    _tile_loadd(4, w, 64);
    _tile_dpbusd(0, 3, 4);
    if (nv > 1) {
      _tile_loadd(4, w + pstride, 64);
      _tile_dpbusd(1, 3, 4);
    }
    if (nv > 2) {
      _tile_loadd(4, w + 2 * pstride, 64);
      _tile_dpbusd(2, 3, 4);
    }
  }
  if (tail) {
    const int8_t* w = pw + full * 16 * 64;
    _tile_loadd(5, xr + full * 16, xs);
    _tile_loadd(6, w, 64);
    _tile_dpbusd(0, 5, 6);
    if (nv > 1) {
      _tile_loadd(6, w + pstride, 64);
      _tile_dpbusd(1, 5, 6);
    }
    if (nv > 2) {
      _tile_loadd(6, w + 2 * pstride, 64);
      _tile_dpbusd(2, 5, 6);
    }
  }
  _tile_stored(0, acc, 3 * 16 * 4);
  _tile_stored(1, acc + 16, 3 * 16 * 4);
  _tile_stored(2, acc + 32, 3 * 16 * 4);
  ATCK_AMX_BARRIER(acc);
}
#endif

// Epilogue of a tile: rows [m0, m0 + nr) of Y, panels [p, p + nv).
static void qm_store(const int64_t* P, const int32_t* acc, const float* aux, float* Y, int64_t m0, int64_t nr,
                     int64_t p, int nv) {
  const int64_t N = P[QM_N], NP = P[QM_NP];
  const int32_t* comp = (const int32_t*)(aux + 2 * NP);
  for (int64_t i = 0; i < nr; ++i)
    for (int v = 0; v < nv; ++v) {
      const int64_t n0 = (p + v) * 16, nn = N - n0 < 16 ? N - n0 : 16;
      const q8_f32 y = __builtin_convertvector(*(const q8_i32u*)(acc + (i * 3 + v) * 16) - *(const q8_i32u*)(comp + n0),
                                               q8_f32) *
                           *(const q8_f32u*)(aux + n0) +
                       *(const q8_f32u*)(aux + NP + n0);
      float* d = Y + (m0 + i) * N + n0;
      if (nn == 16) {
        *(q8_f32u*)d = y;
      } else {
        float t[16];
        *(q8_f32u*)t = y;
        q8_put(d, t, nn);
      }
    }
}

void atck_qmatmul8_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t M = P[QM_M], KQ = P[QM_KQ], MB = P[QM_MB], npanels = P[QM_NP] / 16;
  const bool wide = Q8_IS_WIDE(P[QM_VNNI]);
  const int64_t pstride = KQ * (wide ? 128 : 64);
  bool vnni = P[QM_VNNI] == 1 || P[QM_VNNI] == 3, vnni256 = P[QM_VNNI] == 2, amx = P[QM_VNNI] == 3,
       avx2 = P[QM_VNNI] == Q8_WIDE_PATH;
#if !defined(__x86_64__)
  vnni = vnni256 = amx = avx2 = false;
#elif !defined(ATC_BITCODE)
  vnni = vnni && __builtin_cpu_supports("avx512vnni");
  vnni256 = vnni256 && __builtin_cpu_supports("avxvnni");
  avx2 = avx2 && __builtin_cpu_supports("avx2");
  amx = amx && atck_amx_host(25);
#endif
  // Rows per tile: 16 on AMX (the lowering sizes the slot for them with QM_VNNI 3), else 8.
  const int64_t TR = P[QM_VNNI] == 3 ? 16 : 8, tr = amx ? 16 : 8, mbp = (MB + TR - 1) / TR * TR;
  const int8_t* W = (const int8_t*)bufs[P[QM_WBUF]];
  const float* aux = (const float*)bufs[P[QM_ABUF]];
  float* Y = (float*)bufs[P[QM_YBUF]];
  char* ws = (char*)(((uintptr_t)bufs[P[QM_YBUF] + 1] + 63) & ~(uintptr_t)63);
  // Tasks of one row block differ only in their panel group (the fastest index): a thread
  // running several in a row fills the rows once, in the first one's slot.
  uint8_t* filled = nullptr;
  int64_t filledBlock = -1;
#if defined(__x86_64__)
  if (amx) qm_amx_config(KQ);
#endif
  for (int64_t t = begin; t < end; ++t) {
    const int64_t rb = t / P[QM_NPG], pg = t % P[QM_NPG];
    const int64_t m0 = rb * MB, rows = M - m0 < MB ? M - m0 : MB;
    const int64_t p0 = pg * P[QM_PANELS];
    const int64_t p1 = p0 + P[QM_PANELS] < npanels ? p0 + P[QM_PANELS] : npanels;
    if (rows <= 0 || p0 >= p1) continue;
    uint8_t* xr = (uint8_t*)(ws + t * P[QM_SLOT]);
    if (filled && filledBlock == rb) {
      xr = filled;
    } else {
      qm_rows_fill(P, bufs, m0, mbp, xr);
      filled = xr;
      filledBlock = rb;
    }
    int32_t* acc = (int32_t*)(xr + mbp * KQ * 4);
    for (int64_t p = p0; p < p1; p += 3) {
      const int nv = p1 - p < 3 ? (int)(p1 - p) : 3;
      const int8_t* pw = W + p * pstride;
      for (int64_t i0 = 0; i0 < rows; i0 += tr) {
        const uint32_t* x = (const uint32_t*)(xr + i0 * KQ * 4);
#if defined(__x86_64__)
        if (amx) {
          qm_tile_amx(x, KQ, pw, pstride, nv, acc);
        } else if (vnni) {
          if (nv == 3)
            qm_tile_vnni<3>(x, KQ, pw, pstride, acc);
          else if (nv == 2)
            qm_tile_vnni<2>(x, KQ, pw, pstride, acc);
          else
            qm_tile_vnni<1>(x, KQ, pw, pstride, acc);
        } else if (vnni256) {
          qm_tile_vnni256(x, KQ, pw, pstride, nv, acc);
        } else if (avx2) {
          qm_tile_avx2(x, KQ, (const int32_t*)pw, pstride, nv, acc);
        } else
#endif
        if (wide)
          qm_tile_portable_wide(x, KQ, (const int32_t*)pw, pstride, nv, acc);
        else
          qm_tile_portable(x, KQ, pw, pstride, nv, acc);
        qm_store(P, acc, aux, Y, m0 + i0, rows - i0 < tr ? rows - i0 : tr, p, nv);
      }
    }
  }
#if defined(__x86_64__)
  if (amx) qm_amx_release();
#endif
}
