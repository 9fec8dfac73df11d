// Kernel "qconv8": 2-D convolution of an 8-bit input with int8 weights and a float32 output
// (QuantizedConv; params and layouts: quant_params.h QConv8Param). The int8 path of a QDQ
// model's Conv: u8 x s8 products summed exactly in int32, four at a time.
//
// A task is (image, block of output rows, group of 16-channel weight panels):
//  1. band fill: the input rows the block needs, quantized (float X: QuantizeLinear's
//     rint(x / scale) + zero point, saturated) or copied (uint8 X; int8 X flipped to uint8),
//     zero-point padded, 4 channels per 32-bit word (one vpdpbusd operand element);
//  2. per panel and per tile of 16 output pixels: 16 x 16 int32 accumulators (16 output
//     channels x 16 pixels) over the k-quads, reading the band in place through a table of
//     per-quad word offsets (as the float band path of conv.cpp does);
//  3. epilogue: (acc - comp[oc]) * mult[oc] + bias[oc], ReLU or Clip, + the residual R and the
//     activation after it, the Q/DQ output stage, stored to Y.
// Tiles run flat over the band's padded rows (the pad columns give discarded lanes), strided
// convs over the row and column phases of the band, so 7x7 or 14x14 maps do not waste most of
// a 16-lane tile.
//
// The accumulation has four implementations with identical results: vpdpbusd on 512-bit
// vectors (Q8_VNNI 1, targets with AVX512-VNNI) or on 256-bit ones (Q8_VNNI 2, AVX-VNNI:
// targets without AVX-512), vpmaddwd on operands widened to int16 (Q8_VNNI 4, AVX2 without
// VNNI; its weights are packed widened), in the native build also only when the host has it,
// and portable int32 vector code (any host: constant folding, kernel tests).
#include "kernels/lib/qconv8_common.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

ATC_KERNEL(qconv8)

int64_t atck_qconv8_ntasks(const int64_t* P) { return P[Q8_N] * P[Q8_NRB] * P[Q8_NOCG]; }

// The uint8 byte of element i of channel row `src` (nullptr: a channel past C, the zero point).
static inline ATCK_INLINE uint32_t q8_byte(const int64_t* P, const Q8Quant& q, const void* src, int64_t i, uint32_t zpb) {
  if (!src) return zpb;
  switch (P[Q8_XDT]) {
    case ATCK_F32: return q8_quant1(q, ((const float*)src)[i]);
    case ATCK_U8: return ((const uint8_t*)src)[i];
    default: return (uint32_t)(((const int8_t*)src)[i] + 128);
  }
}

// 16 consecutive elements of a channel row as uint8 bytes in int32 lanes.
static Q8_AI q8_u32 q8_bytes16(const int64_t* P, const Q8Quant& q, const void* src, int64_t i, uint32_t zpb) {
  if (!src) return (q8_u32)q8_splati((int32_t)zpb);
  switch (P[Q8_XDT]) {
    case ATCK_F32: return q8_quant16(q, (const float*)src + i);
    case ATCK_U8: return (q8_u32)__builtin_convertvector(*(const q8_u8x16*)((const uint8_t*)src + i), q8_i32);
    default:
      return (q8_u32)(__builtin_convertvector(*(const q8_s8x16*)((const int8_t*)src + i), q8_i32) + q8_splati(128));
  }
}

// 16 band words: columns [i, i + 16) of the 4 channel rows, one channel per byte.
static Q8_AI q8_u32 q8_words16(const int64_t* P, const Q8Quant& q, const char* const* src, int64_t i,
                                           uint32_t zpb) {
  return q8_bytes16(P, q, src[0], i, zpb) | (q8_bytes16(P, q, src[1], i, zpb) << 8) |
         (q8_bytes16(P, q, src[2], i, zpb) << 16) | (q8_bytes16(P, q, src[3], i, zpb) << 24);
}

// Rows per row phase of the band and words per column phase plane ([HBP][PQ]).
static inline ATCK_INLINE int64_t q8_phase_rows(const int64_t* P) { return (P[Q8_HB] + P[Q8_SH] - 1) / P[Q8_SH]; }
static inline ATCK_INLINE int64_t q8_phase_words(const int64_t* P) { return q8_phase_rows(P) * P[Q8_PQ]; }
// The word of band row hb (relative to the band's first input row), column phase 0.
static inline ATCK_INLINE int64_t q8_phase_row(const int64_t* P, int64_t hb) {
  return ((hb % P[Q8_SH]) * P[Q8_SW] * q8_phase_rows(P) + hb / P[Q8_SH]) * P[Q8_PQ];
}

