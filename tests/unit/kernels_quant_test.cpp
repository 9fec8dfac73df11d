// Quantized ops (ops/quant) through their native kernels (atc::evalNodeNative) against
// references computed here: rounding ties to even, saturation, per-axis and blocked scales,
// exact int32 accumulation beyond float's 2^24, per-channel requantization, bad inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ir/op_registry.h"
#include "ops/native_eval.h"
#include "support/diagnostics.h"

using namespace atc;

namespace {

template <class T>
TensorPtr tensorOf(DType dt, Shape s, const std::vector<T>& v) {
  auto t = std::make_shared<Tensor>(TensorType(dt, s));
  const int64_t n = t->type.numel();
  for (int64_t i = 0; i < n; ++i) {
    const T x = v[(size_t)i % v.size()];
    switch (dt) {
      case DType::F32: t->as<float>()[i] = (float)x; break;
      case DType::I8: t->as<int8_t>()[i] = (int8_t)x; break;
      case DType::U8: t->as<uint8_t>()[i] = (uint8_t)x; break;
      case DType::I16: t->as<int16_t>()[i] = (int16_t)x; break;
      case DType::I32: t->as<int32_t>()[i] = (int32_t)x; break;
      default: ADD_FAILURE() << "tensorOf: dtype"; break;
    }
  }
  return t;
}

TensorPtr randInts(DType dt, Shape s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> u(dt == DType::I8 ? -128 : 0, dt == DType::I8 ? 127 : 255);
  auto t = std::make_shared<Tensor>(TensorType(dt, s));
  for (int64_t i = 0; i < t->type.numel(); ++i) {
    if (dt == DType::I8) t->as<int8_t>()[i] = (int8_t)u(rng);
    else t->as<uint8_t>()[i] = (uint8_t)u(rng);
  }
  return t;
}

int32_t intAt(const Tensor& t, int64_t i) {
  switch (t.type.dtype) {
    case DType::I8: return t.as<int8_t>()[i];
    case DType::U8: return t.as<uint8_t>()[i];
    case DType::I32: return t.as<int32_t>()[i];
    default: return 0;
  }
}

// Runs one node whose inputs are all constants (nullptr: absent) and returns its outputs.
std::vector<TensorPtr> run(const std::string& type, const std::vector<TensorPtr>& ins,
                           const std::map<std::string, AttrValue>& attrs = {}, int nout = 1) {
  Graph g;
  std::vector<Value*> vs;
  for (size_t i = 0; i < ins.size(); ++i)
    vs.push_back(ins[i] ? g.newConstant("in" + std::to_string(i), ins[i]) : nullptr);
  std::vector<Value*> outs;
  for (int i = 0; i < nout; ++i) outs.push_back(g.newValue("y" + std::to_string(i)));
  Node* n = g.addNode(type, "n", vs, outs);
  for (auto& [k, v] : attrs) n->attrs[k] = v;
  inferNode(g, *n);
  return evalNodeNative(g, *n);
}

std::string errorCode(const std::string& type, const std::vector<TensorPtr>& ins,
                      const std::map<std::string, AttrValue>& attrs = {}) {
  try {
    run(type, ins, attrs);
  } catch (const AtcError& e) {
    return e.code();
  }
  return "none";
}

}  // namespace

