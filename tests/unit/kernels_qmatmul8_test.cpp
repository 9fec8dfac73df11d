// QuantizedMatMul (kernel qmatmul8) through the native kernel library against a reference
// computed here: QuantizeLinear of a float input (rint ties to even, saturation, NaN -> zero
// point), or a uint8 / int8 input as is; exact int32 sums; (sum) * mult + bias. Every
// accumulation path: portable int32 code, vpdpbusd when the host has AVX512-VNNI / AVX-VNNI,
// AMX tiles when it has AMX-INT8.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ir/op_registry.h"
#include "ops/native_eval.h"
#include "support/diagnostics.h"
#include "tests/unit/quant_kernel_test_util.h"

using namespace atc;

namespace {

struct QmCase {
  const char* name;
  DType xdt;  // F32 (quantized in the kernel), U8 or I8
  DType qdt;  // dtype of the zero point (the quantized x)
  Shape xshape;  // [..., K]
  int64_t N;
  bool bias;
};

struct Built {
  Graph g;
  Node* n = nullptr;
  std::vector<float> ref;
};

void build(const QmCase& c, Built& b, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uf(-3.0f, 3.0f);
  std::uniform_int_distribution<int> u8(0, 255), s8(-128, 127);
  const float xs = 0.023f;
  const int32_t zp = c.qdt == DType::I8 ? -7 : 131;
  auto x = std::make_shared<Tensor>(TensorType(c.xdt, c.xshape));
  const int64_t K = c.xshape.back(), M = x->type.numel() / K;
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
  auto w = std::make_shared<Tensor>(TensorType(DType::I8, {c.N, K}));
  for (int64_t i = 0; i < w->type.numel(); ++i) w->as<int8_t>()[i] = (int8_t)s8(rng);
  auto mult = std::make_shared<Tensor>(TensorType(DType::F32, {c.N}));
  auto bias = std::make_shared<Tensor>(TensorType(DType::F32, {c.N}));
  for (int64_t o = 0; o < c.N; ++o) {
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
  if (c.bias) ins.push_back(b.g.newConstant("b", bias));
  b.n = b.g.addNode("QuantizedMatMul", "qm", ins, {b.g.newValue("y")});
  inferNode(b.g, *b.n);
  b.ref.assign((size_t)(M * c.N), 0.0f);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t o = 0; o < c.N; ++o) {
      int64_t acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += (int64_t)(xq[m * K + k] - zp) * w->as<int8_t>()[o * K + k];
      b.ref[m * c.N + o] = (float)acc * mult->as<float>()[o] + bias->as<float>()[o];
    }
}

// path: the int8 accumulation (0 portable, 1 512-bit vpdpbusd, 2 256-bit vpdpbusd, 3 AMX, 4 AVX2
// vpmaddwd over widened weights, 5 portable over widened weights).
const char* pathName(int path) {
  static const char* names[] = {" (portable)", " (vnni512)", " (vnni256)", " (amx)", " (avx2)", " (wide portable)"};
  return names[path];
}

void check(const QmCase& c, int path) {
  Built b;
  build(c, b, 4321);
  Shape want = c.xshape;
  want.back() = c.N;
  ASSERT_EQ(b.n->outputs[0]->type.shape, want);
  std::vector<TensorPtr> out = evalNodeNative(b.g, *b.n, 6, path == 3 ? 1 : path, false, path == 3);
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0]->type.numel(), (int64_t)b.ref.size());
  int bad = 0;
  for (size_t i = 0; i < b.ref.size() && bad < 5; ++i) {
    const float got = out[0]->as<float>()[i], want = b.ref[i];
    if (!(std::fabs(got - want) <= 1e-5f * (1.0f + std::fabs(want)))) {
      ADD_FAILURE() << c.name << pathName(path) << ": element " << i << " got " << got
                    << ", want " << want;
      ++bad;
    }
  }
}

