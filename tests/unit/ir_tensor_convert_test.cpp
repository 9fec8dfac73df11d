#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "ir/tensor.h"

using namespace atc;

// The bulk weight conversion must round exactly like the scalar reference conversion.
TEST(IrTensorConvert, BulkHalfMatchesScalar) {
  std::mt19937 rng(7);
  std::vector<float> v;
  for (int i = 0; i < 200000; ++i) {
    uint32_t bits = rng();
    float f;
    std::memcpy(&f, &bits, 4);
    if (std::isnan(f)) continue;  // NaN payloads may differ; both stay NaN (checked below)
    v.push_back(f);
  }
  for (float f : {0.0f, -0.0f, 65504.0f, 65520.0f, -65520.0f, 5.96e-8f, 2.98e-8f, 2.99e-8f,
                  6.1e-5f, 1.0f / 0.0f, -1.0f / 0.0f, 1.0009765625f, 1.00048828125f})
    v.push_back(f);
  std::vector<uint16_t> bulk(v.size());
  floatsToHalf(v.data(), bulk.data(), v.size());
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(bulk[i], floatToHalf(v[i])) << "value " << v[i];
  float nan = std::nanf("");
  uint16_t h;
  floatsToHalf(&nan, &h, 1);
  EXPECT_TRUE(std::isnan(halfToFloat(h)));
}

TEST(IrTensorConvert, BulkBf16MatchesScalar) {
  std::vector<float> v = {0.0f, -1.5f, 3.14159f, 1e30f, -1e-30f, 1.00390625f, 1.01171875f};
  std::vector<uint16_t> bulk(v.size());
  floatsToBf16(v.data(), bulk.data(), v.size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(bulk[i], floatToBf16(v[i]));
}

// Shape arithmetic reads crafted float tensors (a Slice's starts as float -inf, found by
// fuzz_onnx): the conversion saturates instead of being undefined behaviour.
TEST(TensorIntAt, FloatsSaturate) {
  Tensor t(TensorType(DType::F32, {5}));
  const float v[5] = {-INFINITY, INFINITY, NAN, 3.9e19f, -2.5f};
  for (int i = 0; i < 5; ++i) t.as<float>()[i] = v[i];
  EXPECT_EQ(t.intAt(0), INT64_MIN);
  EXPECT_EQ(t.intAt(1), INT64_MAX);
  EXPECT_EQ(t.intAt(2), 0);
  EXPECT_EQ(t.intAt(3), INT64_MAX);
  EXPECT_EQ(t.intAt(4), -2);
  Tensor d(TensorType(DType::F64, {1}));
  d.as<double>()[0] = -1e300;
  EXPECT_EQ(d.toInts(), std::vector<int64_t>{INT64_MIN});
}
