// QuantizedConv (kernel qconv8) through the native kernel library against a reference computed
// here: QuantizeLinear of a float input (rint ties to even, saturation, NaN -> zero point), or
// a uint8 / int8 input as is; exact int32 sums; (sum) * mult + bias; ReLU. Both accumulation
// paths: portable int32 code, and vpdpbusd when the host has AVX512-VNNI (else the kernel
// falls back to the portable code, which the test then checks twice).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ir/op_registry.h"
#include "ops/native_eval.h"
#include "support/diagnostics.h"
#include "tests/unit/quant_kernel_test_util.h"

using namespace atc;

namespace {

struct Q8Case {
  const char* name;
  DType xdt;            // F32 (quantized in the kernel), U8 or I8
  DType qdt;            // dtype of the zero point (the quantized x)
  int64_t N, C, H, W, OC, KH, KW;
  std::vector<int64_t> strides, pads, dil;
  bool relu, bias;
  bool clip = false;  // activation Clip to [-0.7, 0.9] instead of ReLU
  bool outq = false;  // output stage: QuantizeLinear + DequantizeLinear (scale 0.011, zero point 3, int8)
  bool resid = false;  // residual input R added after the activation, then ReLU (post_activation)
  bool dw = false;     // depthwise: group == C == OC, weights [C, 1, KH, KW] (kernel qdwconv8)
  bool outu8 = false;  // output quantized to uint8 (out_quantize; scale 0.011, zero point 3)
  DType rdt = DType::F32;  // R quantized (uint8 / int8 bytes read as (r - 9) * 0.031): a staged block output
};

struct Built {
  Graph g;
  Node* n = nullptr;
  std::vector<float> ref;
};

void build(const Q8Case& c, Built& b, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uf(-3.0f, 3.0f);
  std::uniform_int_distribution<int> u8(0, 255), s8(-128, 127);
  const float xs = 0.023f;
  const int32_t zp = c.qdt == DType::I8 ? -7 : 131;
  auto x = std::make_shared<Tensor>(TensorType(c.xdt, {c.N, c.C, c.H, c.W}));
  std::vector<int32_t> xq((size_t)x->type.numel());
  for (int64_t i = 0; i < x->type.numel(); ++i) {
    if (c.xdt == DType::F32) {
      float v = uf(rng);
      if (i % 97 == 5) v = NAN;
      if (i % 89 == 3) v = (i % 2 ? 1e30f : -INFINITY);
      if (i % 83 == 1) v = xs * (std::floor(v / xs) + 0.5f);  // a tie
      x->as<float>()[i] = v;
      xq[i] = quantRef(v, xs, zp, c.qdt);
    } else if (c.xdt == DType::U8) {
      x->as<uint8_t>()[i] = (uint8_t)u8(rng);
      xq[i] = x->as<uint8_t>()[i];
    } else {
      x->as<int8_t>()[i] = (int8_t)s8(rng);
      xq[i] = x->as<int8_t>()[i];
    }
  }
  const int64_t CG = c.dw ? 1 : c.C;  // input channels per group
  auto w = std::make_shared<Tensor>(TensorType(DType::I8, {c.OC, CG, c.KH, c.KW}));
  for (int64_t i = 0; i < w->type.numel(); ++i) w->as<int8_t>()[i] = (int8_t)s8(rng);
  auto mult = std::make_shared<Tensor>(TensorType(DType::F32, {c.OC}));
  auto bias = std::make_shared<Tensor>(TensorType(DType::F32, {c.OC}));
  for (int64_t o = 0; o < c.OC; ++o) {
    mult->as<float>()[o] = 1e-4f * (1 + o % 5);
    bias->as<float>()[o] = c.bias ? uf(rng) : 0.0f;
  }
  auto xsT = std::make_shared<Tensor>(TensorType(DType::F32, {}));
  xsT->as<float>()[0] = xs;
  auto zpT = std::make_shared<Tensor>(TensorType(c.qdt, {}));
  if (c.qdt == DType::I8) zpT->as<int8_t>()[0] = (int8_t)zp;
  else zpT->as<uint8_t>()[0] = (uint8_t)zp;
  std::vector<Value*> ins = {b.g.newConstant("x", x), b.g.newConstant("xs", xsT), b.g.newConstant("zp", zpT),
                             b.g.newConstant("w", w), b.g.newConstant("mult", mult)};
  ins.push_back(c.bias ? b.g.newConstant("b", bias) : nullptr);
  std::vector<float> res;
  if (c.resid) {
    const int64_t OH = (c.H + c.pads[0] + c.pads[2] - c.dil[0] * (c.KH - 1) - 1) / c.strides[0] + 1;
    const int64_t OW = (c.W + c.pads[1] + c.pads[3] - c.dil[1] * (c.KW - 1) - 1) / c.strides[1] + 1;
    auto r = std::make_shared<Tensor>(TensorType(c.rdt, {c.N, c.OC, OH, OW}));
    for (int64_t i = 0; i < r->type.numel(); ++i) {
      if (c.rdt == DType::F32) r->as<float>()[i] = uf(rng);
      else if (c.rdt == DType::U8) r->as<uint8_t>()[i] = (uint8_t)u8(rng);
      else r->as<int8_t>()[i] = (int8_t)s8(rng);
      const int32_t q = c.rdt == DType::U8 ? r->as<uint8_t>()[i] : c.rdt == DType::I8 ? r->as<int8_t>()[i] : 0;
      res.push_back(c.rdt == DType::F32 ? r->as<float>()[i] : (float)(q - 9) * 0.031f);
    }
    ins.push_back(b.g.newConstant("r", r));
  }
  if (!c.resid && !c.bias) ins.pop_back();
  b.n = b.g.addNode("QuantizedConv", "qc", ins, {b.g.newValue("y")});
  if (c.resid) b.n->attrs["post_activation"] = std::string("Relu");
  if (c.rdt != DType::F32) {
    b.n->attrs["r_scale"] = 0.031;
    b.n->attrs["r_zero_point"] = (int64_t)9;
  }
  b.n->attrs["strides"] = c.strides;
  b.n->attrs["pads"] = c.pads;
  b.n->attrs["dilations"] = c.dil;
  if (c.dw) b.n->attrs["group"] = c.C;
  if (c.relu) b.n->attrs["activation"] = std::string("Relu");
  if (c.clip) {
    b.n->attrs["activation"] = std::string("Clip");
    b.n->attrs["clip_min"] = -0.7;
    b.n->attrs["clip_max"] = 0.9;
  }
  if (c.outq || c.outu8) {
    b.n->attrs["out_scale"] = 0.011;
    b.n->attrs["out_zero_point"] = (int64_t)3;
    b.n->attrs["out_dtype"] = std::string(c.outu8 ? "uint8" : "int8");
  }
  if (c.outu8) b.n->attrs["out_quantize"] = (int64_t)1;
  inferNode(b.g, *b.n);
  const Shape& ys = b.n->outputs[0]->type.shape;
  const int64_t OH = ys[2], OW = ys[3];
  b.ref.assign((size_t)(c.N * c.OC * OH * OW), 0.0f);
  for (int64_t n = 0; n < c.N; ++n)
    for (int64_t o = 0; o < c.OC; ++o)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          int64_t acc = 0;
          for (int64_t ci = c.dw ? o : 0; ci < (c.dw ? o + 1 : c.C); ++ci)
            for (int64_t kh = 0; kh < c.KH; ++kh)
              for (int64_t kw = 0; kw < c.KW; ++kw) {
                const int64_t ih = oh * c.strides[0] - c.pads[0] + kh * c.dil[0];
                const int64_t iw = ow * c.strides[1] - c.pads[1] + kw * c.dil[1];
                if (ih < 0 || ih >= c.H || iw < 0 || iw >= c.W) continue;
                acc += (int64_t)(xq[((n * c.C + ci) * c.H + ih) * c.W + iw] - zp) *
                       w->as<int8_t>()[((o * CG + (c.dw ? 0 : ci)) * c.KH + kh) * c.KW + kw];
              }
          float y = (float)acc * mult->as<float>()[o] + bias->as<float>()[o];
          if (c.relu) y = std::max(y, 0.0f);
          if (c.clip) y = std::min(std::max(y, -0.7f), 0.9f);
          if (c.resid) y = std::max(y + res[((n * c.OC + o) * OH + oh) * OW + ow], 0.0f);
          if (c.outq) y = (float)(quantRef(y, 0.011f, 3, DType::I8) - 3) * 0.011f;
          if (c.outu8) y = (float)quantRef(y, 0.011f, 3, DType::U8);  // the byte
          b.ref[((n * c.OC + o) * OH + oh) * OW + ow] = y;
        }
}

