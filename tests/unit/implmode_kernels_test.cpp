// Kernel variants of the implementation modes (kernels/lib/math_impl.h): high_precision is
// more accurate than high_performance, super_performance is less accurate (their speed:
// bench/bench_implmode.py, not a timed test); support_out_of_bound_index gives zeros / skipped
// updates; float16 / bfloat16 storage rounds like a numpy emulation; keep_fp16 rounds
// intermediates to float16.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "ops/native_eval.h"
#include "ir/op_registry.h"
#include "kernels/lib/math_impl.h"
#include "kernels/lib/native_registry.h"
#include "support/diagnostics.h"

using namespace atc;

namespace {

TensorPtr f32(Shape s, const std::vector<double>& v) {
  auto t = std::make_shared<Tensor>(TensorType(DType::F32, s));
  for (int64_t i = 0; i < t->type.numel(); ++i) t->as<float>()[i] = (float)v[i % v.size()];
  return t;
}
TensorPtr bits16(DType dt, const std::vector<uint16_t>& v) {
  auto t = std::make_shared<Tensor>(TensorType(dt, {(int64_t)v.size()}));
  for (size_t i = 0; i < v.size(); ++i) t->as<uint16_t>()[i] = v[i];
  return t;
}
TensorPtr i64(Shape s, const std::vector<int64_t>& v) {
  auto t = std::make_shared<Tensor>(TensorType(DType::I64, s));
  for (size_t i = 0; i < v.size(); ++i) t->as<int64_t>()[i] = v[i];
  return t;
}

// One node with constant inputs and an implementation mode; returns its outputs.
std::vector<TensorPtr> run(const std::string& type, std::vector<TensorPtr> ins, const std::string& mode,
                           std::map<std::string, AttrValue> attrs = {}) {
  Graph g;
  g.opsetVersion = 17;
  std::vector<Value*> vin;
  for (size_t i = 0; i < ins.size(); ++i) vin.push_back(g.newConstant("in" + std::to_string(i), ins[i]));
  Node* n = g.addNode(type, "node", vin, {g.newValue("out")});
  n->attrs = attrs;
  if (!mode.empty()) n->attrs["_impl_mode"] = mode;
  inferNode(g, *n);
  return evalNodeNative(g, *n);
}

// Gather with indices known only at run time (a graph input): lowered, then the kernel run on
// the buffers, as the runtime does.
std::vector<float> gatherAtRunTime(const TensorPtr& data, const TensorPtr& idx) {
  Graph g;
  g.opsetVersion = 17;
  Value* iv = g.newValue("idx", idx->type);
  Node* n = g.addNode("Gather", "node", {g.newConstant("data", data), iv}, {g.newValue("out")});
  inferNode(g, *n);
  LowerCtx ctx(g, *n);
  KernelCall call = OpRegistry::instance().find("Gather")->lower(ctx);
  std::vector<float> out((size_t)n->outputs[0]->type.numel());
  std::vector<void*> bufs = {(void*)data->data.data(), (void*)idx->data.data(), out.data()};
  runNativeKernel(*findNativeKernel(call.kernel.c_str()), call.params.data(), bufs.data());
  return out;
}

struct Err {
  double maxRel = 0, meanRel = 0;
};

// Relative error of `got` against a double reference.
Err errorOf(const Tensor& got, const std::vector<double>& ref) {
  Err e;
  for (size_t i = 0; i < ref.size(); ++i) {
    double r = std::fabs(got.floatAt(i) - ref[i]) / std::max(std::fabs(ref[i]), 1e-30);
    e.maxRel = std::max(e.maxRel, r);
    e.meanRel += r / ref.size();
  }
  return e;
}

std::vector<double> sweep(size_t n, double lo, double hi) {
  std::mt19937 g(7);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (auto& x : v) x = (float)u(g);
  return v;
}

double gelu(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }

}  // namespace

