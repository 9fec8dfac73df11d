// Kernel "qdwconv8": depthwise 2-D convolution (group == C == OC) of an 8-bit input with int8
// weights, the int8 path of a QDQ model's depthwise Conv (QuantizedConv with group == C;
// params and layouts: quant_params.h QDw8Param).
//
// Depthwise convs have no channel sum for vpdpbusd's 4-element dot products, so the 4 bytes of
// each 32-bit operand are 4 taps of one kernel row instead: a band of output rows is first
// turned into rows of "tap words" (word ow of padded input row r holds its bytes at columns
// ow * SW + kw * DW for 4 consecutive kw), built once per input row and read by every output
// row whose window covers it. Then 16 consecutive outputs of the band take one 64-byte load
// and one vpdpbusd per tap quad (a 3x3 kernel: 3), with the stride already applied, and the
// epilogue ((acc - comp) * mult + bias, ReLU / Clip, the output stage) writes float32 or the
// quantized bytes an int8 reader takes.
//
// The accumulation has four implementations with identical results, chosen by QD_VNNI (and in
// the native build only when the host has the instructions): vpdpbusd on 512-bit vectors (1,
// AVX512-VNNI) or 256-bit ones (2, AVX-VNNI), vpmaddwd on the words' bytes zero-extended to
// int16 pairs (4, AVX2: exact, unlike vpmaddubsw, which saturates), and portable int32 code.
#include "kernels/lib/qconv8_common.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

ATC_KERNEL(qdwconv8)

typedef uint8_t qd_u8x32 __attribute__((vector_size(32), aligned(1)));

int64_t atck_qdwconv8_ntasks(const int64_t* P) { return (P[QD_N] * P[QD_C] + P[QD_PPT] - 1) / P[QD_PPT]; }

// Tiles accumulated at once (independent vpdpbusd chains).
#define QD_NT 4

// Word regions: one per (row phase, tap quad), WROWS rows of OW words and 16 words of slack
// (the vector stores of a row's last words and the loads of a band's last tile run past).
static inline ATCK_INLINE int64_t qd_region(const int64_t* P) { return (P[QD_WROWS] * P[QD_OW] + 16 + 15) / 16 * 16; }

typedef uint8_t qd_u8x64 __attribute__((vector_size(64), aligned(1)));

// Copies n bytes: 64-byte moves, then 32, 16 and the last n % 16 (never past d + n).
static inline ATCK_INLINE void qd_copy_bytes(uint8_t* d, const uint8_t* s, int64_t n) {
  for (; n >= 64; n -= 64, d += 64, s += 64) *(qd_u8x64*)d = *(const qd_u8x64*)s;
  if (n & 32) {
    *(qd_u8x32*)d = *(const qd_u8x32*)s;
    d += 32, s += 32;
  }
  if (n & 16) {
    *(q8_u8x16*)d = *(const q8_u8x16*)s;
    d += 16, s += 16;
  }
  q8_put_bytes(d, s, n & 15);
}

// Padded input row ih of plane `plane` as uint8 bytes: prow[q] = xq[ih][q - PW], the zero point
// outside the image (float input: QuantizeLinear's arithmetic; int8: flipped to uint8).
// prow holds PADW bytes rounded up to 64.
static void qd_padded_row(const int64_t* P, void** bufs, int64_t plane, int64_t ih, const Q8Quant& q, uint8_t zpb,
                          uint8_t* prow) {
  const int64_t IH = P[QD_IH], IW = P[QD_IW], PW = P[QD_PW], PADW = P[QD_PADW];
  const int64_t lo = PW < PADW ? PW : PADW, hi = PW + IW < PADW ? PW + IW : PADW;
  qd_u8x64 z;
  for (int i = 0; i < 64; ++i) z[i] = zpb;
  for (int64_t i = 0; i < PADW; i += 64) *(qd_u8x64*)(prow + i) = z;
  if (ih < 0 || ih >= IH || hi <= lo) return;
  const int64_t e0 = (plane * IH + ih) * IW - PW;  // element index of padded column 0
  uint8_t* d = prow;
  switch (P[QD_XDT]) {
    case ATCK_F32: {
      const float* x = (const float*)bufs[P[QD_XBUF]] + e0;
      int64_t i = lo;
      for (; i + 16 <= hi; i += 16)
        *(q8_u8x16*)(d + i) = __builtin_convertvector(
            __builtin_convertvector(q8_qvalue16(q, *(const q8_f32u*)(x + i)), q8_i32) + q8_splati(q.flip), q8_u8x16);
      for (; i < hi; ++i) d[i] = (uint8_t)q8_quant1(q, x[i]);
      break;
    }
    case ATCK_U8:
      qd_copy_bytes(d + lo, (const uint8_t*)bufs[P[QD_XBUF]] + e0 + lo, hi - lo);
      break;
    default: {
      const int8_t* x = (const int8_t*)bufs[P[QD_XBUF]] + e0;
      for (int64_t i = lo; i < hi; ++i) d[i] = (uint8_t)(x[i] ^ (int8_t)0x80);
      break;
    }
  }
}