// Fills the band of output rows [r0, r0 + rows) of image n: per quad plane [C4] the band rows
// split into their SH row phases and each row into its SW column phases, as [SH][SW][HBP][PQ]
// words (q8_phase_row): every tap then reads a window of a phase plane whose output (oh, ow)
// is word oh * PQ + ow, so tiles run flat over rows at any stride.
static void q8_band_fill(const int64_t* P, void** bufs, int64_t n, int64_t r0, int64_t rows, uint32_t* band) {
  const int64_t C = P[Q8_C], IH = P[Q8_IH], IW = P[Q8_IW], SH = P[Q8_SH], SW = P[Q8_SW];
  const int64_t PQ = P[Q8_PQ], WPP = SW * PQ, PLANE = P[Q8_PLANE], PW = P[Q8_PW];
  const int64_t CPL = q8_phase_words(P);  // words per column phase plane
  const int64_t HBt = (rows - 1) * SH + (P[Q8_KH] - 1) * P[Q8_DH] + 1;
  const int64_t esz = P[Q8_XDT] == ATCK_F32 ? 4 : 1;
  const Q8Quant q = q8_in_quant(P[Q8_XSCALE], P[Q8_XZP], P[Q8_QDT]);
  const uint32_t zpb = (uint32_t)(P[Q8_XZP] + q.flip) & 0xFFu, zpw = zpb * 0x01010101u;
  // Columns q in [qa, qb) read the image; the others are padding.
  int64_t qa = PW < 0 ? 0 : PW, qb = PW + IW < WPP ? PW + IW : WPP;
  if (qb < qa) qb = qa;
  for (int64_t cq = 0; cq < P[Q8_C4]; ++cq)
    for (int64_t hb = 0; hb < HBt; ++hb) {
      uint32_t* row = band + cq * PLANE + q8_phase_row(P, hb);  // column phase 0 of band row hb
      const int64_t ih = r0 * SH - P[Q8_PH] + hb;
      if (ih < 0 || ih >= IH) {
        for (int64_t c = 0; c < SW; ++c)
          for (int64_t i = 0; i < PQ; ++i) row[c * CPL + i] = zpw;
        continue;
      }
      const char* src[4];
      for (int j = 0; j < 4; ++j) {
        const int64_t c = cq * 4 + j;
        src[j] = c < C ? (const char*)bufs[P[Q8_XBUF]] + (((n * C + c) * IH + ih) * IW - PW) * esz : nullptr;
      }
      // Scalar: the padding and the columns the vector loops leave; vector: runs of 16
      // columns (stride 1) or of 32 split into their two phases (stride 2), the last run
      // overlapping the one before it rather than ending in scalar columns.
      int64_t vlo = qb, vhi = qb;
      if (SW == 1 && qb - qa >= 16) {
        vlo = qa;
        for (int64_t qi = qa;; qi += 16) {
          if (qi + 16 > qb) qi = qb - 16;
          *(q8_i32u*)(row + qi) = (q8_i32)q8_words16(P, q, src, qi, zpb);
          if (qi + 16 >= qb) break;
        }
      } else if (SW == 2 && qb - qa >= 17) {
        vlo = qa + (qa & 1);  // runs start on even columns: 8 of phase 0, then 8 of phase 1
        for (int64_t qi = vlo;; qi += 16) {
          if (qi + 16 > qb) qi = (qb - 16) & ~(int64_t)1;
          const q8_u32 a = q8_words16(P, q, src, qi, zpb);
          *(q8_u32x8u*)(row + qi / 2) = __builtin_shufflevector(a, a, 0, 2, 4, 6, 8, 10, 12, 14);
          *(q8_u32x8u*)(row + CPL + qi / 2) = __builtin_shufflevector(a, a, 1, 3, 5, 7, 9, 11, 13, 15);
          vhi = qi + 16;
          if (qi + 16 >= qb - 1) break;
        }
      }
      if (SW == 1 && vlo < vhi) vhi = qb;
      for (int64_t qi = 0; qi < WPP; ++qi) {
        if (qi >= vlo && qi < vhi) continue;
        uint32_t w = zpw;
        if (qi >= qa && qi < qb)
          w = q8_byte(P, q, src[0], qi, zpb) | (q8_byte(P, q, src[1], qi, zpb) << 8) |
              (q8_byte(P, q, src[2], qi, zpb) << 16) | (q8_byte(P, q, src[3], qi, zpb) << 24);
        row[(qi % SW) * CPL + qi / SW] = w;
      }
    }
}

