// Rounding of float16 / bfloat16 results against an emulation: the cube kernels (Conv on
// its im2col, 1x1 direct and depthwise paths, several K blocks; MatMul; Gemm) read f16/bf16
// operands and WRITE f16/bf16 (fp32 accumulation, round to nearest even on the store), and
// vector kernels (Add, Mul, LayerNormalization) in f16/bf16. The reference converts the
// inputs to double, accumulates exactly (the test values are chosen so that the fp32
// accumulation is exact too) and rounds with round-to-nearest-even, written here from
// scratch (not the library's converters). Runs natively via atc::evalNodeNative.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "dm_test_util.h"
#include "ir/tensor.h"

namespace {
using namespace atc;
using dmtest::OneNode;

// Round-to-nearest-even of x to a binary float with `mant` explicit mantissa bits and minimum
// normal exponent emin (subnormals below), saturating to inf past `maxv`.
double rne(double x, int mant, int emin, double maxv) {
  if (x == 0 || std::isnan(x)) return x;
  double a = std::fabs(x);
  int e = std::ilogb(a);
  if (e < emin) e = emin;
  double ulp = std::ldexp(1.0, e - mant);
  double q = a / ulp, fl = std::floor(q), r = q - fl;
  double n = r > 0.5 ? fl + 1 : r < 0.5 ? fl : (std::fmod(fl, 2.0) == 0 ? fl : fl + 1);
  double v = n * ulp;
  if (v > maxv) v = INFINITY;
  return x < 0 ? -v : v;
}
double rneF16(double x) { return rne(x, 10, -14, 65504.0); }
double rneBF16(double x) { return rne(x, 7, -126, 3.3895313892515355e38); }

double roundTo(DType t, double x) { return t == DType::F16 ? rneF16(x) : t == DType::BF16 ? rneBF16(x) : (double)(float)x; }

// Emulated check of the emulation itself on known cases.
TEST(PrecisionRounding, EmulationKnownValues) {
  EXPECT_EQ(rneF16(2049.0), 2048.0);  // tie -> even
  EXPECT_EQ(rneF16(2051.0), 2052.0);
  EXPECT_EQ(rneF16(65520.0), INFINITY);
  EXPECT_EQ(rneF16(std::ldexp(1.5, -25)), std::ldexp(1.0, -24));  // subnormal
  EXPECT_EQ(rneBF16(257.0), 256.0);
  EXPECT_EQ(rneBF16(259.0), 260.0);
}

// Deterministic values k/16, k in [-100, 100] (exact in f16 and bf16: <= 7 significant bits;
// sums of up to 720 products stay below 2^24 / 256, so fp32 accumulation is exact).
std::vector<double> vals(int64_t n, int seed) {
  std::vector<double> v(n);
  uint32_t s = 2463534242u + seed * 7919u;
  for (auto& x : v) {
    s ^= s << 13; s ^= s >> 17; s ^= s << 5;
    x = ((int)(s % 201) - 100) / 16.0;
  }
  return v;
}

TensorPtr tensorOf(DType t, const Shape& sh, const std::vector<double>& v) {
  auto r = std::make_shared<Tensor>(TensorType(t, sh));
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == DType::F32) r->as<float>()[i] = (float)v[i];
    else if (t == DType::F16) r->as<uint16_t>()[i] = floatToHalf((float)v[i]);
    else r->as<uint16_t>()[i] = floatToBf16((float)v[i]);
  }
  return r;
}

// Bit-exact comparison of out (dtype t) with the rounded reference.
void expectRounded(const TensorPtr& out, DType t, const std::vector<double>& exact, const std::string& what) {
  ASSERT_EQ(out->type.dtype, t) << what;
  ASSERT_EQ(out->type.numel(), (int64_t)exact.size()) << what;
  int bad = 0, inexact = 0;
  for (size_t i = 0; i < exact.size(); ++i) {
    double want = roundTo(t, exact[i]);
    double got = out->floatAt((int64_t)i);
    inexact += want != exact[i];
    if (got != want && bad++ < 5) ADD_FAILURE() << what << " [" << i << "]: exact " << exact[i] << " got " << got << " want " << want;
  }
  EXPECT_EQ(bad, 0) << what;
  EXPECT_GT(inexact, 0) << what << ": no value needed rounding (test too easy)";
}