// For every listed unary op: high_precision < high_performance < super_performance in error.
TEST(ImplModeKernels, UnaryAccuracyOrder) {
  struct Case {
    const char* op;
    double lo, hi;
    double (*ref)(double);
  } cases[] = {
      {"Exp", -20, 20, [](double x) { return std::exp(x); }},
      {"Log", 1e-3, 1e3, [](double x) { return std::log(x); }},
      {"Tanh", -4, 4, [](double x) { return std::tanh(x); }},
      {"Sigmoid", -10, 10, [](double x) { return 1 / (1 + std::exp(-x)); }},
      {"Erf", 0.05, 3, [](double x) { return std::erf(x); }},
      {"Gelu", 0.05, 4, gelu},
  };
  for (auto& c : cases) {
    auto x = sweep(20000, c.lo, c.hi);
    std::vector<double> ref;
    for (double v : x) ref.push_back(c.ref(v));
    auto in = f32({(int64_t)x.size()}, x);
    Err prec = errorOf(*run(c.op, {in}, "high_precision")[0], ref);
    Err perf = errorOf(*run(c.op, {in}, "high_performance")[0], ref);
    Err dflt = errorOf(*run(c.op, {in}, "")[0], ref);
    Err sup = errorOf(*run(c.op, {in}, "super_performance")[0], ref);
    SCOPED_TRACE(c.op);
    EXPECT_LE(prec.maxRel, 6.0e-8);  // rounded once from double: <= 0.5 ulp
    EXPECT_LT(prec.meanRel, perf.meanRel);
    EXPECT_EQ(perf.meanRel, dflt.meanRel);  // no mode = high_performance
    EXPECT_LT(perf.maxRel, 1e-6);
    EXPECT_GT(sup.maxRel, 4 * perf.maxRel);
    EXPECT_LT(sup.maxRel, 2e-2);
  }
}

TEST(ImplModeKernels, FastLogAccuracyAndSpecials) {
  double worst = 0;
  for (int i = 0; i < 2000000; ++i) {
    float x = std::ldexp(1.0f + (i % 4096) / 4096.0f, (i / 4096) % 250 - 125);
    double r = std::log((double)x);
    float u = std::nextafter(std::fabs((float)r), INFINITY) - std::fabs((float)r);
    if ((float)r != 0) worst = std::max(worst, std::fabs(atck_logf(x) - r) / u);
  }
  EXPECT_LE(worst, 3.0);
  EXPECT_TRUE(std::isnan(atck_logf(-1.0f)));
  EXPECT_TRUE(std::isnan(atck_logf(NAN)));
  EXPECT_EQ(atck_logf(0.0f), -INFINITY);
  EXPECT_EQ(atck_logf(INFINITY), INFINITY);
  EXPECT_EQ(atck_logf(1.0f), 0.0f);
  EXPECT_NEAR(atck_logf(1e-45f), std::log((double)1e-45f), 1e-5);  // subnormal
}