// acc[16 x 16] = sum over the k-quads of (band words at off[kq] + base) . (weights of 16 channels).
static void q8_tile_portable(const uint32_t* band, const int32_t* off, int64_t KQ, int64_t base, const int8_t* wp,
                             int32_t* acc) {
  q8_i32 a[16];
  for (int i = 0; i < 16; ++i) a[i] = q8_splati(0);
  for (int64_t kq = 0; kq < KQ; ++kq) {
    const q8_u32 xv = *(const q8_u32u*)(band + off[kq] + base);
    q8_i32 xb[4];
    for (int j = 0; j < 4; ++j) xb[j] = (q8_i32)((xv >> (8 * j)) & 0xFFu);
    const int8_t* w = wp + kq * 64;
    for (int i = 0; i < 16; ++i)
      a[i] += xb[0] * (int32_t)w[i * 4] + xb[1] * (int32_t)w[i * 4 + 1] + xb[2] * (int32_t)w[i * 4 + 2] +
              xb[3] * (int32_t)w[i * 4 + 3];
  }
  for (int i = 0; i < 16; ++i) *(q8_i32*)(acc + i * 16) = a[i];
}

// The same over widened weights (Q8_WIDE_PATH: per k-quad 16 words of bytes 0 and 2 as int16,
// then 16 of bytes 1 and 3), for hosts without AVX2.
static void q8_tile_portable_wide(const uint32_t* band, const int32_t* off, int64_t KQ, int64_t base,
                                  const int32_t* w, int32_t* acc) {
  q8_i32 a[16];
  for (int i = 0; i < 16; ++i) a[i] = q8_splati(0);
  for (int64_t kq = 0; kq < KQ; ++kq, w += 32) {
    const q8_u32 xv = *(const q8_u32u*)(band + off[kq] + base);
    q8_i32 xb[4];
    for (int j = 0; j < 4; ++j) xb[j] = (q8_i32)((xv >> (8 * j)) & 0xFFu);
    for (int i = 0; i < 16; ++i) {
      const int32_t e = w[i], o = w[16 + i];
      a[i] += xb[0] * (int32_t)(int16_t)e + xb[2] * (e >> 16) + xb[1] * (int32_t)(int16_t)o + xb[3] * (o >> 16);
    }
  }
  for (int i = 0; i < 16; ++i) *(q8_i32*)(acc + i * 16) = a[i];
}