struct ConvCase {
  const char* name;
  int64_t N, C, H, W, OC, G, KH, KW, stride, pad;
  DType xdt, wdt, ydt;
  bool bias;
};

void runConv(const ConvCase& k) {
  const int64_t OH = (k.H + 2 * k.pad - k.KH) / k.stride + 1, OW = (k.W + 2 * k.pad - k.KW) / k.stride + 1;
  const int64_t Cg = k.C / k.G, Mg = k.OC / k.G;
  auto x = vals(k.N * k.C * k.H * k.W, 1), w = vals(k.OC * Cg * k.KH * k.KW, 2), b = vals(k.OC, 3);
  std::vector<double> ref(k.N * k.OC * OH * OW);
  for (int64_t n = 0; n < k.N; ++n)
    for (int64_t oc = 0; oc < k.OC; ++oc)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double s = k.bias ? b[oc] : 0.0;
          int64_t g = oc / Mg;
          for (int64_t ic = 0; ic < Cg; ++ic)
            for (int64_t kh = 0; kh < k.KH; ++kh)
              for (int64_t kw = 0; kw < k.KW; ++kw) {
                int64_t ih = oh * k.stride - k.pad + kh, iw = ow * k.stride - k.pad + kw;
                if (ih < 0 || ih >= k.H || iw < 0 || iw >= k.W) continue;
                s += x[((n * k.C + g * Cg + ic) * k.H + ih) * k.W + iw] * w[((oc * Cg + ic) * k.KH + kh) * k.KW + kw];
              }
          ref[((n * k.OC + oc) * OH + oh) * OW + ow] = s;
        }
  std::vector<TensorPtr> ins = {tensorOf(k.xdt, {k.N, k.C, k.H, k.W}, x), tensorOf(k.wdt, {k.OC, Cg, k.KH, k.KW}, w)};
  if (k.bias) ins.push_back(tensorOf(DType::F32, {k.OC}, b));
  OneNode o("Conv", ins, 1,
            {{"group", k.G}, {"strides", std::vector<int64_t>{k.stride, k.stride}},
             {"pads", std::vector<int64_t>{k.pad, k.pad, k.pad, k.pad}}, {"_out_dtype", (int64_t)k.ydt}});
  expectRounded(o.run1(), k.ydt, ref, k.name);
}

TEST(PrecisionRounding, ConvWritesF16AndBf16) {
  const DType H = DType::F16, B = DType::BF16, F = DType::F32;
  ConvCase cases[] = {
      {"conv3x3 f16->f16", 1, 8, 9, 9, 12, 1, 3, 3, 1, 1, H, H, H, true},
      {"conv3x3 bf16->bf16", 1, 8, 9, 9, 12, 1, 3, 3, 1, 1, B, B, B, true},
      {"conv3x3 s2 f16->bf16 grouped", 2, 8, 9, 7, 8, 2, 3, 3, 2, 1, H, H, B, false},
      {"conv 3 K blocks f16->f16", 1, 80, 6, 6, 7, 1, 3, 3, 1, 1, H, H, H, true},  // K = 720
      {"conv1x1 direct f32->f16", 1, 16, 8, 8, 13, 1, 1, 1, 1, 0, F, F, H, true},
      {"conv1x1 f16->f16", 1, 16, 8, 8, 13, 1, 1, 1, 1, 0, H, H, H, false},
      {"depthwise f16->f16", 1, 6, 9, 21, 6, 6, 3, 3, 1, 1, H, H, H, true},
      {"depthwise f32->bf16", 1, 6, 9, 21, 6, 6, 3, 3, 2, 1, F, F, B, true},
  };
  for (auto& c : cases) runConv(c);
}

