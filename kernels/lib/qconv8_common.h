// Vector helpers of the int8 conv kernels (qconv8.cpp, qdwconv8.cpp): QuantizeLinear of 16
// floats, the Q/DQ output stage, the activations, the output stores of part of a tile.
#pragma once
#include "kernels/lib/quant_common.h"

#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

// Helpers that take or return 64-byte vectors are always inlined: g++ (native build, no
// AVX-512 in its flags) warns about the ABI of any it emits out of line.
#define Q8_AI inline __attribute__((always_inline))

typedef int32_t q8_i32 __attribute__((vector_size(64)));
typedef int32_t q8_i32u __attribute__((vector_size(64), aligned(4)));
typedef uint32_t q8_u32 __attribute__((vector_size(64)));
typedef uint32_t q8_u32u __attribute__((vector_size(64), aligned(4)));
typedef uint32_t q8_u32x8u __attribute__((vector_size(32), aligned(4)));
typedef float q8_f32 __attribute__((vector_size(64)));
typedef float q8_f32u __attribute__((vector_size(64), aligned(4)));
typedef float q8_f32x8u __attribute__((vector_size(32), aligned(4)));
typedef float q8_f32x4u __attribute__((vector_size(16), aligned(4)));
typedef float q8_f32x2u __attribute__((vector_size(8), aligned(4)));
typedef uint8_t q8_u8x16 __attribute__((vector_size(16), aligned(1)));
typedef int8_t q8_s8x16 __attribute__((vector_size(16), aligned(1)));
typedef uint8_t q8_u8x8u __attribute__((vector_size(8), aligned(1)));
typedef uint8_t q8_u8x4u __attribute__((vector_size(4), aligned(1)));

static Q8_AI q8_f32 q8_splatf(float f) {
  q8_f32 v = {f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f};
  return v;
}
static Q8_AI q8_i32 q8_splati(int32_t f) {
  q8_i32 v = {f, f, f, f, f, f, f, f, f, f, f, f, f, f, f, f};
  return v;
}

#if defined(__x86_64__)
#include <immintrin.h>
// The AVX2 int8 path (Q8_WIDE_PATH, qconv8.cpp q8_tile_avx2): acc plus, per int32 lane, the exact
// sum of four u8 x s8 products: xe / xo hold the lane's bytes 0, 2 / 1, 3 zero-extended to int16,
// we / wo the matching weights as int16 pairs.
__attribute__((target("avx2"), always_inline)) static inline __m256i q8_madd4_avx2(__m256i acc, __m256i xe,
                                                                                   __m256i xo, __m256i we,
                                                                                   __m256i wo) {
  return _mm256_add_epi32(acc, _mm256_add_epi32(_mm256_madd_epi16(xe, we), _mm256_madd_epi16(xo, wo)));
}
#endif

// Quantization of the band fill: byte = saturate(rint(x / scale) + zp) (+128 for int8, the
// flip to uint8). x / scale is clamped first to a range that saturates the same way, so that
// rint can be the add-and-subtract of 1.5 * 2^23 (ties to even); NaN gives the zero point.
struct Q8Quant {
  float scale, zp, vlo, vhi, qlo, qhi;
  int32_t flip;
};

static Q8_AI uint32_t q8_quant1(const Q8Quant& q, float x) {
  return (uint32_t)((int32_t)atck_q_value(x / q.scale, q.zp, q.qlo, q.qhi) + q.flip);
}
// saturate(rint(x / scale) + zp) of 16 floats (QuantizeLinear), as floats.
static Q8_AI q8_f32 q8_qvalue16(const Q8Quant& q, q8_f32 x) {
  q8_f32 v = x / q8_splatf(q.scale);
  v = v < q8_splatf(q.vlo) ? q8_splatf(q.vlo) : v;
  v = v > q8_splatf(q.vhi) ? q8_splatf(q.vhi) : v;
  v = (v + q8_splatf(12582912.0f)) - q8_splatf(12582912.0f);
  v = v == v ? v : q8_splatf(0.0f);
  q8_f32 r = v + q8_splatf(q.zp);
  r = r < q8_splatf(q.qlo) ? q8_splatf(q.qlo) : r;
  return r > q8_splatf(q.qhi) ? q8_splatf(q.qhi) : r;
}

static Q8_AI q8_u32 q8_quant16(const Q8Quant& q, const float* x) {
  return (q8_u32)(__builtin_convertvector(q8_qvalue16(q, *(const q8_f32u*)x), q8_i32) + q8_splati(q.flip));
}