#if defined(__x86_64__)
#if defined(__clang__)
#define Q8_VNNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni,evex512")))
#else
#define Q8_VNNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni")))
#endif
#define Q8_VNNI256_TARGET __attribute__((target("avx2,avxvnni")))
#define Q8_AVX2_TARGET __attribute__((target("avx2")))
// The same with vpdpbusd: per k-quad one 64-byte load of 16 pixels x 4 channels and 16
// multiply-adds with a broadcast 32-bit weight quad (a memory operand).
Q8_VNNI_TARGET static void q8_tile_vnni(const uint32_t* band, const int32_t* off, int64_t KQ, int64_t base,
                                        const int8_t* wp, int32_t* acc) {
  __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
  __m512i a8 = a0, a9 = a0, a10 = a0, a11 = a0, a12 = a0, a13 = a0, a14 = a0, a15 = a0;
  const int32_t* w = (const int32_t*)wp;
  for (int64_t kq = 0; kq < KQ; ++kq, w += 16) {
    const __m512i x = _mm512_loadu_si512((const void*)(band + off[kq] + base));
    a0 = _mm512_dpbusd_epi32(a0, x, _mm512_set1_epi32(w[0]));
    a1 = _mm512_dpbusd_epi32(a1, x, _mm512_set1_epi32(w[1]));
    a2 = _mm512_dpbusd_epi32(a2, x, _mm512_set1_epi32(w[2]));
    a3 = _mm512_dpbusd_epi32(a3, x, _mm512_set1_epi32(w[3]));
    a4 = _mm512_dpbusd_epi32(a4, x, _mm512_set1_epi32(w[4]));
    a5 = _mm512_dpbusd_epi32(a5, x, _mm512_set1_epi32(w[5]));
    a6 = _mm512_dpbusd_epi32(a6, x, _mm512_set1_epi32(w[6]));
    a7 = _mm512_dpbusd_epi32(a7, x, _mm512_set1_epi32(w[7]));
    a8 = _mm512_dpbusd_epi32(a8, x, _mm512_set1_epi32(w[8]));
    a9 = _mm512_dpbusd_epi32(a9, x, _mm512_set1_epi32(w[9]));
    a10 = _mm512_dpbusd_epi32(a10, x, _mm512_set1_epi32(w[10]));
    a11 = _mm512_dpbusd_epi32(a11, x, _mm512_set1_epi32(w[11]));
    a12 = _mm512_dpbusd_epi32(a12, x, _mm512_set1_epi32(w[12]));
    a13 = _mm512_dpbusd_epi32(a13, x, _mm512_set1_epi32(w[13]));
    a14 = _mm512_dpbusd_epi32(a14, x, _mm512_set1_epi32(w[14]));
    a15 = _mm512_dpbusd_epi32(a15, x, _mm512_set1_epi32(w[15]));
  }
  __m512i* o = (__m512i*)acc;
  _mm512_storeu_si512(o + 0, a0); _mm512_storeu_si512(o + 1, a1); _mm512_storeu_si512(o + 2, a2);
  _mm512_storeu_si512(o + 3, a3); _mm512_storeu_si512(o + 4, a4); _mm512_storeu_si512(o + 5, a5);
  _mm512_storeu_si512(o + 6, a6); _mm512_storeu_si512(o + 7, a7); _mm512_storeu_si512(o + 8, a8);
  _mm512_storeu_si512(o + 9, a9); _mm512_storeu_si512(o + 10, a10); _mm512_storeu_si512(o + 11, a11);
  _mm512_storeu_si512(o + 12, a12); _mm512_storeu_si512(o + 13, a13); _mm512_storeu_si512(o + 14, a14);
  _mm512_storeu_si512(o + 15, a15);
}

// The 16 x 16 tile with 256-bit vpdpbusd (AVX-VNNI, targets without AVX-512: int8_path
// vnni256): four passes of 4 channels x 16 pixels (8 of the 16 ymm registers accumulate; per
// k-quad two 32-byte band loads and four broadcast weight quads).
Q8_VNNI256_TARGET static void q8_tile_vnni256(const uint32_t* band, const int32_t* off, int64_t KQ, int64_t base,
                                              const int8_t* wp, int32_t* acc) {
  for (int g = 0; g < 4; ++g) {
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    const int32_t* w = (const int32_t*)wp + 4 * g;
    for (int64_t kq = 0; kq < KQ; ++kq, w += 16) {
      const uint32_t* x = band + off[kq] + base;
      const __m256i x0 = _mm256_loadu_si256((const __m256i*)x), x1 = _mm256_loadu_si256((const __m256i*)(x + 8));
      __m256i wb = _mm256_set1_epi32(w[0]);
      a0 = _mm256_dpbusd_avx_epi32(a0, x0, wb);
      a1 = _mm256_dpbusd_avx_epi32(a1, x1, wb);
      wb = _mm256_set1_epi32(w[1]);
      a2 = _mm256_dpbusd_avx_epi32(a2, x0, wb);
      a3 = _mm256_dpbusd_avx_epi32(a3, x1, wb);
      wb = _mm256_set1_epi32(w[2]);
      a4 = _mm256_dpbusd_avx_epi32(a4, x0, wb);
      a5 = _mm256_dpbusd_avx_epi32(a5, x1, wb);
      wb = _mm256_set1_epi32(w[3]);
      a6 = _mm256_dpbusd_avx_epi32(a6, x0, wb);
      a7 = _mm256_dpbusd_avx_epi32(a7, x1, wb);
    }
    __m256i* o = (__m256i*)(acc + 4 * g * 16);
    _mm256_storeu_si256(o + 0, a0); _mm256_storeu_si256(o + 1, a1); _mm256_storeu_si256(o + 2, a2);
    _mm256_storeu_si256(o + 3, a3); _mm256_storeu_si256(o + 4, a4); _mm256_storeu_si256(o + 5, a5);
    _mm256_storeu_si256(o + 6, a6); _mm256_storeu_si256(o + 7, a7);
  }
}

