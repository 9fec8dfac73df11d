// fp16 / bf16 <-> fp32 conversion, round to nearest even, NaN -> quiet NaN. Header-only so
// that the runtime and omrun use it without linking the compiler. (The kernels have their
// own copies in kernels/lib/kernel_abi.h: kernel sources are compiled to bitcode alone.)
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace atc {

// Branch-light round-to-nearest-even (the kernels' atck_f2h): vectorises in bulk loops.
inline uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t a = x & 0x7fffffffu;
  uint32_t r;
  if (a > 0x7f800000u) {
    r = 0x7e00u;
  } else if (a >= 0x477ff000u) {
    r = 0x7c00u;  // overflow (and inf) -> inf
  } else if (a < 0x38800000u) {
    float af;
    std::memcpy(&af, &a, 4);
    af = af + 0.5f;  // aligns the half subnormal unit (2^-24) with float's ulp at 0.5
    uint32_t b;
    std::memcpy(&b, &af, 4);
    r = b - 0x3f000000u;
  } else {
    r = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13;
  }
  return (uint16_t)(sign | r);
}

inline float halfToFloat(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t x;
  if (exp == 0) {
    float f = (float)mant * (1.0f / 16777216.0f);
    std::memcpy(&x, &f, 4);
    x |= sign;
  } else if (exp == 31) {
    x = sign | 0x7f800000u | (mant << 13);
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

inline uint16_t floatToBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
  uint32_t lsb = (x >> 16) & 1u;
  x += 0x7fffu + lsb;
  return (uint16_t)(x >> 16);
}

inline float bf16ToFloat(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

// Bulk conversions (weights at compile time).
inline void floatsToHalf(const float* src, uint16_t* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = floatToHalf(src[i]);
}
inline void floatsToBf16(const float* src, uint16_t* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = floatToBf16(src[i]);
}

}  // namespace atc