// path: the int8 accumulation (0 portable, 1 512-bit vpdpbusd, 2 256-bit vpdpbusd, 4 AVX2
// vpmaddwd over widened weights, 5 portable over widened weights).
const char* pathName(int path) {
  static const char* names[] = {" (portable)", " (vnni512)", " (vnni256)", " (amx)", " (avx2)", " (wide portable)"};
  return names[path];
}

void check(const Q8Case& c, int path) {
  Built b;
  build(c, b, 1234);
  std::vector<TensorPtr> out = evalNodeNative(b.g, *b.n, 6, path);
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0]->type.numel(), (int64_t)b.ref.size());
  int bad = 0;
  ASSERT_EQ(out[0]->type.dtype, c.outu8 ? DType::U8 : DType::F32);
  for (size_t i = 0; i < b.ref.size() && bad < 5; ++i) {
    const float got = c.outu8 ? (float)out[0]->as<uint8_t>()[i] : out[0]->as<float>()[i], want = b.ref[i];
    if (!(std::fabs(got - want) <= 1e-5f * (1.0f + std::fabs(want)))) {
      ADD_FAILURE() << c.name << pathName(path) << ": element " << i << " got " << got
                    << ", want " << want;
      ++bad;
    }
  }
}

const std::vector<Q8Case>& cases() {
  static const std::vector<Q8Case> cs = {
      // name, xdt, qdt, N, C, H, W, OC, KH, KW, strides, pads, dil, relu, bias
      {"3x3 s1 float u8, ragged channels", DType::F32, DType::U8, 1, 5, 9, 11, 20, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, true, true},
      {"3x3 s1 float wide rows", DType::F32, DType::U8, 2, 8, 6, 40, 16, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, false, true},
      {"3x3 s2 float int8", DType::F32, DType::I8, 1, 8, 15, 40, 16, 3, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}, true, false},
      {"1x1 s2 uint8 input", DType::U8, DType::U8, 1, 12, 14, 14, 33, 1, 1, {2, 2}, {0, 0, 0, 0}, {1, 1}, false, true},
      {"1x1 s1 int8 input", DType::I8, DType::I8, 1, 16, 7, 7, 40, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}, false, true},
      {"7x7 s2 stem", DType::F32, DType::U8, 1, 3, 20, 37, 16, 7, 7, {2, 2}, {3, 3, 3, 3}, {1, 1}, true, true},
      {"asymmetric pads, dilation 2", DType::F32, DType::U8, 1, 6, 10, 19, 18, 3, 3, {1, 1}, {1, 0, 2, 1}, {2, 2}, false, true},
      {"stride 3 (scalar phases)", DType::F32, DType::U8, 1, 4, 11, 23, 16, 3, 3, {3, 3}, {1, 1, 1, 1}, {1, 1}, false, true},
      {"stride (2,1)", DType::F32, DType::U8, 1, 4, 9, 20, 16, 3, 3, {2, 1}, {1, 1, 1, 1}, {1, 1}, true, true},
      {"1x1 map, many channels", DType::F32, DType::U8, 1, 64, 1, 1, 24, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}, false, true},
      {"Clip, then Q/DQ output stage", DType::F32, DType::U8, 1, 8, 12, 21, 16, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}, false, true, true, true},
      {"Q/DQ output stage alone", DType::U8, DType::U8, 1, 5, 7, 18, 17, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, false, true, false, true},
      // Groups of 2 and 3 tiles (the 8 x 32 / 8 x 48 vpdpbusd tiles), ragged panel halves.
      {"3x3 s1 wide map, 20 channels", DType::F32, DType::U8, 1, 8, 9, 45, 20, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, true, true},
      {"3x3 s2 rows of 49, 5 channels", DType::F32, DType::U8, 1, 4, 6, 98, 5, 3, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}, false, true, false, true},
      {"1x1 s2 rows of 33, 40 channels", DType::U8, DType::U8, 1, 12, 4, 66, 40, 1, 1, {2, 2}, {0, 0, 0, 0}, {1, 1}, false, true, true},
      // Strided convs tile flat over the band's row and column phases: a 14x14 -> 7x7 map with 36
      // k-quads (grouped tiles across output rows), dilation 3 at stride 2 (taps in both phases),
      // rows of 32 outputs (tiles per row, q8_flat), strides (3, 2) with a 5x3 window, two images.
      {"3x3 s2 14x14 -> 7x7, 36 k-quads", DType::F32, DType::U8, 1, 16, 14, 14, 40, 3, 3, {2, 2}, {1, 1, 1, 1},
       {1, 1}, true, true},
      {"3x3 s2 dilation 3", DType::U8, DType::U8, 1, 8, 17, 21, 16, 3, 3, {2, 2}, {2, 3, 1, 2}, {3, 3}, false, true},
      {"3x3 s2 rows of 32 (tiles per row)", DType::F32, DType::U8, 1, 16, 9, 64, 24, 3, 3, {2, 2}, {1, 1, 1, 1},
       {1, 1}, true, true},
      {"5x3 strides (3, 2), two images", DType::F32, DType::I8, 2, 40, 13, 12, 24, 5, 3, {3, 2}, {2, 1, 2, 1},
       {1, 1}, true, true},
      // A residual R and the ReLU after it (a ResNet block's Add and Relu in the epilogue):
      // flat tiles ending mid-row, grouped tiles, strided rows, with and without an output stage.
      {"residual, 3x3 s1 7x7 map", DType::F32, DType::U8, 1, 8, 7, 7, 24, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, false, true, false, false, true},
      {"residual, wide map, no bias", DType::F32, DType::U8, 1, 8, 5, 50, 16, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, true, false, false, true, true},
      {"residual, 1x1 s2", DType::U8, DType::U8, 1, 12, 8, 70, 20, 1, 1, {2, 2}, {0, 0, 0, 0}, {1, 1}, false, true, false, false, true},
      // The residual quantized (a staged block output written as uint8 / int8 for all its readers).
      {"uint8 residual, 3x3 s1 7x7 map", DType::F32, DType::U8, 1, 8, 7, 7, 24, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1},
       false, true, false, false, true, false, false, DType::U8},
      {"int8 residual, wide map, uint8 out", DType::U8, DType::U8, 1, 8, 5, 50, 16, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1},
       true, true, false, false, true, false, true, DType::I8},
      {"uint8 residual, 1x1 s2, Q/DQ out", DType::U8, DType::U8, 1, 12, 8, 70, 20, 1, 1, {2, 2}, {0, 0, 0, 0}, {1, 1},
       false, true, false, true, true, false, false, DType::U8},
      // Output quantized to uint8 (the bytes an int8 reader takes; rows ending mid-tile).
      {"uint8 output, 3x3 s1", DType::F32, DType::U8, 1, 8, 7, 23, 20, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, true, true, false, false, false, false, true},
      {"uint8 output, 1x1 s2 int8 input", DType::I8, DType::I8, 1, 12, 8, 38, 40, 1, 1, {2, 2}, {0, 0, 0, 0}, {1, 1}, false, true, false, false, false, false, true},
      // Depthwise (qdwconv8): strides 1 and 2, bands of one or several rows, rows narrower than a
      // tile (flat tiles across rows), a plane of fewer than 16 outputs, 5x5 and 7x7 kernels
      // (several tap quads), dilation, asymmetric pads, stride 3 (scalar tap words), int8 and
      // uint8 inputs, every output stage.
      {"dw 3x3 s1 float u8", DType::F32, DType::U8, 2, 19, 11, 37, 19, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, false, true, true, false, false, true},
      {"dw 3x3 s2 uint8 in, uint8 out", DType::U8, DType::U8, 1, 24, 29, 29, 24, 3, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}, false, true, true, false, false, true, true},
      {"dw 3x3 s1 7x7 map, int8 in, Q/DQ out", DType::I8, DType::I8, 1, 70, 7, 7, 70, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, true, true, false, true, false, true},
      {"dw 3x3 s1 3x4 map", DType::U8, DType::U8, 1, 5, 3, 4, 5, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, false, false, false, false, false, true},
      {"dw 5x5 s2 wide rows", DType::F32, DType::U8, 1, 6, 20, 150, 6, 5, 5, {2, 2}, {2, 2, 2, 2}, {1, 1}, true, true, false, false, false, true, true},
      {"dw 7x7 s1, dilation 2, asymmetric pads", DType::U8, DType::U8, 1, 4, 19, 26, 4, 7, 7, {1, 1}, {3, 1, 5, 2}, {2, 2}, false, true, false, false, false, true},
      {"dw 3x3 stride (2, 3)", DType::F32, DType::I8, 1, 4, 17, 40, 4, 3, 3, {2, 3}, {1, 1, 1, 1}, {1, 1}, false, true, false, false, false, true},
      {"dw 3x3 s1 tall map (several bands)", DType::U8, DType::U8, 1, 3, 300, 40, 3, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, false, true, false, false, false, true, true},
  };
  return cs;
}