TEST(QuantizeLinear, RoundsTiesToEvenAndSaturates) {
  // x / 0.5: 2.5 -> 2, 3.5 -> 4, -2.5 -> -2, 1000 -> 127, -1000 -> -128, NaN -> zero point.
  auto x = tensorOf<float>(DType::F32, {7}, {1.25f, 1.75f, -1.25f, 500.0f, -500.0f, NAN, 0.0f});
  auto s = tensorOf<float>(DType::F32, {}, {0.5f});
  auto z = tensorOf<int>(DType::I8, {}, {3});
  auto y = run("QuantizeLinear", {x, s, z})[0];
  ASSERT_EQ(y->type.dtype, DType::I8);
  const int want[] = {5, 7, 1, 127, -128, 3, 3};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(y->as<int8_t>()[i], want[i]) << "element " << i;
  // No zero point: uint8 with zero point 0, negatives saturate to 0.
  auto y2 = run("QuantizeLinear", {x, s})[0];
  ASSERT_EQ(y2->type.dtype, DType::U8);
  EXPECT_EQ(y2->as<uint8_t>()[0], 2);
  EXPECT_EQ(y2->as<uint8_t>()[2], 0);
  EXPECT_EQ(y2->as<uint8_t>()[3], 255);
}

TEST(QuantizeLinear, PerAxisAndBlockedScales) {
  // x [2, 3, 2]; axis 1: one scale per channel; blocked along axis 1 with block 2.
  std::vector<float> xv;
  for (int i = 0; i < 12; ++i) xv.push_back((float)(i * 3));
  auto x = tensorOf<float>(DType::F32, {2, 3, 2}, xv);
  auto s = tensorOf<float>(DType::F32, {3}, {1.0f, 2.0f, 4.0f});
  auto z = tensorOf<int>(DType::U8, {3}, {0, 10, 20});
  auto y = run("QuantizeLinear", {x, s, z})[0];
  for (int i = 0; i < 12; ++i) {
    const int c = (i / 2) % 3;
    const float sc[] = {1, 2, 4};
    const int zp[] = {0, 10, 20};
    const int want = std::min(255, (int)std::nearbyint(xv[i] / sc[c]) + zp[c]);
    EXPECT_EQ(y->as<uint8_t>()[i], want) << "per-axis element " << i;
  }
  // Blocked: scale [2, 2, 2] (axis 1 of length 3 in blocks of 2), its own value per element.
  std::vector<float> bs = {1, 2, 3, 4, 5, 6, 7, 8};
  auto sb = tensorOf<float>(DType::F32, {2, 2, 2}, bs);
  auto yb = run("QuantizeLinear", {x, sb}, {{"axis", int64_t(1)}, {"block_size", int64_t(2)}})[0];
  for (int i = 0; i < 12; ++i) {
    const int o = i / 6, a = (i / 2) % 3, r = i % 2;
    const float sc = bs[(o * 2 + a / 2) * 2 + r];
    EXPECT_EQ(yb->as<uint8_t>()[i], std::min(255, (int)std::nearbyint(xv[i] / sc))) << "blocked element " << i;
  }
}

TEST(DequantizeLinear, PerTensorPerAxisInt32) {
  auto x = tensorOf<int>(DType::I8, {2, 3}, {-128, -1, 0, 1, 2, 127});
  auto s = tensorOf<float>(DType::F32, {3}, {0.5f, 0.25f, 2.0f});
  auto z = tensorOf<int>(DType::I8, {3}, {1, -1, 0});
  auto y = run("DequantizeLinear", {x, s, z})[0];
  ASSERT_EQ(y->type.dtype, DType::F32);
  const float want[] = {-64.5f, 0.0f, 0.0f, 0.0f, 0.75f, 254.0f};
  for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(y->as<float>()[i], want[i]) << i;
  // int32 (a bias), per tensor, no zero point.
  auto b = tensorOf<int>(DType::I32, {3}, {-70000, 0, 123456});
  auto yb = run("DequantizeLinear", {b, tensorOf<float>(DType::F32, {}, {0.001f})})[0];
  EXPECT_FLOAT_EQ(yb->as<float>()[0], -70000.0f * 0.001f);
  EXPECT_FLOAT_EQ(yb->as<float>()[2], 123456.0f * 0.001f);
}