// Softmax / LayerNormalization / ReduceSum / ReduceMean: double accumulation is more accurate.
TEST(ImplModeKernels, AccumulationAccuracyOrder) {
  const int64_t n = 1 << 16;
  std::vector<double> x = sweep(n, -1, 1);
  for (auto& v : x) v = (float)(v + 1000.0);  // large mean: float accumulation loses digits
  auto in = f32({1, n}, x);
  // ReduceSum / ReduceMean
  double s = 0;
  for (double v : x) s += v;
  for (const char* op : {"ReduceSum", "ReduceMean"}) {
    double ref = std::string(op) == "ReduceSum" ? s : s / n;
    auto axes = i64({1}, {1});
    double ep = std::fabs(run(op, {in, axes}, "high_precision")[0]->floatAt(0) - ref);
    double ef = std::fabs(run(op, {in, axes}, "high_performance")[0]->floatAt(0) - ref);
    EXPECT_LE(ep, std::fabs(ref) * 6e-8) << op;
    EXPECT_LE(ep, ef) << op;
  }
  // Softmax
  std::vector<double> xs = sweep(4096, -8, 8);
  double m = -1e9, z = 0;
  for (double v : xs) m = std::max(m, v);
  for (double v : xs) z += std::exp(v - m);
  std::vector<double> ref;
  for (double v : xs) ref.push_back(std::exp(v - m) / z);
  auto sin = f32({1, (int64_t)xs.size()}, xs);
  Err p = errorOf(*run("Softmax", {sin}, "high_precision")[0], ref);
  Err f = errorOf(*run("Softmax", {sin}, "high_performance")[0], ref);
  EXPECT_LT(p.meanRel, f.meanRel);
  EXPECT_LE(p.maxRel, 1.2e-7);
  // LayerNormalization over the last axis
  std::vector<double> lx = sweep(4096, -1, 1);
  for (auto& v : lx) v = (float)(v * 0.01 + 300.0);
  double mean = 0, var = 0;
  for (double v : lx) mean += v / lx.size();
  for (double v : lx) var += (v - mean) * (v - mean) / lx.size();
  std::vector<double> lref;
  for (double v : lx) lref.push_back((v - mean) / std::sqrt(var + 1e-5));
  auto lin = f32({1, (int64_t)lx.size()}, lx);
  auto sc = f32({(int64_t)lx.size()}, {1.0});
  auto bi = f32({(int64_t)lx.size()}, {0.0});
  double lp = 0, lf = 0;
  auto outP = run("LayerNormalization", {lin, sc, bi}, "high_precision", {{"axis", int64_t(-1)}});
  auto outF = run("LayerNormalization", {lin, sc, bi}, "high_performance", {{"axis", int64_t(-1)}});
  for (size_t i = 0; i < lref.size(); ++i) {
    lp = std::max(lp, std::fabs(outP[0]->floatAt(i) - lref[i]));
    lf = std::max(lf, std::fabs(outF[0]->floatAt(i) - lref[i]));
  }
  EXPECT_LT(lp, lf);
  EXPECT_LT(lp, 1e-5);
}

TEST(ImplModeKernels, OutOfBoundIndices) {
  auto data = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  auto idx = i64({4}, {0, 5, -1, -4});
  // Default: run-time indices clamped (defined, but not checked); constant ones refused.
  EXPECT_EQ(gatherAtRunTime(data, idx)[2], 5.0f);  // 5 clamped to 2
  EXPECT_THROW(run("Gather", {data, idx}, ""), AtcError);
  auto c = run("Gather", {data, idx}, "support_out_of_bound_index");
  std::vector<double> want = {1, 2, 0, 0, 5, 6, 0, 0};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(c[0]->floatAt(i), want[i]) << i;
  // GatherElements
  auto gi = i64({3, 2}, {0, 1, 3, 0, -1, -7});
  auto ge = run("GatherElements", {data, gi}, "support_out_of_bound_index", {{"axis", int64_t(0)}});
  std::vector<double> gw = {1, 4, 0, 2, 5, 0};
  for (size_t i = 0; i < gw.size(); ++i) EXPECT_EQ(ge[0]->floatAt(i), gw[i]) << i;
  // ScatterND: out-of-range updates skipped.
  auto si = i64({3, 1}, {1, 3, -1});
  auto upd = f32({3, 2}, {10, 11, 20, 21, 30, 31});
  auto sn = run("ScatterND", {data, si, upd}, "support_out_of_bound_index");
  std::vector<double> sw = {1, 2, 10, 11, 30, 31};
  for (size_t i = 0; i < sw.size(); ++i) EXPECT_EQ(sn[0]->floatAt(i), sw[i]) << i;
  auto sd = run("ScatterND", {data, si, upd}, "");
  EXPECT_EQ(sd[0]->floatAt(4), 30.0);  // unchecked: index 3 clamped to 2, then -1 overwrites
}

