// The cast-only formats of ir/dtype.h (float8 E4M3FN / E4M3FNUZ / E5M2 / E5M2FNUZ / E8M0, float4
// E2M1, int4 / uint4 / int2 / uint2; one element per byte), converted to and from float and
// integers as ONNX's Cast defines it (opsets 19-25, its "saturate" and "round_mode" attributes).
// ir/dtype.cpp castOnlyFloatValue repeats the decoding for constants in the IR.
#pragma once
#include "kernels/lib/kernel_abi.h"
#include "kernels/lib/math_fast.h"

// Layout of a minifloat: exponent and mantissa bits, bias; fnuz: no negative zero, 0x80 the
// only NaN, no infinity.
struct AtckMiniFloat {
  int eb, mb, bias, fnuz;
};

static inline ATCK_INLINE AtckMiniFloat atck_mf_of(int64_t dt) {
  switch (dt) {
    case ATCK_F8E4M3FNUZ: return {4, 3, 8, 1};
    case ATCK_F8E5M2: return {5, 2, 15, 0};
    case ATCK_F8E5M2FNUZ: return {5, 2, 16, 1};
    case ATCK_F4E2M1: return {2, 1, 1, 0};
    default: return {4, 3, 7, 0};  // ATCK_F8E4M3FN
  }
}

// 2^e as a float for e in [-149, 127].
static inline ATCK_INLINE float atck_pow2f(int e) {
  if (e >= -126) return atck_bits2f((uint32_t)(e + 127) << 23);
  return atck_bits2f(1u << (e + 149));
}

// The value of bit pattern b of a minifloat dtype (float8 / float4) or of E8M0.
static inline ATCK_INLINE float atck_lp_decode(int64_t dt, uint8_t b) {
  const float nan = atck_bits2f(0x7fc00000u);
  if (dt == ATCK_F8E8M0) return b == 0xff ? nan : atck_pow2f((int)b - 127);
  const AtckMiniFloat f = atck_mf_of(dt);
  const int sbit = 1 << (f.eb + f.mb);
  if (f.fnuz && b == 0x80) return nan;
  const int mag = b & (sbit - 1), e = mag >> f.mb, m = mag & ((1 << f.mb) - 1);
  float v;
  if (dt == ATCK_F8E4M3FN && mag == 0x7f) v = nan;
  else if (dt == ATCK_F8E5M2 && e == 31) v = m ? nan : atck_bits2f(0x7f800000u);
  else if (e == 0) v = (float)m * atck_pow2f(1 - f.bias - f.mb);
  else v = (float)(m + (1 << f.mb)) * atck_pow2f(e - f.bias - f.mb);
  return (b & sbit) ? -v : v;
}