// The 16 x 16 tile without VNNI (Q8_WIDE_PATH, AVX2): exact u8 x s8 products through int16.
// A band word's bytes 0 and 2 (x & 0x00FF00FF) and 1 and 3 (x >> 8 per 16-bit lane) are
// zero-extended int16 pairs; vpmaddwd multiplies them by a widened weight word (bytes 0 and 2,
// resp. 1 and 3, of the channel's quad as int16) and adds each pair into an int32 lane. Four
// passes of 4 channels x 16 pixels (8 ymm accumulators, 4 widened band vectors, 2 broadcast
// weight words); per k-quad and pass 16 vpmaddwd and 16 vpaddd for 256 products.
Q8_AVX2_TARGET static void q8_tile_avx2(const uint32_t* band, const int32_t* off, int64_t KQ, int64_t base,
                                        const int32_t* wq, int32_t* acc) {
  const __m256i lo = _mm256_set1_epi32(0x00FF00FF);
  for (int g = 0; g < 4; ++g) {
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    const int32_t* w = wq + 4 * g;
    for (int64_t kq = 0; kq < KQ; ++kq, w += 32) {
      const uint32_t* x = band + off[kq] + base;
      const __m256i x0 = _mm256_loadu_si256((const __m256i*)x), x1 = _mm256_loadu_si256((const __m256i*)(x + 8));
      const __m256i x0e = _mm256_and_si256(x0, lo), x0o = _mm256_srli_epi16(x0, 8);
      const __m256i x1e = _mm256_and_si256(x1, lo), x1o = _mm256_srli_epi16(x1, 8);
#define Q8_AVX2_CH(j, A, B)                                                                 \
  {                                                                                         \
    const __m256i we = _mm256_set1_epi32(w[j]), wo = _mm256_set1_epi32(w[16 + j]);         \
    A = q8_madd4_avx2(A, x0e, x0o, we, wo);                                                 \
    B = q8_madd4_avx2(B, x1e, x1o, we, wo);                                                 \
  }
      Q8_AVX2_CH(0, a0, a1)
      Q8_AVX2_CH(1, a2, a3)
      Q8_AVX2_CH(2, a4, a5)
      Q8_AVX2_CH(3, a6, a7)
#undef Q8_AVX2_CH
    }
    __m256i* o = (__m256i*)(acc + 4 * g * 16);
    _mm256_storeu_si256(o + 0, a0); _mm256_storeu_si256(o + 1, a1); _mm256_storeu_si256(o + 2, a2);
    _mm256_storeu_si256(o + 3, a3); _mm256_storeu_si256(o + 4, a4); _mm256_storeu_si256(o + 5, a5);
    _mm256_storeu_si256(o + 6, a6); _mm256_storeu_si256(o + 7, a7);
  }
}

// 8 output channels x NV * 16 pixels (NV = 2 or 3): per k-quad NV loads and 8 broadcast weight
// quads, each used NV times. The 16 x 16 tile above needs a broadcast load per vpdpbusd and
// is bound by loads (4.7 against 6.0 vpdpbusd per ns for this one in a loop on Zen 5). `w`:
// the panel's weights plus 8 channels for its upper half (16 words per k-quad). acc: NV
// blocks of 8 x 16 (block v: pixels [16v, 16v + 16), row i: channel i).
template <int NV>
Q8_VNNI_TARGET static void q8_tile8_vnni(const uint32_t* band, const int32_t* off, int64_t KQ, int64_t base,
                                         const int32_t* w, int32_t* acc) {
  __m512i a[8][NV];
  for (int i = 0; i < 8; ++i)
    for (int v = 0; v < NV; ++v) a[i][v] = _mm512_setzero_si512();
  for (int64_t kq = 0; kq < KQ; ++kq, w += 16) {
    const uint32_t* x = band + off[kq] + base;
    __m512i xv[NV];
    for (int v = 0; v < NV; ++v) xv[v] = _mm512_loadu_si512((const void*)(x + 16 * v));
    for (int i = 0; i < 8; ++i) {
      const __m512i wb = _mm512_set1_epi32(w[i]);
      for (int v = 0; v < NV; ++v) a[i][v] = _mm512_dpbusd_epi32(a[i][v], xv[v], wb);
    }
  }
  for (int v = 0; v < NV; ++v)
    for (int i = 0; i < 8; ++i) _mm512_storeu_si512((void*)(acc + (v * 8 + i) * 16), a[i][v]);
}
#endif