// float16 / bfloat16 storage: Add and Mul results (exact in float32) rounded to nearest even,
// expected bits from numpy (float16 arithmetic; bfloat16 emulated with uint32 rounding).
TEST(ImplModeKernels, HalfStorageRoundingMatchesNumpy) {
  std::vector<uint16_t> a = {0x3c00, 0x2e66, 0x6800, 0x3c00, 0x7bff, 0xc248, 0x068e, 0x3554, 0x6400, 0x0001};
  std::vector<uint16_t> b = {0x1000, 0x3266, 0x3c00, 0x1600, 0x7bff, 0x4170, 0x01f7, 0x3956, 0x3800, 0x0001};
  std::vector<uint16_t> add = {0x3c00, 0x34cc, 0x6800, 0x3c02, 0x7c00, 0xb6c0, 0x0842, 0x3c00, 0x6400, 0x0002};
  std::vector<uint16_t> mul = {0x1000, 0x251e, 0x6800, 0x1600, 0x7c00, 0xc845, 0x0000, 0x331c, 0x6000, 0x0000};
  auto ra = run("Add", {bits16(DType::F16, a), bits16(DType::F16, b)}, "");
  auto rm = run("Mul", {bits16(DType::F16, a), bits16(DType::F16, b)}, "");
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(ra[0]->as<uint16_t>()[i], add[i]) << "f16 add " << i;
    EXPECT_EQ(rm[0]->as<uint16_t>()[i], mul[i]) << "f16 mul " << i;
  }
  std::vector<uint16_t> ba = {0x3f80, 0x3dcd, 0x4380, 0x3f80, 0x7f62, 0xc049, 0x0da2, 0x3eaa, 0x4380, 0x3fc0};
  std::vector<uint16_t> bb = {0x3b80, 0x3e4d, 0x3f80, 0x3c40, 0x7f62, 0x402e, 0x0cc3, 0x3f2b, 0x3f00, 0x3f81};
  std::vector<uint16_t> badd = {0x3f80, 0x3e9a, 0x4380, 0x3f82, 0x7f80, 0xbed8, 0x0dd3, 0x3f80, 0x4380, 0x4020};
  std::vector<uint16_t> bmul = {0x3b80, 0x3ca4, 0x4380, 0x3c40, 0x7f80, 0xc109, 0x0000, 0x3e63, 0x4300, 0x3fc2};
  auto rba = run("Add", {bits16(DType::BF16, ba), bits16(DType::BF16, bb)}, "");
  auto rbm = run("Mul", {bits16(DType::BF16, ba), bits16(DType::BF16, bb)}, "");
  for (size_t i = 0; i < ba.size(); ++i) {
    EXPECT_EQ(rba[0]->as<uint16_t>()[i], badd[i]) << "bf16 add " << i;
    EXPECT_EQ(rbm[0]->as<uint16_t>()[i], bmul[i]) << "bf16 mul " << i;
  }
}

// Every vector kernel family reads float16 / bfloat16 and rounds its float32 result once.
TEST(ImplModeKernels, HalfStorageAcrossKernels) {
  std::vector<double> x = sweep(64, -3, 3);
  for (DType dt : {DType::F16, DType::BF16}) {
    std::vector<uint16_t> h;
    for (double v : x) h.push_back(dt == DType::F16 ? floatToHalf((float)v) : floatToBf16((float)v));
    auto t16 = bits16(dt, h);
    auto t16m = std::make_shared<Tensor>(*t16);
    t16m->type.shape = {4, 16};
    std::vector<double> xs;  // values as stored
    for (uint16_t u : h) xs.push_back(dt == DType::F16 ? halfToFloat(u) : bf16ToFloat(u));
    auto round = [&](double v) {
      float f = (float)v;
      return dt == DType::F16 ? halfToFloat(floatToHalf(f)) : bf16ToFloat(floatToBf16(f));
    };
    SCOPED_TRACE(dtypeName(dt));
    auto e = run("Exp", {t16}, "high_precision");
    for (size_t i = 0; i < xs.size(); ++i) EXPECT_EQ(e[0]->floatAt(i), round(std::exp(xs[i]))) << i;
    auto s = run("ReduceSum", {t16m, i64({1}, {1})}, "high_precision");
    for (int r = 0; r < 4; ++r) {
      double acc = 0;
      for (int j = 0; j < 16; ++j) acc += xs[r * 16 + j];
      EXPECT_EQ(s[0]->floatAt(r), round(acc)) << r;
    }
    auto sm = run("Softmax", {t16m}, "high_precision");
    for (int r = 0; r < 4; ++r) {
      double m = -1e9, z = 0;
      for (int j = 0; j < 16; ++j) m = std::max(m, xs[r * 16 + j]);
      for (int j = 0; j < 16; ++j) z += std::exp(xs[r * 16 + j] - m);
      for (int j = 0; j < 16; ++j)
        EXPECT_EQ(sm[0]->floatAt(r * 16 + j), round(std::exp(xs[r * 16 + j] - m) / z)) << r << "," << j;
    }
    auto g = run("Gather", {t16m, i64({2}, {3, 0})}, "");
    EXPECT_EQ(g[0]->as<uint16_t>()[0], h[48]);
    EXPECT_EQ(g[0]->as<uint16_t>()[16], h[0]);
  }
}