// x rounded to nearest even into minifloat dt. saturate: values beyond the largest finite one
// (and, for E4M3FN and E5M2, infinities) become it; otherwise they become NaN (E5M2: infinity).
// Float4 E2M1 has neither NaN nor infinity: it always saturates, and NaN becomes 0x8 (negative
// zero), as ONNX's reference outputs (opset 25 node tests).
static inline ATCK_INLINE uint8_t atck_lp_encode_mf(int64_t dt, float x, int saturate) {
  const AtckMiniFloat f = atck_mf_of(dt);
  const uint32_t b = atck_f2bits(x), a = b & 0x7fffffffu;
  const int sbit = 1 << (f.eb + f.mb);
  const uint8_t sign = (b >> 31) ? (uint8_t)sbit : 0;
  const int f4 = dt == ATCK_F4E2M1, e5 = dt == ATCK_F8E5M2;
  // Largest finite magnitude code and the NaN / infinity codes of the format.
  const int maxc = f4 ? 0x7 : dt == ATCK_F8E4M3FN ? 0x7e : e5 ? 0x7b : 0x7f;
  const uint8_t nanc = f.fnuz ? (uint8_t)0x80 : (uint8_t)(sign | 0x7f);
  if (a > 0x7f800000u) return f4 ? (uint8_t)0x8 : nanc;
  if (a == 0x7f800000u) {
    if (saturate || f4) return (uint8_t)(sign | maxc);
    return e5 ? (uint8_t)(sign | 0x7c) : nanc;
  }
  const int E = (int)(a >> 23), emin = 1 - f.bias;
  const int e = E ? E - 127 : -126;  // unbiased exponent of the value sig * 2^(e - 23)
  const uint32_t sig = E ? ((a & 0x7fffffu) | 0x800000u) : (a & 0x7fffffu);
  const int eq = e < emin ? emin : e;
  const int shift = 23 - f.mb + (eq - e);
  uint32_t q = 0;
  if (shift < 32) {
    q = sig >> shift;
    const uint32_t rem = sig & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;
  }
  int ef = eq + f.bias;  // exponent field of q's leading bit position mb
  if (q >= (2u << f.mb)) {
    q >>= 1;
    ++ef;
  }
  int code;
  if (q < (1u << f.mb)) code = (int)q;  // subnormal (exponent field 0) or zero
  else if (ef >= (1 << f.eb) + 1) code = 0x100;  // far beyond any format: overflow below
  else code = (ef << f.mb) | (int)(q & ((1u << f.mb) - 1));
  if (code > maxc) return (saturate || f4) ? (uint8_t)(sign | maxc) : (e5 ? (uint8_t)(sign | 0x7c) : nanc);
  if (code == 0 && f.fnuz) return 0;  // no negative zero
  return (uint8_t)(sign | code);
}

// x into E8M0 (a power of two 2^(bits - 127), no sign, no zero; 0xff NaN), as ONNX's Cast:
// round_mode 0 "up" (a value between two powers rounds to the larger), 1 "down", 2 "nearest"
// (halfway and up to the larger); saturate: beyond 2^127 -> 0xfe, else 0xff.
static inline ATCK_INLINE uint8_t atck_lp_encode_e8m0(float x, int saturate, int roundMode) {
  const uint32_t a = atck_f2bits(x) & 0x7fffffffu;
  if (a > 0x7f800000u) return 0xff;
  if (a == 0x7f800000u) return saturate ? 0xfe : 0xff;
  uint32_t e = a >> 23;
  const uint32_t m = a & 0x7fffffu;
  if (e == 0) {  // float32 subnormals (and zero): between 0 and 2^-126, code 0 is 2^-127
    if (roundMode == 0) return m > 0x400000u ? 1 : 0;
    if (roundMode == 2) return m >= 0x600000u ? 1 : 0;
    return 0;
  }
  if (roundMode == 0 && m) ++e;
  else if (roundMode == 2 && (m & 0x400000u)) ++e;
  if (e >= 0xff) return saturate ? 0xfe : 0xff;
  return (uint8_t)e;
}

// Integer formats keep the low bits of the integer (two's complement wrap-around, as ONNX's
// opset-25 node tests expect: 8 -> int4 -8, -3 -> uint2 1); floats are rounded to nearest even
// first (NaN -> 0, beyond int64 saturated).
static inline ATCK_INLINE uint8_t atck_lp_encode_int_i(int64_t dt, int64_t x) {
  const int bits = dt == ATCK_I4 || dt == ATCK_U4 ? 4 : 2;
  int v = (int)((uint64_t)x & ((1u << bits) - 1));
  if ((dt == ATCK_I4 || dt == ATCK_I2) && (v >> (bits - 1))) v -= 1 << bits;
  return (uint8_t)(int8_t)v;
}

static inline ATCK_INLINE uint8_t atck_lp_encode_int_f(int64_t dt, double x) {
  if (!(x == x)) return 0;
  if (x <= -9223372036854775808.0) return atck_lp_encode_int_i(dt, INT64_MIN);
  if (x >= 9223372036854775807.0) return atck_lp_encode_int_i(dt, INT64_MAX);
  int64_t t = (int64_t)x;  // toward zero
  const double fr = x - (double)t;
  if (fr > 0.5 || (fr == 0.5 && (t & 1))) ++t;
  else if (fr < -0.5 || (fr == -0.5 && (t & 1))) --t;
  return atck_lp_encode_int_i(dt, t);
}