TEST(DynamicQuantizeLinear, MatchesOnnxFormula) {
  std::vector<float> xv = {0.0f, 2.0f, -3.0f, -2.5f, 1.34f, 0.5f, 1000.0f, -0.1f};
  auto r = run("DynamicQuantizeLinear", {tensorOf<float>(DType::F32, {8}, xv)}, {}, 3);
  const float mn = -3.0f, mx = 1000.0f, scale = (mx - mn) / 255.0f;
  const int zp = (int)std::nearbyint(-mn / scale);
  EXPECT_FLOAT_EQ(r[1]->as<float>()[0], scale);
  EXPECT_EQ(r[2]->as<uint8_t>()[0], zp);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(r[0]->as<uint8_t>()[i], std::clamp((int)std::nearbyint(xv[i] / scale) + zp, 0, 255)) << i;
  // All zeros: scale 0, every output the zero point 0, no NaN.
  auto z = run("DynamicQuantizeLinear", {tensorOf<float>(DType::F32, {4}, {0.0f})}, {}, 3);
  EXPECT_EQ(z[1]->as<float>()[0], 0.0f);
  EXPECT_EQ(z[0]->as<uint8_t>()[3], 0);
}

TEST(MatMulInteger, ExactBeyondFloatPrecisionWithPerRowAndColumnZeroPoints) {
  // K = 2304 with uint8 x int8: sums reach ~7.5e7 > 2^24, where float accumulation is inexact.
  const int64_t B = 2, M = 3, K = 2304, N = 5;
  auto a = randInts(DType::U8, {B, M, K}, 1);
  auto b = randInts(DType::I8, {K, N}, 2);  // broadcast over the batch
  auto az = tensorOf<int>(DType::U8, {M}, {0, 128, 255});
  auto bz = tensorOf<int>(DType::I8, {N}, {0, -128, 127, 5, -5});
  auto y = run("MatMulInteger", {a, b, az, bz})[0];
  ASSERT_EQ(y->type.shape, (Shape{B, M, N}));
  ASSERT_EQ(y->type.dtype, DType::I32);
  for (int64_t bb = 0; bb < B; ++bb)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        int64_t acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc += (int64_t)(intAt(*a, (bb * M + m) * K + k) - intAt(*az, m)) * (intAt(*b, k * N + n) - intAt(*bz, n));
        EXPECT_EQ(y->as<int32_t>()[(bb * M + m) * N + n], (int32_t)acc) << bb << "," << m << "," << n;
      }
}

TEST(QLinearMatMul, RequantizesPerColumn) {
  const int64_t M = 4, K = 7, N = 3;
  auto a = randInts(DType::U8, {M, K}, 3);
  auto b = randInts(DType::U8, {K, N}, 4);
  auto as = tensorOf<float>(DType::F32, {}, {0.02f}), az = tensorOf<int>(DType::U8, {}, {120});
  auto bs = tensorOf<float>(DType::F32, {N}, {0.01f, 0.03f, 0.005f}), bz = tensorOf<int>(DType::U8, {N}, {130, 0, 255});
  auto ys = tensorOf<float>(DType::F32, {}, {0.9f}), yz = tensorOf<int>(DType::I8, {}, {-3});
  auto y = run("QLinearMatMul", {a, as, az, b, bs, bz, ys, yz})[0];
  ASSERT_EQ(y->type.dtype, DType::I8);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      int32_t acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += (intAt(*a, m * K + k) - 120) * (intAt(*b, k * N + n) - intAt(*bz, n));
      const float mult = (0.02f * bs->as<float>()[n]) / 0.9f;
      const int want = std::clamp((int)std::nearbyint((float)acc * mult) - 3, -128, 127);
      EXPECT_EQ(y->as<int8_t>()[m * N + n], want) << m << "," << n;
    }
}