const std::vector<QmCase>& cases() {
  static const std::vector<QmCase> cs = {
      // name, xdt, qdt, x shape, N, bias
      {"one row, ragged K and N", DType::F32, DType::U8, {1, 7}, 5, true},
      {"3-D input, 48 columns", DType::F32, DType::U8, {2, 9, 33}, 48, true},
      {"int8 zero point, float input", DType::F32, DType::I8, {13, 64}, 40, false},
      {"uint8 input, several row blocks", DType::U8, DType::U8, {150, 21}, 100, true},
      {"int8 input, two panels", DType::I8, DType::I8, {3, 5, 16}, 20, true},
      {"deep K, many panel groups", DType::F32, DType::U8, {70, 300}, 200, true},
      {"K of 1", DType::F32, DType::U8, {9, 1}, 17, true},
  };
  return cs;
}

TEST(KernelQMatMul8, PortableMatchesReference) {
  for (const QmCase& c : cases()) check(c, 0);
}

TEST(KernelQMatMul8, VnniMatchesReference) {
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("avx512vnni")) GTEST_SKIP() << "the host has no AVX512-VNNI";
#else
  GTEST_SKIP() << "not x86-64";
#endif
  for (const QmCase& c : cases()) check(c, 1);
}

// Weights widened to int16 pairs (int8_path avx2): vpmaddwd where the host has AVX2, and the
// portable code over the same layout (path 5).
TEST(KernelQMatMul8, WideMatchesReference) {
  for (const QmCase& c : cases()) check(c, 5);
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "the host has no AVX2";
#else
  GTEST_SKIP() << "not x86-64";
#endif
  for (const QmCase& c : cases()) check(c, 4);
}

// The 256-bit vpdpbusd tiles (AVX-VNNI, int8_path vnni256).
TEST(KernelQMatMul8, Vnni256MatchesReference) {
#if defined(__x86_64__)
  if (!__builtin_cpu_supports("avxvnni")) GTEST_SKIP() << "the host has no AVX-VNNI";
#else
  GTEST_SKIP() << "not x86-64";
#endif
  for (const QmCase& c : cases()) check(c, 2);
}

// AMX tiles (int8_path amx): 16 rows per tile, tdpbusd.
bool hostHasAmxInt8() {
#if defined(__x86_64__)
  unsigned a, b, c, d;
  __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(7), "c"(0));
  return (d >> 24 & 1) && (d >> 25 & 1);
#else
  return false;
#endif
}

TEST(KernelQMatMul8, AmxMatchesReference) {
  if (!hostHasAmxInt8()) GTEST_SKIP() << "the host has no AMX-INT8";
  for (const QmCase& c : cases()) check(c, 3);
  // K deep enough for whole 16-quad steps and a tail, rows over several 16-row tiles
  check({"AMX: K 1000, 37 rows", DType::F32, DType::U8, {37, 1000}, 130, true}, 3);
  check({"AMX: K 64 exactly", DType::U8, DType::U8, {32, 64}, 48, false}, 3);
}

// The lowering packs w and mult in place and records the original weight shape: inference
// and lowering of the same node run again and give the same result.
TEST(KernelQMatMul8, RelowersAfterPacking) {
  Built b;
  build(cases()[1], b, 99);
  std::vector<TensorPtr> first = evalNodeNative(b.g, *b.n);
  inferNode(b.g, *b.n);
  std::vector<TensorPtr> second = evalNodeNative(b.g, *b.n);
  ASSERT_EQ(first[0]->data, second[0]->data);
}

TEST(KernelQMatMul8, RefusesBadNodes) {
  Built b;
  build(cases()[1], b, 1);
  Value* w = b.n->inputs[3];
  auto wrongK = std::make_shared<Tensor>(TensorType(DType::I8, {48, 32}));
  b.n->inputs[3] = b.g.newConstant("w2", wrongK);  // K 32 against x's 33
  EXPECT_THROW(inferNode(b.g, *b.n), AtcError);
  auto fw = std::make_shared<Tensor>(TensorType(DType::F32, {48, 33}));
  b.n->inputs[3] = b.g.newConstant("w3", fw);  // float weights
  EXPECT_THROW(inferNode(b.g, *b.n), AtcError);
  b.n->inputs[3] = w;
  auto m3 = std::make_shared<Tensor>(TensorType(DType::F32, {3}));
  b.n->inputs[4] = b.g.newConstant("m3", m3);  // mult of 3 values for 48 columns
  EXPECT_THROW(inferNode(b.g, *b.n), AtcError);
}

}  // namespace