// The 16 bytes prow[(ow + l) * SW + off], l = 0..15, zero-extended to 32-bit lanes.
static Q8_AI q8_u32 qd_col16(const uint8_t* prow, int64_t ow, int64_t SW, int64_t off) {
  if (SW == 1) return __builtin_convertvector(*(const q8_u8x16*)(prow + ow + off), q8_u32);
  const qd_u8x32 b = *(const qd_u8x32*)(prow + 2 * ow + off);
  const q8_u8x16 e = __builtin_shufflevector(b, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  return __builtin_convertvector(e, q8_u32);
}

// 16 tap words from one 64-byte load: byte j of word l = p[l * SW + j * DW] (one byte shuffle,
// vpermb where the target has AVX512-VBMI). Bytes past the kernel's columns meet zero weights.
#define QD_IX(k) (((k) / 4) * SW + ((k) % 4) * DW)
#define QD_IX4(k) QD_IX(k), QD_IX(k + 1), QD_IX(k + 2), QD_IX(k + 3)
#define QD_IX16(k) QD_IX4(k), QD_IX4(k + 4), QD_IX4(k + 8), QD_IX4(k + 12)
template <int SW, int DW>
static void qd_word_row_shuffle(const uint8_t* p, int64_t OW, uint32_t* wr) {
  for (int64_t ow = 0; ow < OW; ow += 16) {  // the last store may run up to 15 words past OW
    const qd_u8x64 b = *(const qd_u8x64*)(p + ow * SW);
    *(qd_u8x64*)(wr + ow) = __builtin_shufflevector(b, b, QD_IX16(0), QD_IX16(16), QD_IX16(32), QD_IX16(48));
  }
}
#undef QD_IX16
#undef QD_IX4
#undef QD_IX

// Tap-word row of quad g from a padded row: word[ow] = bytes prow[ow * SW + (4g + j) * DW],
// j = 0..3 (the bytes of kernel columns past KW are 0 or any, and meet zero weights).
static void qd_word_row(const int64_t* P, const uint8_t* prow, int64_t g, uint32_t* wr) {
  const int64_t OW = P[QD_OW], SW = P[QD_SW], DW = P[QD_DW];
  const int64_t nj = P[QD_KW] - 4 * g < 4 ? P[QD_KW] - 4 * g : 4;
  const uint8_t* p = prow + 4 * g * DW;
  if (SW == 1 && DW == 1) return qd_word_row_shuffle<1, 1>(p, OW, wr);
  if (SW == 2 && DW == 1) return qd_word_row_shuffle<2, 1>(p, OW, wr);
  if (SW == 1 && DW == 2) return qd_word_row_shuffle<1, 2>(p, OW, wr);
  if (SW <= 2) {
    for (int64_t ow = 0; ow < OW; ow += 16) {  // the last store may run up to 15 words past OW
      q8_u32 v = qd_col16(p, ow, SW, 0);
      for (int64_t j = 1; j < nj; ++j) v |= qd_col16(p, ow, SW, j * DW) << (uint32_t)(8 * j);
      *(q8_u32u*)(wr + ow) = v;
    }
    return;
  }
  for (int64_t ow = 0; ow < OW; ++ow) {
    uint32_t v = 0;
    for (int64_t j = 0; j < nj; ++j) v |= (uint32_t)p[ow * SW + j * DW] << (8 * j);
    wr[ow] = v;
  }
}

// Padded rows in the slot: bytes per row (PADW rounded up to 64) and rows per band.
static inline ATCK_INLINE int64_t qd_prow_stride(const int64_t* P) { return (P[QD_PADW] + 63) / 64 * 64; }
static inline ATCK_INLINE int64_t qd_prows(const int64_t* P) {
  return (P[QD_MB] - 1) * P[QD_SH] + (P[QD_KH] - 1) * P[QD_DH] + 1;
}

// Builds the word rows of output rows [oh0, oh0 + ohn) of plane `plane`: all the band's padded
// rows first, then the words. (Building the words of each padded row right after its stores
// made every 64-byte load span stores still in flight: no store forwarding, a stall per load,
// 4x the time of the whole band.)
static void qd_band(const int64_t* P, void** bufs, int64_t plane, int64_t oh0, int64_t ohn, const Q8Quant& q,
                    uint8_t zpb, uint32_t* words, uint8_t* prows) {
  const int64_t SH = P[QD_SH], NQ = P[QD_NQ], OW = P[QD_OW], RG = qd_region(P), PS = qd_prow_stride(P);
  const int64_t last = (ohn - 1) * SH + (P[QD_KH] - 1) * P[QD_DH];  // padded rows [0, last] of the band
  for (int64_t r = 0; r <= last; ++r) qd_padded_row(P, bufs, plane, oh0 * SH + r - P[QD_PH], q, zpb, prows + r * PS);
  for (int64_t ph = 0; ph < SH && ph <= last; ++ph)
    for (int64_t i = 0; ph + i * SH <= last; ++i)
      for (int64_t g = 0; g < NQ; ++g)
        qd_word_row(P, prows + (ph + i * SH) * PS, g, words + (ph * NQ + g) * RG + i * OW);
}

// acc[v][16] = sum over the tap words k of words[off[k] + t[v] + l] . wq[k] (bytes as u8 x s8).
static void qd_tiles_portable(const uint32_t* words, const int64_t* off, int64_t ntap, const int32_t* wq,
                              const int64_t* t, int nt, int32_t* acc) {
  for (int v = 0; v < nt; ++v) {
    q8_i32 a = q8_splati(0);
    for (int64_t k = 0; k < ntap; ++k) {
      const q8_u32 x = *(const q8_u32u*)(words + off[k] + t[v]);
      for (int j = 0; j < 4; ++j)
        a += (q8_i32)((x >> (uint32_t)(8 * j)) & 0xFFu) * (int32_t)(int8_t)((uint32_t)wq[k] >> (8 * j));
    }
    *(q8_i32*)(acc + 16 * v) = a;
  }
}

#if defined(__x86_64__)
#if defined(__clang__)
#define QD_VNNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni,evex512")))
#else
#define QD_VNNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni")))
#endif
// The same with vpdpbusd: QD_NT independent accumulators, a broadcast weight word per tap word.
QD_VNNI_TARGET static void qd_tiles_vnni(const uint32_t* words, const int64_t* off, int64_t ntap, const int32_t* wq,
                                         const int64_t* t, int nt, int32_t* acc) {
  __m512i a[QD_NT];
  for (int v = 0; v < QD_NT; ++v) a[v] = _mm512_setzero_si512();
  for (int64_t k = 0; k < ntap; ++k) {
    const __m512i w = _mm512_set1_epi32(wq[k]);
    const uint32_t* b = words + off[k];
    for (int v = 0; v < QD_NT; ++v)
      if (v < nt) a[v] = _mm512_dpbusd_epi32(a[v], _mm512_loadu_si512((const void*)(b + t[v])), w);
  }
  for (int v = 0; v < QD_NT; ++v)
    if (v < nt) _mm512_storeu_si512((void*)(acc + 16 * v), a[v]);
}

// 256-bit vpdpbusd: each tile of 16 outputs in two accumulators. The body is shared by the
// VEX form (AVX-VNNI, the vnni256 path) and the EVEX form (AVX512-VL + VNNI), which runs the
// same code on an AVX-512 host (the kernel tests' stand-in where the host has no AVX-VNNI).
#define QD_TILES256(DPBUSD)                                                            \
  __m256i a[2 * QD_NT];                                                                \
  for (int v = 0; v < 2 * QD_NT; ++v) a[v] = _mm256_setzero_si256();                   \
  for (int64_t k = 0; k < ntap; ++k) {                                                 \
    const __m256i w = _mm256_set1_epi32(wq[k]);                                        \
    const uint32_t* b = words + off[k];                                                \
    for (int v = 0; v < QD_NT; ++v)                                                    \
      if (v < nt) {                                                                    \
        a[2 * v] = DPBUSD(a[2 * v], _mm256_loadu_si256((const __m256i*)(b + t[v])), w); \
        a[2 * v + 1] = DPBUSD(a[2 * v + 1], _mm256_loadu_si256((const __m256i*)(b + t[v] + 8)), w); \
      }                                                                                \
  }                                                                                    \
  for (int v = 0; v < 2 * QD_NT; ++v)                                                  \
    if (v / 2 < nt) _mm256_storeu_si256((__m256i*)(acc + 8 * v), a[v]);

__attribute__((target("avx2,avxvnni"))) static void qd_tiles_vnni256(const uint32_t* words, const int64_t* off,
                                                                      int64_t ntap, const int32_t* wq,
                                                                      const int64_t* t, int nt, int32_t* acc) {
  QD_TILES256(_mm256_dpbusd_avx_epi32)
}
__attribute__((target("avx512f,avx512vl,avx512vnni"))) static void qd_tiles_vnni256_evex(
    const uint32_t* words, const int64_t* off, int64_t ntap, const int32_t* wq, const int64_t* t, int nt,
    int32_t* acc) {
  QD_TILES256(_mm256_dpbusd_epi32)
}
#undef QD_TILES256

// AVX2 without VNNI: a tap word's bytes 0, 2 and 1, 3 zero-extended to int16 (and, vpsrlw),
// times the weight word's bytes as int16 pairs (w0, w2) and (w1, w3), summed by vpmaddwd. One
// tile at a time, its two accumulators over all taps: with the four tiles of the VNNI paths, the
// 8 accumulators and the hoisted weight pairs of a 3x3 kernel spill out of the 16 ymm registers.
__attribute__((target("avx2"))) static void qd_tiles_avx2(const uint32_t* words, const int64_t* off, int64_t ntap,
                                                          const int32_t* wq, const int64_t* t, int nt,
                                                          int32_t* acc) {
  int32_t wp[2 * 64];  // (w0, w2), (w1, w3) of tap word k (ntap <= 64: the lowering's bound)
  for (int64_t k = 0; k < ntap; ++k) {
    const uint32_t wk = (uint32_t)wq[k];
    const int32_t w0 = (int8_t)wk, w1 = (int8_t)(wk >> 8), w2 = (int8_t)(wk >> 16), w3 = (int8_t)(wk >> 24);
    wp[2 * k] = (int32_t)(((uint32_t)w2 << 16) | ((uint32_t)w0 & 0xFFFFu));
    wp[2 * k + 1] = (int32_t)(((uint32_t)w3 << 16) | ((uint32_t)w1 & 0xFFFFu));
  }
  const __m256i lo = _mm256_set1_epi32(0x00FF00FF);
  for (int v = 0; v < nt; ++v) {
    __m256i a0 = _mm256_setzero_si256(), a1 = _mm256_setzero_si256();
    for (int64_t k = 0; k < ntap; ++k) {
      const __m256i we = _mm256_set1_epi32(wp[2 * k]), wo = _mm256_set1_epi32(wp[2 * k + 1]);
      const uint32_t* b = words + off[k] + t[v];
      const __m256i x0 = _mm256_loadu_si256((const __m256i*)b), x1 = _mm256_loadu_si256((const __m256i*)(b + 8));
      a0 = q8_madd4_avx2(a0, _mm256_and_si256(x0, lo), _mm256_srli_epi16(x0, 8), we, wo);
      a1 = q8_madd4_avx2(a1, _mm256_and_si256(x1, lo), _mm256_srli_epi16(x1, 8), we, wo);
    }
    _mm256_storeu_si256((__m256i*)(acc + 16 * v), a0);
    _mm256_storeu_si256((__m256i*)(acc + 16 * v + 8), a1);
  }
}
#endif

// The accumulation paths of QD_VNNI (the host checked in the native build).
enum QdPath { QD_PORTABLE = 0, QD_V512 = 1, QD_V256 = 2, QD_V256_EVEX = 3, QD_AVX2 = 4 };

static QdPath qd_path(int64_t param) {
#if !defined(__x86_64__)
  (void)param;
  return QD_PORTABLE;
#elif defined(ATC_BITCODE)
  return param == 1 || param == 2 || param == 4 ? (QdPath)param : QD_PORTABLE;
#else
  if (param == 1 && __builtin_cpu_supports("avx512vnni")) return QD_V512;
  if (param == 2 && __builtin_cpu_supports("avxvnni")) return QD_V256;
  if (param == 2 && __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl")) return QD_V256_EVEX;
  if (param == 4 && __builtin_cpu_supports("avx2")) return QD_AVX2;
  return QD_PORTABLE;
#endif
}

// The outputs of one band: flat tiles of 16 (the last one overlapping the one before it, or
// partial when the band has fewer than 16 outputs), QD_NT at a time, then the epilogue.
static void qd_band_tiles(const int64_t* P, const uint32_t* words, const int64_t* off, const int32_t* wq, QdPath path,
                          int32_t* acc, float mult, float bias, int32_t comp, void* Y, int64_t y0, int64_t total) {
  const int64_t ntap = P[QD_KH] * P[QD_NQ];
  const float lo = (float)atck_d(P[QD_ACTLO]), hi = (float)atck_d(P[QD_ACTHI]);
  const Q8Out o = q8_out_params(P[QD_OQ], P[QD_OSCALE], P[QD_OZP], P[QD_OQLO], P[QD_OQHI]);
  Q8Req req = q8_req_bounds(o, P[QD_ACT], lo, hi);  // stage 2: mult and bias are folded (aux)
  req.m = mult;
  req.b = bias;
  const int64_t ntiles = (total + 15) / 16;
  for (int64_t ti = 0; ti < ntiles; ti += QD_NT) {
    int64_t t[QD_NT];
    int nt = 0;
    for (; nt < QD_NT && ti + nt < ntiles; ++nt) {
      t[nt] = (ti + nt) * 16;
      if (t[nt] + 16 > total && total >= 16) t[nt] = total - 16;
    }
    switch (path) {
#if defined(__x86_64__)
      case QD_V512: qd_tiles_vnni(words, off, ntap, wq, t, nt, acc); break;
      case QD_V256: qd_tiles_vnni256(words, off, ntap, wq, t, nt, acc); break;
      case QD_V256_EVEX: qd_tiles_vnni256_evex(words, off, ntap, wq, t, nt, acc); break;
      case QD_AVX2: qd_tiles_avx2(words, off, ntap, wq, t, nt, acc); break;
#endif
      default: qd_tiles_portable(words, off, ntap, wq, t, nt, acc); break;
    }
    for (int v = 0; v < nt; ++v) {
      Q8Seg seg;
      seg.lane = 0;
      seg.len = total - t[v] < 16 ? total - t[v] : 16;
      seg.dst = y0 + t[v];
      if (o.mode == 2) {
        q8_req_store(req, *(const q8_i32*)(acc + 16 * v), (uint8_t*)Y, &seg, 1);
        continue;
      }
      q8_f32 y = __builtin_convertvector(*(const q8_i32*)(acc + 16 * v) - q8_splati(comp), q8_f32) * q8_splatf(mult) +
                 q8_splatf(bias);
      q8_out_store(o, Y, q8_act(P[QD_ACT], y, lo, hi), &seg, 1);
    }
  }
}

void atck_qdwconv8_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t C = P[QD_C], OH = P[QD_OH], OW = P[QD_OW], KH = P[QD_KH], NQ = P[QD_NQ];
  const int64_t SH = P[QD_SH], DH = P[QD_DH], NC = P[QD_N] * C, PPT = P[QD_PPT], RG = qd_region(P);
  const QdPath path = qd_path(P[QD_VNNI]);
  const Q8Quant q = q8_in_quant(P[QD_XSCALE], P[QD_XZP], P[QD_QDT]);
  const uint8_t zpb = (uint8_t)((P[QD_XZP] + q.flip) & 0xFF);
  const int32_t* W = (const int32_t*)bufs[P[QD_WBUF]];
  const float* aux = (const float*)bufs[P[QD_ABUF]];
  const int32_t* comp = (const int32_t*)(aux + 2 * C);
  void* Y = bufs[P[QD_YBUF]];
  // One slot per call (kernel_abi.h): tap words, the padded-row scratch, the accumulators.
  char* slot = (char*)(((uintptr_t)bufs[P[QD_YBUF] + 1] + 63) & ~(uintptr_t)63) + begin * P[QD_SLOT];
  uint32_t* words = (uint32_t*)slot;
  uint8_t* prows = (uint8_t*)(words + SH * NQ * RG);  // RG is a multiple of 16 words
  int32_t* acc = (int32_t*)(prows + qd_prows(P) * qd_prow_stride(P));
  int64_t off[64];  // tap word k = kh * NQ + g: its word offset (the lowering keeps KH * NQ <= 64)
  for (int64_t kh = 0; kh < KH; ++kh)
    for (int64_t g = 0; g < NQ; ++g)
      off[kh * NQ + g] = (((kh * DH) % SH) * NQ + g) * RG + ((kh * DH) / SH) * OW;
  for (int64_t plane = begin * PPT; plane < NC && plane < end * PPT; ++plane) {
    const int64_t c = plane % C;
    for (int64_t oh0 = 0; oh0 < OH; oh0 += P[QD_MB]) {
      const int64_t ohn = OH - oh0 < P[QD_MB] ? OH - oh0 : P[QD_MB];
      qd_band(P, bufs, plane, oh0, ohn, q, zpb, words, prows);
      qd_band_tiles(P, words, off, W + c * KH * NQ, path, acc, aux[c], aux[C + c], comp[c], Y,
                    plane * OH * OW + oh0 * OW, ohn * OW);
    }
  }
}