namespace {

// Naive grouped 2-D conv of (x - xz) * (w - wz[oc]) in int64.
int64_t convRef(const Tensor& x, const Tensor& w, int xz, const std::vector<int>& wz, int64_t n, int64_t oc,
                int64_t oh, int64_t ow, int64_t G, int64_t s, int64_t p, int64_t d) {
  const int64_t C = x.type.shape[1], H = x.type.shape[2], W = x.type.shape[3];
  const int64_t OC = w.type.shape[0], cg = w.type.shape[1], KH = w.type.shape[2], KW = w.type.shape[3];
  const int64_t g = oc / (OC / G);
  int64_t acc = 0;
  for (int64_t ic = 0; ic < cg; ++ic)
    for (int64_t kh = 0; kh < KH; ++kh)
      for (int64_t kw = 0; kw < KW; ++kw) {
        const int64_t ih = oh * s - p + kh * d, iw = ow * s - p + kw * d;
        if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
        const int64_t xv = intAt(x, ((n * C + g * cg + ic) * H + ih) * W + iw) - xz;
        acc += xv * (intAt(w, ((oc * cg + ic) * KH + kh) * KW + kw) - wz[(size_t)oc % wz.size()]);
      }
  return acc;
}

}  // namespace

TEST(QLinearConv, GroupsStridesPadsPerChannelAndBias) {
  const int64_t N = 2, C = 4, H = 9, W = 11, OC = 6, G = 2, s = 2, p = 1, d = 2;
  auto x = randInts(DType::U8, {N, C, H, W}, 5);
  auto w = randInts(DType::I8, {OC, C / G, 3, 3}, 6);
  std::vector<float> wsv = {0.01f, 0.02f, 0.015f, 0.03f, 0.005f, 0.025f};
  std::vector<int> wzv = {0, 1, -1, 2, 0, -3};
  auto bias = tensorOf<int>(DType::I32, {OC}, {100, -200, 0, 5000, -7, 33});
  std::vector<TensorPtr> ins = {x,
                                tensorOf<float>(DType::F32, {}, {0.05f}),
                                tensorOf<int>(DType::U8, {}, {128}),
                                w,
                                tensorOf<float>(DType::F32, {OC}, wsv),
                                tensorOf<int>(DType::I8, {OC}, wzv),
                                tensorOf<float>(DType::F32, {}, {0.7f}),
                                tensorOf<int>(DType::U8, {}, {100}),
                                bias};
  std::map<std::string, AttrValue> at = {{"group", G},
                                     {"strides", std::vector<int64_t>{s, s}},
                                     {"pads", std::vector<int64_t>{p, p, p, p}},
                                     {"dilations", std::vector<int64_t>{d, d}}};
  auto y = run("QLinearConv", ins, at)[0];
  const int64_t OH = (H + 2 * p - 2 * d - 1) / s + 1, OW = (W + 2 * p - 2 * d - 1) / s + 1;
  ASSERT_EQ(y->type.shape, (Shape{N, OC, OH, OW}));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oc = 0; oc < OC; ++oc)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          const int64_t acc = convRef(*x, *w, 128, wzv, n, oc, oh, ow, G, s, p, d) + bias->as<int32_t>()[oc];
          const float mult = (0.05f * wsv[oc]) / 0.7f;
          const int want = std::clamp((int)std::nearbyint((float)acc * mult) + 100, 0, 255);
          ASSERT_EQ(y->as<uint8_t>()[((n * OC + oc) * OH + oh) * OW + ow], want) << n << "," << oc << "," << oh << "," << ow;
        }
  // ConvInteger on the same data: the exact int32 sums (no bias).
  auto yi = run("ConvInteger", {x, w, tensorOf<int>(DType::U8, {}, {128}), tensorOf<int>(DType::I8, {OC}, wzv)}, at)[0];
  ASSERT_EQ(yi->type.dtype, DType::I32);
  for (int64_t i = 0; i < yi->type.numel(); ++i) {
    const int64_t ow = i % OW, oh = (i / OW) % OH, oc = (i / (OW * OH)) % OC, n = i / (OW * OH * OC);
    ASSERT_EQ(yi->as<int32_t>()[i], convRef(*x, *w, 128, wzv, n, oc, oh, ow, G, s, p, d)) << i;
  }
}