// The input quantization of a kernel's band: scale (atck_f bits), zero point, the dtype of the
// quantized x (int8: flipped to uint8, +128).
static inline ATCK_INLINE Q8Quant q8_in_quant(int64_t scaleBits, int64_t zp, int64_t qdt) {
  Q8Quant q;
  q.scale = (float)atck_d(scaleBits);
  q.zp = (float)zp;
  const bool sgn = qdt == ATCK_I8;
  q.qlo = sgn ? -128.0f : 0.0f;
  q.qhi = sgn ? 127.0f : 255.0f;
  q.vlo = q.qlo - q.zp - 1.0f;
  q.vhi = q.qhi - q.zp + 1.0f;
  q.flip = sgn ? 128 : 0;
  return q;
}

// QuantizeLinear then DequantizeLinear of 16 floats: (saturate(rint(y / scale) + zp) - zp) * scale,
// computed as rint(clamp(y * (1 / scale), qlo - zp, qhi - zp)) * scale: the bounds are integers
// and rint is monotonic, so clamping before rounding saturates the same way; NaN gives 0 (the
// zero point). y * (1 / scale) can differ from y / scale in the last bit, which moves a y
// within an ulp of a rounding tie by one step: y is the int8 path's own float result (its
// sums are not the framework's), so this stays within the one step the path promises
// (docs/quantization.md); the division made a 16 -> 96 1x1 conv on 112x112 13% slower.
static Q8_AI q8_f32 q8_fakequant16(const Q8Quant& q, q8_f32 y) {
  q8_f32 v = y * q8_splatf(1.0f / q.scale);
  v = v == v ? v : q8_splatf(0.0f);
  v = v < q8_splatf(q.qlo - q.zp) ? q8_splatf(q.qlo - q.zp) : v;
  v = v > q8_splatf(q.qhi - q.zp) ? q8_splatf(q.qhi - q.zp) : v;
  v = (v + q8_splatf(12582912.0f)) - q8_splatf(12582912.0f);
  return v * q8_splatf(q.scale);
}

// Copies n < 16 floats in at most four vector moves (8, 4, 2, 1): a scalar loop here cost
// half the time of 1x1 convs on 14x14 maps, whose tiles end mid-row.
static Q8_AI void q8_put(float* d, const float* s, int64_t n) {
  if (n & 8) {
    *(q8_f32x8u*)d = *(const q8_f32x8u*)s;
    d += 8, s += 8;
  }
  if (n & 4) {
    *(q8_f32x4u*)d = *(const q8_f32x4u*)s;
    d += 4, s += 4;
  }
  if (n & 2) {
    *(q8_f32x2u*)d = *(const q8_f32x2u*)s;
    d += 2, s += 2;
  }
  if (n & 1) *d = *s;
}

// The activation `code` (0: none, 1: ReLU, 2: Clip to [lo, hi]) of 16 floats.
static Q8_AI q8_f32 q8_act(int64_t code, q8_f32 y, float lo, float hi) {
  if (code == 1) y = y > q8_splatf(0.0f) ? y : q8_splatf(0.0f);
  if (code == 2) {
    y = y < q8_splatf(lo) ? q8_splatf(lo) : y;
    y = y > q8_splatf(hi) ? q8_splatf(hi) : y;
  }
  return y;
}

// Copies n < 16 bytes in at most four moves (8, 4, 2, 1).
static Q8_AI void q8_put_bytes(uint8_t* d, const uint8_t* s, int64_t n) {
  if (n & 8) {
    *(q8_u8x8u*)d = *(const q8_u8x8u*)s;
    d += 8, s += 8;
  }
  if (n & 4) {
    *(q8_u8x4u*)d = *(const q8_u8x4u*)s;
    d += 4, s += 4;
  }
  if (n & 2) {
    d[0] = s[0];
    d[1] = s[1];
    d += 2, s += 2;
  }
  if (n & 1) *d = *s;
}

// QuantizeLinear of 16 floats (x / scale, rint ties to even, saturation, NaN -> zero point) as
// 16 bytes: uint8, or int8's two's complement bits. The arithmetic of the band fill's
// quantization, so a conv that writes its output quantized gives its int8 reader the bytes
// that reader would have made from the float output.
static Q8_AI q8_u8x16 q8_qbytes16(const Q8Quant& q, q8_f32 y) {
  return __builtin_convertvector(__builtin_convertvector(q8_qvalue16(q, y), q8_i32), q8_u8x16);
}

// The output stage of the int8 conv kernels (Q8_OQ, QD_OQ): 0 y as float32; 1 QuantizeLinear
// then DequantizeLinear (float32, a pair before a float reader); 2 QuantizeLinear alone (Y is
// uint8 / int8: every reader is an int8 conv).
struct Q8Out {
  int64_t mode;
  Q8Quant q;
};