// MatMul [batch, M, K] x [K, N] and batched x batched, f16/bf16 in and out.
void runMatMul(DType adt, DType bdt, DType ydt, int64_t batch, int64_t M, int64_t K, int64_t N, bool batchedB, int seed) {
  auto a = vals(batch * M * K, seed), b = vals((batchedB ? batch : 1) * K * N, seed + 1);
  std::vector<double> ref(batch * M * N);
  for (int64_t t = 0; t < batch; ++t)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) s += a[(t * M + m) * K + k] * b[((batchedB ? t : 0) * K + k) * N + n];
        ref[(t * M + m) * N + n] = s;
      }
  Shape bs = batchedB ? Shape{batch, K, N} : Shape{K, N};
  OneNode o("MatMul", {tensorOf(adt, {batch, M, K}, a), tensorOf(bdt, bs, b)}, 1, {{"_out_dtype", (int64_t)ydt}});
  expectRounded(o.run1(), ydt, ref,
                std::string("MatMul ") + dtypeName(adt) + "x" + dtypeName(bdt) + "->" + dtypeName(ydt) + " K=" + std::to_string(K));
}

TEST(PrecisionRounding, MatMulWritesF16AndBf16) {
  runMatMul(DType::F16, DType::F16, DType::F16, 2, 13, 40, 37, false, 4);
  runMatMul(DType::BF16, DType::BF16, DType::BF16, 3, 7, 33, 20, true, 5);
  runMatMul(DType::F16, DType::F16, DType::BF16, 1, 19, 700, 18, false, 6);  // two K blocks
  runMatMul(DType::F32, DType::F32, DType::F16, 2, 6, 16, 16, true, 7);
}

TEST(PrecisionRounding, MatMulTiesRoundToEven) {
  // 2048 + 1 and 2048 + 3 are f16 ties: 2048 and 2052; bf16: 256 + 1 -> 256, 256 + 3 -> 260.
  auto tie = [](DType t, double big, double lo, double want) {
    OneNode o("MatMul", {tensorOf(t, {1, 2}, {big, lo}), tensorOf(t, {2, 1}, {1.0, 1.0})}, 1, {{"_out_dtype", (int64_t)t}});
    EXPECT_EQ(o.run1()->floatAt(0), want) << dtypeName(t) << " " << big << " + " << lo;
  };
  tie(DType::F16, 2048, 1, 2048);
  tie(DType::F16, 2048, 3, 2052);
  tie(DType::F16, 65504, 8, 65504);    // below the overflow threshold
  tie(DType::F16, 65504, 16, INFINITY);  // 65520: tie, to even = 65536 -> inf
  tie(DType::BF16, 256, 1, 256);
  tie(DType::BF16, 256, 3, 260);
}

TEST(PrecisionRounding, GemmWritesF16AndBf16) {
  for (DType t : {DType::F16, DType::BF16})
    for (int cshape = 0; cshape < 3; ++cshape) {  // C: [N] (column bias), [M, N], [M, 1]
      const int64_t M = 11, K = 24, N = 21;
      auto a = vals(K * M, 8), b = vals(N * K, 9), cv = vals(M * N, 10);
      const double alpha = 0.5, beta = cshape == 0 ? 1.0 : 2.0;
      Shape cs = cshape == 0 ? Shape{N} : cshape == 1 ? Shape{M, N} : Shape{M, 1};
      std::vector<double> c((size_t)(cshape == 0 ? N : cshape == 1 ? M * N : M));
      for (size_t i = 0; i < c.size(); ++i) c[i] = cv[i];
      std::vector<double> ref(M * N);
      for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
          double s = 0;
          for (int64_t k = 0; k < K; ++k) s += a[k * M + m] * b[n * K + k];  // transA, transB
          double cc = cshape == 0 ? c[n] : cshape == 1 ? c[m * N + n] : c[m];
          ref[m * N + n] = alpha * s + beta * cc;
        }
      OneNode o("Gemm", {tensorOf(t, {K, M}, a), tensorOf(t, {N, K}, b), tensorOf(DType::F32, cs, c)}, 1,
                {{"transA", int64_t(1)}, {"transB", int64_t(1)}, {"alpha", alpha}, {"beta", beta}, {"_out_dtype", (int64_t)t}});
      expectRounded(o.run1(), t, ref, std::string("Gemm ") + dtypeName(t) + " C" + std::to_string(cshape));
    }
}