// The 16 floats of a channel plane `r` that the tile's lanes land on (lanes no segment
// covers: 0).
static Q8_AI q8_f32 q8_gather_segs(const float* r, const Q8Seg* seg, int nseg) {
  if (nseg == 1 && seg[0].len == 16) return *(const q8_f32u*)(r + seg[0].dst);
  float t[16] = {0};
  for (int s = 0; s < nseg; ++s) q8_put(t + seg[s].lane, r + seg[s].dst, seg[s].len);
  return *(const q8_f32u*)t;
}

// The residual's 16 values of a tile from channel plane r: float32 as they are, or uint8 / int8
// bytes dequantized, (r - zp) * scale (the float values a Q/DQ output stage would have written).
static Q8_AI q8_f32 q8_residual(const int64_t* P, const void* r, const Q8Seg* seg, int nseg) {
  if (P[Q8_RDT] == ATCK_F32) return q8_gather_segs((const float*)r, seg, nseg);
  const uint8_t* b = (const uint8_t*)r;
  uint8_t t[16] = {0};
  const uint8_t* src = b + seg[0].dst;
  if (!(nseg == 1 && seg[0].len == 16)) {
    for (int s = 0; s < nseg; ++s) q8_put_bytes(t + seg[s].lane, b + seg[s].dst, seg[s].len);
    src = t;
  }
  const q8_u8x16 u = *(const q8_u8x16*)src;
  const q8_i32 v = P[Q8_RDT] == ATCK_U8 ? __builtin_convertvector(u, q8_i32)
                                        : __builtin_convertvector((q8_s8x16)u, q8_i32);
  return __builtin_convertvector(v - q8_splati((int32_t)P[Q8_RZP]), q8_f32) * q8_splatf((float)atck_d(P[Q8_RSCALE]));
}

// Epilogue of one tile: channels [oc0, oc0 + noc) of acc (row i: channel oc0 + i); R: the
// residual's planes of this image (nullptr: none; elements of 4 bytes, or 1 when quantized).
static inline ATCK_INLINE void q8_store(const int64_t* P, const int32_t* acc, int64_t oc0, int64_t noc,
                                        const float* aux, void* Y, const char* R, const Q8Seg* seg, int nseg) {
  const int64_t OCP = P[Q8_OCP], plane = P[Q8_OH] * P[Q8_OW];
  const int32_t* comp = (const int32_t*)(aux + 2 * OCP);
  const float lo = (float)atck_d(P[Q8_ACTLO]), hi = (float)atck_d(P[Q8_ACTHI]);
  const float plo = (float)atck_d(P[Q8_PACTLO]), phi = (float)atck_d(P[Q8_PACTHI]);
  const Q8Out o = q8_out_params(P[Q8_OQ], P[Q8_OSCALE], P[Q8_OZP], P[Q8_OQLO], P[Q8_OQHI]);
  const int64_t esz = o.mode == 2 ? 1 : 4, rsz = P[Q8_RDT] == ATCK_F32 ? 4 : 1;
  Q8Req req = q8_req_bounds(o, P[Q8_ACT], lo, hi);
  for (int64_t i = 0; i < noc; ++i) {
    const int64_t oc = oc0 + i;
    if (o.mode == 2 && !R) {  // aux holds the folded requantization (q8_req_bounds)
      req.m = aux[oc];
      req.b = aux[OCP + oc];
      q8_req_store(req, *(const q8_i32*)(acc + i * 16), (uint8_t*)Y + oc * plane, seg, nseg);
      continue;
    }
    q8_f32 y = __builtin_convertvector(*(const q8_i32*)(acc + i * 16) - q8_splati(comp[oc]), q8_f32) *
                   q8_splatf(aux[oc]) +
               q8_splatf(aux[OCP + oc]);
    y = q8_act(P[Q8_ACT], y, lo, hi);
    if (R) y = q8_act(P[Q8_PACT], y + q8_residual(P, R + oc * plane * rsz, seg, nseg), plo, phi);
    q8_out_store(o, (char*)Y + oc * plane * esz, y, seg, nseg);
  }
}