TEST(QuantOps, BadInputsAreClearErrors) {
  auto xf = tensorOf<float>(DType::F32, {2, 3}, {1.0f});
  auto s1 = tensorOf<float>(DType::F32, {}, {1.0f});
  // Zero point of another type than the quantized operand.
  EXPECT_EQ(errorCode("DequantizeLinear", {tensorOf<int>(DType::I8, {3}, {1}), s1, tensorOf<int>(DType::U8, {}, {0})}),
            "E19999");
  // A scale with neither 1 value nor one per axis element.
  EXPECT_EQ(errorCode("QuantizeLinear", {xf, tensorOf<float>(DType::F32, {2}, {1.0f})}), "E19999");
  // An integer scale.
  EXPECT_EQ(errorCode("QuantizeLinear", {xf, tensorOf<int>(DType::I32, {}, {1})}), "E19999");
  // Blocked scale of the wrong shape.
  EXPECT_EQ(errorCode("QuantizeLinear", {xf, tensorOf<float>(DType::F32, {2, 3}, {1.0f})},
                      {{"axis", int64_t(1)}, {"block_size", int64_t(2)}}),
            "E19999");
  // float operands to an integer product.
  EXPECT_EQ(errorCode("MatMulInteger", {xf, tensorOf<float>(DType::F32, {3, 2}, {1.0f})}), "E19999");
  // Per-column zero point of the wrong length.
  EXPECT_EQ(errorCode("MatMulInteger", {randInts(DType::U8, {2, 3}, 1), randInts(DType::U8, {3, 4}, 2), nullptr,
                                        tensorOf<int>(DType::U8, {3}, {0})}),
            "E19999");
  // Weights whose channel count does not match the groups.
  EXPECT_EQ(errorCode("ConvInteger", {randInts(DType::U8, {1, 4, 5, 5}, 1), randInts(DType::I8, {2, 3, 3, 3}, 2)}),
            "E19999");
}