TEST(KernelQConv8, PortableMatchesReference) {
  for (const Q8Case& c : cases()) check(c, 0);
}

TEST(KernelQConv8, VnniMatchesReference) {
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("avx512vnni")) GTEST_SKIP() << "the host has no AVX512-VNNI";
#else
  GTEST_SKIP() << "not x86-64";
#endif
  for (const Q8Case& c : cases()) check(c, 1);
}

// Weights widened to int16 pairs (int8_path avx2): vpmaddwd where the host has AVX2, and the
// portable code over the same layout (path 5). Depthwise convs (qdwconv8) keep their tap-word
// weights and widen each word in the tiles (path 4), or run the portable code (path 5).
TEST(KernelQConv8, WideMatchesReference) {
  for (const Q8Case& c : cases()) check(c, 5);
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "the host has no AVX2";
#else
  GTEST_SKIP() << "not x86-64";
#endif
  for (const Q8Case& c : cases()) check(c, 4);
}

// The 256-bit vpdpbusd tiles (AVX-VNNI, int8_path vnni256). On a host with AVX512-VNNI but no
// AVX-VNNI the depthwise kernel runs the same tiles with the EVEX form of the instruction (and
// qconv8 its portable code): the depthwise cases still test the 256-bit tile logic there.
TEST(KernelQConv8, Vnni256MatchesReference) {
#if defined(__x86_64__)
  const bool vex = __builtin_cpu_supports("avxvnni");
  if (!vex && !(__builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl")))
    GTEST_SKIP() << "the host has neither AVX-VNNI nor AVX512-VNNI";
  for (const Q8Case& c : cases())
    if (vex || c.dw) check(c, 2);
#else
  GTEST_SKIP() << "not x86-64";
#endif
}

// The lowering packs w and mult in place and records the original weight shape: inference
// and lowering of the same node run again (gears, re-lowering) and give the same result.
TEST(KernelQConv8, RelowersAfterPacking) {
  Built b;
  build(cases()[0], b, 99);
  std::vector<TensorPtr> first = evalNodeNative(b.g, *b.n);
  inferNode(b.g, *b.n);
  std::vector<TensorPtr> second = evalNodeNative(b.g, *b.n);
  ASSERT_EQ(first[0]->data, second[0]->data);
}

TEST(KernelQConv8, RefusesBadNodes) {
  Q8Case c = cases()[0];
  Built b;
  build(c, b, 1);
  b.n->attrs["group"] = (int64_t)2;  // neither 1 nor depthwise
  EXPECT_THROW(inferNode(b.g, *b.n), AtcError);
  b.n->attrs["group"] = c.C;  // depthwise, but the weights have C input channels
  EXPECT_THROW(inferNode(b.g, *b.n), AtcError);
  b.n->attrs.erase("group");
  b.n->attrs["out_quantize"] = (int64_t)1;  // without out_scale
  EXPECT_THROW(inferNode(b.g, *b.n), AtcError);
  b.n->attrs.erase("out_quantize");
  b.n->attrs.erase("group");
  b.n->attrs["activation"] = std::string("Sigmoid");
  EXPECT_THROW(inferNode(b.g, *b.n), AtcError);
}

}  // namespace