// Vector kernels: the fp32 result of an f16/bf16 Add / Mul is exact, so the kernel's output must
// be its RNE rounding.
TEST(PrecisionRounding, VectorAddMulRoundToNearestEven) {
  for (DType t : {DType::F16, DType::BF16}) {
    std::vector<double> a(512), b(512);
    for (int i = 0; i < 512; ++i) {  // sums/products that need rounding, ties included
      a[i] = (t == DType::F16 ? 1024.0 : 128.0) + i % 97 * 0.5 + (i % 3) * 0.25;
      b[i] = (i % 11) * 0.125 + (i % 2 ? 1.0 / 64 : 0) + 0.5 * (i % 5);
    }
    std::vector<double> sum(512), prod(512);
    for (int i = 0; i < 512; ++i) {
      double ra = roundTo(t, a[i]), rb = roundTo(t, b[i]);
      a[i] = ra;
      b[i] = rb;
      sum[i] = ra + rb;
      prod[i] = ra * rb;
    }
    OneNode add("Add", {tensorOf(t, {512}, a), tensorOf(t, {512}, b)});
    expectRounded(add.run1(), t, sum, std::string("Add ") + dtypeName(t));
    OneNode mul("Mul", {tensorOf(t, {512}, a), tensorOf(t, {512}, b)});
    expectRounded(mul.run1(), t, prod, std::string("Mul ") + dtypeName(t));
  }
}

// LayerNormalization in f16 / bf16 (statistics in fp32): within the dtype's rounding of the
// double-precision result (a few ulps: the normalisation itself is computed in fp32).
TEST(PrecisionRounding, LayerNormF16Bf16) {
  const int64_t R = 6, D = 40;
  auto x = vals(R * D, 11), sc = vals(D, 12), bi = vals(D, 13);
  for (DType t : {DType::F16, DType::BF16}) {
    std::vector<double> xr(x.size()), scr(D), bir(D);
    for (size_t i = 0; i < x.size(); ++i) xr[i] = roundTo(t, x[i] * 3.1);
    for (int64_t i = 0; i < D; ++i) scr[i] = roundTo(t, sc[i] + 2), bir[i] = roundTo(t, bi[i]);
    OneNode o("LayerNormalization", {tensorOf(t, {R, D}, xr), tensorOf(t, {D}, scr), tensorOf(t, {D}, bir)}, 1,
              {{"axis", int64_t(-1)}, {"epsilon", 1e-5}});
    TensorPtr y = o.run1();
    ASSERT_EQ(y->type.dtype, t);
    const double ulp = t == DType::F16 ? std::ldexp(1.0, -10) : std::ldexp(1.0, -7);
    for (int64_t r = 0; r < R; ++r) {
      double mu = 0, var = 0;
      for (int64_t i = 0; i < D; ++i) mu += xr[r * D + i];
      mu /= D;
      for (int64_t i = 0; i < D; ++i) var += (xr[r * D + i] - mu) * (xr[r * D + i] - mu);
      var /= D;
      for (int64_t i = 0; i < D; ++i) {
        double want = (xr[r * D + i] - mu) / std::sqrt(var + 1e-5) * scr[i] + bir[i];
        double got = y->floatAt(r * D + i);
        EXPECT_LE(std::fabs(got - want), 2 * ulp * std::max(1.0, std::fabs(want))) << dtypeName(t) << " " << r << "," << i;
      }
    }
  }
}

}  // namespace