// Segments of the tile whose first lane is band word `v0` of a flat run over rows [r0, r0 +
// rows) (row length WPP, of which OW columns are outputs).
static inline ATCK_INLINE int q8_flat_segs(int64_t v0, int64_t r0, int64_t rows, int64_t WPP, int64_t OW, Q8Seg* seg) {
  int n = 0;
  for (int64_t l = 0; l < 16;) {
    const int64_t v = v0 + l, r = v / WPP, c = v % WPP;
    if (r >= rows) break;
    if (c >= OW) {
      l += WPP - c;
      continue;
    }
    int64_t len = OW - c;
    if (len > 16 - l) len = 16 - l;
    seg[n].lane = l;
    seg[n].len = len;
    seg[n].dst = (r0 + r) * OW + c;
    ++n;
    l += len;
  }
  return n;
}

// Whether tiles run flat over the output rows (row pitch PQ) or take 16 columns of one output
// row: flat at stride 1, and for strided convs whose rows would leave more lanes empty per row
// (a 7-wide row: 7 of 16) than the flat run's PQ - OW words; rows that fill whole tiles (the
// stem's 112) keep them (whole-vector stores). quantized_conv.cpp's cost model asks the same.
static inline ATCK_INLINE bool q8_flat(const int64_t* P) {
  return (P[Q8_SH] == 1 && P[Q8_SW] == 1) || P[Q8_PQ] < (P[Q8_OW] + 15) / 16 * 16;
}

// Tile `ti` of a task's rows [r0, r0 + rows): its first band word (the return value) and the
// segments of its 16 lanes that land in Y. Flat: 16 words of the phase planes' run over the
// rows (row pitch PQ); else 16 columns of output row ti / tpr.
static inline ATCK_INLINE int64_t q8_tile_segs(bool flat, int64_t ti, int64_t r0, int64_t rows, int64_t tpr,
                                               int64_t PQ, int64_t OW, Q8Seg* seg, int* nseg) {
  if (flat) {
    *nseg = q8_flat_segs(ti * 16, r0, rows, PQ, OW, seg);
    return ti * 16;
  }
  const int64_t r = ti / tpr, c0 = (ti % tpr) * 16;
  seg[0].lane = 0;
  seg[0].len = OW - c0 < 16 ? OW - c0 : 16;
  seg[0].dst = (r0 + r) * OW + c0;
  *nseg = 1;
  return r * PQ + c0;
}

void atck_qconv8_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t OH = P[Q8_OH], OW = P[Q8_OW], KH = P[Q8_KH], KW = P[Q8_KW];
  const int64_t SW = P[Q8_SW], DH = P[Q8_DH], DW = P[Q8_DW];
  const int64_t PQ = P[Q8_PQ], PLANE = P[Q8_PLANE], KQ = P[Q8_KQ];
  const int64_t npanels = P[Q8_OCP] / 16, OC = P[Q8_OC];
  const bool wide = Q8_IS_WIDE(P[Q8_VNNI]);
  bool vnni = P[Q8_VNNI] == 1, vnni256 = P[Q8_VNNI] == 2, avx2 = P[Q8_VNNI] == Q8_WIDE_PATH;
#if !defined(__x86_64__)
  vnni = vnni256 = avx2 = false;
#elif !defined(ATC_BITCODE)
  vnni = vnni && __builtin_cpu_supports("avx512vnni");
  vnni256 = vnni256 && __builtin_cpu_supports("avxvnni");
  avx2 = avx2 && __builtin_cpu_supports("avx2");
