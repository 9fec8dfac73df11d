// Reference arithmetic shared by the int8 kernel tests (kernels_qconv8_test.cpp,
// kernels_qmatmul8_test.cpp).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "ir/dtype.h"

// QuantizeLinear of one float: rint (ties to even), saturated to uint8 / int8, NaN -> zp.
inline int32_t quantRef(float x, float s, int32_t zp, atc::DType qdt) {
  const float lo = qdt == atc::DType::I8 ? -128.0f : 0.0f, hi = qdt == atc::DType::I8 ? 127.0f : 255.0f;
  float r = std::nearbyint(x / s) + (float)zp;  // default rounding: ties to even
  r = std::min(std::max(r, lo), hi);
  return r == r ? (int32_t)r : zp;
}