static Q8_AI Q8Out q8_out_params(int64_t mode, int64_t scaleBits, int64_t zp, int64_t lo, int64_t hi) {
  Q8Out o;
  o.mode = mode;
  o.q.scale = (float)atck_d(scaleBits);
  o.q.zp = (float)zp;
  o.q.qlo = (float)lo;
  o.q.qhi = (float)hi;
  o.q.vlo = o.q.qlo - o.q.zp - 1.0f;
  o.q.vhi = o.q.qhi - o.q.zp + 1.0f;
  o.q.flip = 0;
  return o;
}

// The runs of a tile's lanes that land in Y: lane0, count, Y offset within a channel plane.
struct Q8Seg {
  int64_t lane, len, dst;
};

// Stores y (after the output stage) to the segments of channel plane Y (element offsets).
static Q8_AI void q8_out_store(const Q8Out& o, void* Y, q8_f32 y, const Q8Seg* seg, int nseg) {
  const bool whole = nseg == 1 && seg[0].len == 16;
  if (o.mode == 2) {
    const q8_u8x16 b = q8_qbytes16(o.q, y);
    uint8_t* d = (uint8_t*)Y;
    if (whole) {
      *(q8_u8x16*)(d + seg[0].dst) = b;
      return;
    }
    uint8_t t[16];
    *(q8_u8x16*)t = b;
    for (int s = 0; s < nseg; ++s) q8_put_bytes(d + seg[s].dst, t + seg[s].lane, seg[s].len);
    return;
  }
  if (o.mode == 1) y = q8_fakequant16(o.q, y);
  float* d = (float*)Y;
  if (whole) {
    *(q8_f32u*)(d + seg[0].dst) = y;
    return;
  }
  float t[16];
  *(q8_f32u*)t = y;
  for (int s = 0; s < nseg; ++s) q8_put(d + seg[s].dst, t + seg[s].lane, seg[s].len);
}

// Requantization of a channel whose output is quantized (stage 2) and has no residual: y =
// (acc - comp) * mult + bias, the activation, then QuantizeLinear with scale s and zero point
// zp, folded into v = acc * (mult / s) + ((bias - comp * mult) / s + zp) (the lowering stores
// these two in aux in place of mult and bias), clamped to the activation's bounds and the
// saturation range in the quantized domain (integers: clamping before rounding saturates the
// same way), rounded to nearest even. Differs from the unfolded arithmetic by one step for a
// y within float rounding of a tie: inside the one step the int8 path promises
// (docs/quantization.md). 8 vector operations per 16 outputs, no division.
struct Q8Req {
  float m, b, lo, hi;
};

// The clamp bounds of q8_requant16 for the output stage o and activation `act` (1: ReLU,
// 2: Clip to [alo, ahi]).
static inline ATCK_INLINE Q8Req q8_req_bounds(const Q8Out& o, int64_t act, float alo, float ahi) {
  Q8Req r;
  r.m = 1.0f;
  r.b = 0.0f;
  r.lo = o.q.qlo;
  r.hi = o.q.qhi;
  const float zlo = act == 1 ? o.q.zp : act == 2 ? alo / o.q.scale + o.q.zp : o.q.qlo;
  const float zhi = act == 2 ? ahi / o.q.scale + o.q.zp : o.q.qhi;
  if (zlo > r.lo) r.lo = zlo;
  if (zhi < r.hi) r.hi = zhi;
  if (r.hi < r.lo) r.hi = r.lo;
  return r;
}

static Q8_AI q8_u8x16 q8_requant16(const Q8Req& r, q8_i32 acc) {
  q8_f32 v = __builtin_convertvector(acc, q8_f32) * q8_splatf(r.m) + q8_splatf(r.b);
  v = v < q8_splatf(r.lo) ? q8_splatf(r.lo) : v;
  v = v > q8_splatf(r.hi) ? q8_splatf(r.hi) : v;
  v = (v + q8_splatf(12582912.0f)) - q8_splatf(12582912.0f);
  return __builtin_convertvector(__builtin_convertvector(v, q8_i32), q8_u8x16);
}

// Stores 16 requantized bytes to the segments of channel plane Y (uint8 / int8).
static Q8_AI void q8_req_store(const Q8Req& r, q8_i32 acc, uint8_t* Y, const Q8Seg* seg, int nseg) {
  const q8_u8x16 b = q8_requant16(r, acc);
  if (nseg == 1 && seg[0].len == 16) {
    *(q8_u8x16*)(Y + seg[0].dst) = b;
    return;
  }
  uint8_t t[16];
  *(q8_u8x16*)t = b;
  for (int s = 0; s < nseg; ++s) q8_put_bytes(Y + seg[s].dst, t + seg[s].lane, seg[s].len);
}