#endif
  const int8_t* W = (const int8_t*)bufs[P[Q8_WBUF]];
  const float* aux = (const float*)bufs[P[Q8_ABUF]];
  char* ws = (char*)(((uintptr_t)bufs[P[Q8_YBUF] + 1] + 63) & ~(uintptr_t)63);
  // Tasks of one row block differ only in their channel group (og, the fastest index): a
  // thread running several in a row packs the band once, in the first one's slot (slots are
  // per task, and this thread owns the tasks it runs).
  uint32_t* filled = nullptr;
  int64_t filledBlock = -1;
  for (int64_t t = begin; t < end; ++t) {
    const int64_t og = t % P[Q8_NOCG], rb = (t / P[Q8_NOCG]) % P[Q8_NRB], n = t / (P[Q8_NOCG] * P[Q8_NRB]);
    const int64_t r0 = rb * P[Q8_RB];
    const int64_t rows = OH - r0 < P[Q8_RB] ? OH - r0 : P[Q8_RB];
    const int64_t p0 = og * P[Q8_PANELS];
    const int64_t p1 = p0 + P[Q8_PANELS] < npanels ? p0 + P[Q8_PANELS] : npanels;
    if (rows <= 0 || p0 >= p1) continue;
    uint32_t* band = (uint32_t*)(ws + t * P[Q8_SLOT]);
    if (filled && filledBlock == t / P[Q8_NOCG]) {
      band = filled;
    } else {
      q8_band_fill(P, bufs, n, r0, rows, band);
      filled = band;
      filledBlock = t / P[Q8_NOCG];
    }
    int32_t* off = (int32_t*)(band + P[Q8_C4] * PLANE);
    int32_t* acc = off + (KQ + 15) / 16 * 16;
    for (int64_t cq = 0, kq = 0; cq < P[Q8_C4]; ++cq)
      for (int64_t kh = 0; kh < KH; ++kh)
        for (int64_t kw = 0; kw < KW; ++kw, ++kq)
          off[kq] = (int32_t)(cq * PLANE + q8_phase_row(P, kh * DH) + ((kw * DW) % SW) * q8_phase_words(P) +
                              (kw * DW) / SW);
    void* Y = (char*)bufs[P[Q8_YBUF]] + n * OC * OH * OW * (P[Q8_OQ] == 2 ? 1 : 4);
    const char* R = P[Q8_RBUF] >= 0 ? (const char*)bufs[P[Q8_RBUF]] + n * OC * OH * OW * (P[Q8_RDT] == ATCK_F32 ? 4 : 1)
                                     : nullptr;
    // Tiles: flat runs of 16 band words over the output rows (row pitch PQ; the words past OW in
    // a row give discarded lanes), or 16 columns of one output row (q8_flat). With vpdpbusd, two
    // or three neighbouring tiles (of one output row when not flat) run as the
    // 8 x 32 / 8 x 48 tiles, each panel in two halves of 8 channels, when there are at least
    // 32 k-quads (with fewer the epilogue dominates; grouping them was not measured to pay).
    // quantized_conv.cpp's cost model (q8Tasks) assumes the same rule.
    const bool flat = q8_flat(P);
    const int64_t tpr = (OW + 15) / 16;
    const int64_t ntiles = flat ? ((rows - 1) * PQ + OW + 15) / 16 : rows * tpr;
    for (int64_t p = p0; p < p1; ++p) {
      const int8_t* wp = W + p * KQ * (wide ? 128 : 64);
      const int64_t noc = OC - p * 16 < 16 ? OC - p * 16 : 16;
      for (int64_t ti = 0; ti < ntiles;) {
        int64_t nv = 1;
        if (vnni && KQ >= 32) nv = flat ? ntiles - ti : tpr - ti % tpr;
        nv = nv > 3 ? 3 : nv;
        Q8Seg seg[3][16];
        int nseg[3];
        const int64_t base = q8_tile_segs(flat, ti, r0, rows, tpr, PQ, OW, seg[0], &nseg[0]);
        for (int64_t v = 1; v < nv; ++v) q8_tile_segs(flat, ti + v, r0, rows, tpr, PQ, OW, seg[v], &nseg[v]);
        if (nv == 1) {
#if defined(__x86_64__)
          if (vnni)
            q8_tile_vnni(band, off, KQ, base, wp, acc);
          else if (vnni256)
            q8_tile_vnni256(band, off, KQ, base, wp, acc);
          else if (avx2)
            q8_tile_avx2(band, off, KQ, base, (const int32_t*)wp, acc);
          else
#endif
          if (wide)
            q8_tile_portable_wide(band, off, KQ, base, (const int32_t*)wp, acc);
          else
            q8_tile_portable(band, off, KQ, base, wp, acc);
          q8_store(P, acc, p * 16, noc, aux, Y, R, seg[0], nseg[0]);
        }
#if defined(__x86_64__)
        for (int64_t h = 0; nv > 1 && h < 2 && noc > 8 * h; ++h) {
          const int32_t* wh = (const int32_t*)wp + 8 * h;
          if (nv == 2)
            q8_tile8_vnni<2>(band, off, KQ, base, wh, acc);
          else
            q8_tile8_vnni<3>(band, off, KQ, base, wh, acc);
          const int64_t nh = noc - 8 * h < 8 ? noc - 8 * h : 8;
          for (int64_t v = 0; v < nv; ++v)
            q8_store(P, acc + v * 128, p * 16 + 8 * h, nh, aux, Y, R, seg[v], nseg[v]);
        }
#endif
        ti += nv;
      }
    }
  }
}