// keep_fp16: Gelu's intermediates rounded to float16 (emulated here step by step).
TEST(ImplModeKernels, KeepFp16RoundsIntermediates) {
  auto r16 = [](double v) { return (double)halfToFloat(floatToHalf((float)v)); };
  std::vector<double> x = sweep(512, -4, 4);
  auto out = run("Gelu", {f32({(int64_t)x.size()}, x)}, "keep_fp16");
  auto hp = run("Gelu", {f32({(int64_t)x.size()}, x)}, "high_performance");
  double diffHp = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double xi = r16(x[i]);
    double h = r16(xi * 0.5f);
    double e = r16(std::erf(r16((float)xi * 0.70710678f)));
    double want = r16(h * r16(1.0 + e));
    EXPECT_NEAR(out[0]->floatAt(i), want, std::fabs(want) * 1e-3 + 1e-7) << x[i];  // <= 1 fp16 ulp
    EXPECT_EQ(out[0]->floatAt(i), r16(out[0]->floatAt(i)));  // result is an fp16 value
    diffHp = std::max(diffHp, std::fabs(out[0]->floatAt(i) - hp[0]->floatAt(i)));
  }
  EXPECT_GT(diffHp, 1e-4);  // measurably different from float32 arithmetic
}

// float16 / bfloat16 element-wise rows longer than one 64-element chunk (eltwise.cpp converts,
// computes and rounds chunk by chunk): Relu and Add equal the element-by-element definition.
TEST(ImplModeKernels, HalfStorageLongRowsMatchElementwise) {
  for (DType dt : {DType::F16, DType::BF16}) {
    std::vector<uint16_t> a(203), b(203);
    for (size_t i = 0; i < a.size(); ++i) {
      float x = std::sin(0.37f * (float)i) * 5.0f, y = std::cos(0.11f * (float)i) * 3.0f;
      a[i] = dt == DType::F16 ? atck_f2h_soft(x) : atck_f2bf(x);
      b[i] = dt == DType::F16 ? atck_f2h_soft(y) : atck_f2bf(y);
    }
    auto toF = [&](uint16_t h) { return dt == DType::F16 ? atck_h2f_soft(h) : atck_bf2f(h); };
    auto toH = [&](float f) { return dt == DType::F16 ? atck_f2h_soft(f) : atck_f2bf(f); };
    auto relu = run("Relu", {bits16(dt, a)}, "");
    auto add = run("Add", {bits16(dt, a), bits16(dt, b)}, "");
    for (size_t i = 0; i < a.size(); ++i) {
      float x = toF(a[i]);
      EXPECT_EQ(relu[0]->as<uint16_t>()[i], toH(x < 0 ? 0.0f : x)) << dtypeName(dt) << " relu " << i;
      EXPECT_EQ(add[0]->as<uint16_t>()[i], toH(x + toF(b[i]))) << dtypeName(dt) << " add " << i;
    }
  }
}