// QuantizedAdd (kernel qadd8, made from DequantizeLinear x2 -> Add [-> Relu] -> QuantizeLinear):
// each output equals the Q/DQ chain's float32 arithmetic, each product rounded on its own (no
// FMA), over uint8 / int8 operands and outputs, saturation both ways, the Relu, and more
// elements than one task holds.
TEST(QuantizedAdd, EqualsTheFloatChainAndRefusesBadOperands) {
  struct Case {
    DType a, b, y;
    float as, bs, ys;
    int az, bz, yz;
    bool relu;
  };
  const Case cases[] = {{DType::U8, DType::U8, DType::U8, 0.05f, 0.07f, 0.045f, 3, 200, 7, true},
                        {DType::U8, DType::I8, DType::I8, 0.013f, 0.3f, 0.02f, 128, -5, 10, false},
                        {DType::I8, DType::I8, DType::U8, 1.0f / 3, 0.1f, 0.011f, 0, 0, 0, false}};
  for (const Case& c : cases) {
    const Shape shape = {2, 3, 77, 61};  // 28,182 elements: two tasks of 16,384
    TensorPtr A = randInts(c.a, shape, 11), B = randInts(c.b, shape, 12);
    std::map<std::string, AttrValue> attrs;
    if (c.relu) attrs["activation"] = std::string("Relu");
    auto y = run("QuantizedAdd",
                 {A, tensorOf<float>(DType::F32, {}, {c.as}), tensorOf<int>(c.a, {}, {c.az}), B,
                  tensorOf<float>(DType::F32, {}, {c.bs}), tensorOf<int>(c.b, {}, {c.bz}),
                  tensorOf<float>(DType::F32, {}, {c.ys}), tensorOf<int>(c.y, {}, {c.yz})},
                 attrs)
                 .at(0);
    ASSERT_EQ(y->type.dtype, c.y);
    ASSERT_EQ(y->type.shape, shape);
    int saturated = 0;
    for (int64_t i = 0; i < y->type.numel(); ++i) {
      volatile float fa = ((float)intAt(*A, i) - (float)c.az) * c.as;  // rounded as DequantizeLinear stores it
      volatile float fb = ((float)intAt(*B, i) - (float)c.bz) * c.bs;
      float s = fa + fb;
      if (c.relu) s = std::max(s, 0.0f);
      const float lo = c.y == DType::I8 ? -128.0f : 0.0f, hi = c.y == DType::I8 ? 127.0f : 255.0f;
      const float r = std::min(std::max(std::nearbyint(s / c.ys) + (float)c.yz, lo), hi);
      saturated += r == lo || r == hi;
      ASSERT_EQ(intAt(*y, i), (int32_t)r) << "element " << i;
    }
    EXPECT_GT(saturated, 0);
  }
  auto u = randInts(DType::U8, {2, 3}, 1);
  auto s = tensorOf<float>(DType::F32, {}, {0.1f});
  auto z = tensorOf<int>(DType::U8, {}, {0});
  EXPECT_EQ(errorCode("QuantizedAdd", {u, s, z, randInts(DType::U8, {3, 2}, 2), s, z, s, z}), "E19999");  // shapes
  EXPECT_EQ(errorCode("QuantizedAdd", {tensorOf<float>(DType::F32, {2, 3}, {1.0f}), s, z, u, s, z, s, z}), "E19999");
  EXPECT_EQ(errorCode("QuantizedAdd", {u, s, tensorOf<int>(DType::I8, {}, {0}), u, s, z, s, z}), "E19999");
  EXPECT_EQ(errorCode("QuantizedAdd", {u, z, z, u, s, z, s, z}), "E19999");  // a uint8 scale
  EXPECT_EQ(errorCode("QuantizedAdd", {u, s, z, u, s, z, s, z}, {{"activation", std::string("Sigmoid")}}), "E19999");
}

// QuantizedAvgPool (kernel avgpool_q8, from DequantizeLinear -> AveragePool / GlobalAveragePool
// -> QuantizeLinear): per output the window's taps inside the input summed exactly, times the
// scale, divided by AveragePool's count (with and without count_include_pad, ceil_mode windows
// past the end), requantized to another scale and type; a global window; 1-D; bad operands.
TEST(QuantizedAvgPool, MatchesExactSumsAndAveragePoolCounts) {
  struct Case {
    DType x, y;
    Shape xs;
    std::vector<int64_t> k, st, pads;
    int64_t cip, ceil, global;
  };
  const Case cases[] = {{DType::U8, DType::U8, {1, 3, 11, 12}, {3, 3}, {2, 2}, {1, 1, 1, 1}, 0, 0, 0},
                        {DType::U8, DType::I8, {2, 2, 9, 10}, {3, 2}, {2, 3}, {1, 0, 1, 1}, 1, 1, 0},
                        {DType::I8, DType::U8, {1, 4, 7, 7}, {}, {}, {}, 0, 0, 1},
                        {DType::I8, DType::I8, {1, 2, 19}, {4}, {3}, {2, 1}, 0, 1, 0}};
  for (const Case& c : cases) {
    const float xs = 0.037f, ys = 0.021f;
    const int xz = c.x == DType::I8 ? -3 : 130, yz = c.y == DType::I8 ? 4 : 120;
    TensorPtr X = randInts(c.x, c.xs, 21);
    std::map<std::string, AttrValue> attrs;
    if (c.global) {
      attrs["global"] = int64_t(1);
    } else {
      attrs["kernel_shape"] = c.k;
      attrs["strides"] = c.st;
      attrs["pads"] = c.pads;
      attrs["count_include_pad"] = c.cip;
      attrs["ceil_mode"] = c.ceil;
    }
    auto y = run("QuantizedAvgPool",
                 {X, tensorOf<float>(DType::F32, {}, {xs}), tensorOf<int>(c.x, {}, {xz}),
                  tensorOf<float>(DType::F32, {}, {ys}), tensorOf<int>(c.y, {}, {yz})},
                 attrs)
                 .at(0);
    ASSERT_EQ(y->type.dtype, c.y);
    const int nd = (int)c.xs.size() - 2;
    const std::vector<int64_t> k = c.global ? std::vector<int64_t>(c.xs.begin() + 2, c.xs.end()) : c.k;
    const int64_t H = nd == 2 ? c.xs[2] : 1, W = c.xs.back(), OH = nd == 2 ? y->type.shape[2] : 1;
    const int64_t OW = y->type.shape.back(), KH = nd == 2 ? k[0] : 1, KW = k.back();
    const int64_t SH = c.global || nd == 1 ? 1 : c.st[0], SW = c.global ? 1 : c.st.back();
    const int64_t PH = c.global || nd == 1 ? 0 : c.pads[0], PW = c.global ? 0 : c.pads[nd - 1];
    const int64_t EH = c.global || nd == 1 ? 0 : c.pads[2], EW = c.global ? 0 : c.pads[2 * nd - 1];
    auto taps = [&](int64_t s, int64_t K, int64_t lo, int64_t hi) {
      int64_t n = 0;
      for (int64_t i = 0; i < K; ++i) n += s + i >= lo && s + i < hi;
      return n;
    };
    for (int64_t pl = 0; pl < c.xs[0] * c.xs[1]; ++pl)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          const int64_t h0 = oh * SH - PH, w0 = ow * SW - PW;
          int64_t sum = 0;
          for (int64_t a = 0; a < KH; ++a)
            for (int64_t b = 0; b < KW; ++b)
              if (h0 + a >= 0 && h0 + a < H && w0 + b >= 0 && w0 + b < W)
                sum += intAt(*X, pl * H * W + (h0 + a) * W + w0 + b) - xz;
          const int64_t cnt = c.cip ? taps(h0, KH, -PH, H + EH) * taps(w0, KW, -PW, W + EW)
                                    : taps(h0, KH, 0, H) * taps(w0, KW, 0, W);
          const float v = cnt > 0 ? (float)sum * xs / (float)cnt : 0.0f;
          const float lo = c.y == DType::I8 ? -128.0f : 0.0f, hi = c.y == DType::I8 ? 127.0f : 255.0f;
          const float r = std::min(std::max(std::nearbyint(v / ys) + (float)yz, lo), hi);
          ASSERT_EQ(intAt(*y, (pl * OH + oh) * OW + ow), (int32_t)r) << "plane " << pl << " output " << oh << "," << ow;
        }
  }
  auto u = randInts(DType::U8, {1, 2, 4, 4}, 1);
  auto s = tensorOf<float>(DType::F32, {}, {0.1f});
  auto z = tensorOf<int>(DType::U8, {}, {0});
  std::map<std::string, AttrValue> g = {{"global", int64_t(1)}};
  auto f = tensorOf<float>(DType::F32, {1, 2, 4, 4}, {1.0f});
  EXPECT_EQ(errorCode("QuantizedAvgPool", {f, s, z, s, z}, g), "E19999");
  EXPECT_EQ(errorCode("QuantizedAvgPool", {u, s, tensorOf<int>(DType::I8, {}, {0}), s, z}, g), "E19999");
  EXPECT_EQ(errorCode("QuantizedAvgPool", {u, s, z, s, z}, {{"kernel_shape", std::vector<int64_t>{2}}}), "E19999");
  EXPECT_EQ(errorCode("QuantizedAvgPool", {randInts(DType::U8, {4, 4}, 2), s, z, s, z}, g), "E19999");
}
