// Softmax family and normalisations through the native kernels against references
// computed here.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ops/native_eval.h"
#include "support/diagnostics.h"
#include "ir/op_registry.h"

using namespace atc;

namespace {

std::shared_ptr<Tensor> randT(Shape s, unsigned seed, double lo = -3, double hi = 3) {
  auto t = std::make_shared<Tensor>(TensorType(DType::F32, s));
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u((float)lo, (float)hi);
  for (int64_t i = 0; i < t->type.numel(); ++i) t->as<float>()[i] = u(g);
  return t;
}

std::vector<TensorPtr> run(const std::string& type, std::vector<TensorPtr> ins,
                           std::map<std::string, AttrValue> attrs, int64_t opset = 17,
                           int nout = 1) {
  Graph g;
  g.opsetVersion = opset;
  std::vector<Value*> vin, vout;
  for (size_t i = 0; i < ins.size(); ++i)
    vin.push_back(ins[i] ? g.newConstant("in" + std::to_string(i), ins[i]) : nullptr);
  for (int i = 0; i < nout; ++i) vout.push_back(g.newValue("out" + std::to_string(i)));
  Node* n = g.addNode(type, "node", vin, vout);
  n->attrs = attrs;
  inferNode(g, *n);
  return evalNodeNative(g, *n);
}

// Reference softmax over groups: x viewed as [outer, len, inner].
std::vector<double> refSoftmax(const Tensor& x, int64_t outer, int64_t len, int64_t inner, int mode) {
  std::vector<double> r(x.type.numel());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      double m = -INFINITY, s = 0;
      int64_t bi = 0;
      for (int64_t i = 0; i < len; ++i) {
        double v = x.floatAt((o * len + i) * inner + j);
        if (v > m) { m = v; bi = i; }
      }
      for (int64_t i = 0; i < len; ++i) s += std::exp(x.floatAt((o * len + i) * inner + j) - m);
      for (int64_t i = 0; i < len; ++i) {
        int64_t k = (o * len + i) * inner + j;
        double v = x.floatAt(k);
        r[k] = mode == 0 ? std::exp(v - m) / s : mode == 1 ? v - m - std::log(s) : (i == bi ? 1 : 0);
      }
    }
  return r;
}

void expectClose(const Tensor& t, const std::vector<double>& ref, double rtol, double atol) {
  ASSERT_EQ((size_t)t.type.numel(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i)
    ASSERT_NEAR(t.floatAt(i), ref[i], atol + rtol * std::fabs(ref[i])) << "at " << i;
}

}  // namespace

TEST(Softmax, AxisSemanticsByOpset) {
  auto x = randT({2, 3, 4, 5}, 1);
  const char* ops[] = {"Softmax", "LogSoftmax", "Hardmax"};
  for (int mode = 0; mode < 3; ++mode) {
    SCOPED_TRACE(ops[mode]);
    // opset 13: single axis (default -1), and a middle axis.
    expectClose(*run(ops[mode], {x}, {}, 13)[0], refSoftmax(*x, 24, 5, 1, mode), 1e-6, 1e-7);
    expectClose(*run(ops[mode], {x}, {{"axis", (int64_t)1}}, 13)[0], refSoftmax(*x, 2, 3, 20, mode), 1e-6, 1e-7);
    expectClose(*run(ops[mode], {x}, {{"axis", (int64_t)-3}}, 13)[0], refSoftmax(*x, 2, 3, 20, mode), 1e-6, 1e-7);
    // opset 11: coerced to 2-D at axis (default 1).
    expectClose(*run(ops[mode], {x}, {}, 11)[0], refSoftmax(*x, 2, 60, 1, mode), 1e-6, 1e-7);
    expectClose(*run(ops[mode], {x}, {{"axis", (int64_t)2}}, 11)[0], refSoftmax(*x, 6, 20, 1, mode), 1e-6, 1e-7);
  }
}

TEST(Softmax, BertSizedRowsAndLargeValues) {
  auto x = randT({12, 128, 128}, 2, -30, 30);
  expectClose(*run("Softmax", {x}, {})[0], refSoftmax(*x, 12 * 128, 128, 1, 0), 2e-6, 1e-9);
  auto big = randT({3, 50}, 3, 500, 1000);  // needs the max shift
  auto r = run("Softmax", {big}, {});
  expectClose(*r[0], refSoftmax(*big, 3, 50, 1, 0), 2e-6, 1e-9);
  auto ls = run("LogSoftmax", {big}, {});
  expectClose(*ls[0], refSoftmax(*big, 3, 50, 1, 1), 1e-6, 1e-5);
}

TEST(Norm, BatchNormInference) {
  auto x = randT({2, 3, 4, 5}, 4);
  auto sc = randT({3}, 5, 0.5, 2), b = randT({3}, 6), mu = randT({3}, 7), var = randT({3}, 8, 0.1, 2);
  auto r = run("BatchNormalization", {x, sc, b, mu, var}, {{"epsilon", 1e-3}}, 15);
  std::vector<double> ref;
  for (int64_t i = 0; i < 120; ++i) {
    int c = (i / 20) % 3;
    ref.push_back((x->floatAt(i) - mu->floatAt(c)) / std::sqrt(var->floatAt(c) + 1e-3) * sc->floatAt(c) + b->floatAt(c));
  }
  expectClose(*r[0], ref, 1e-5, 1e-5);
  // Training outputs are refused.
  Graph g;
  std::vector<Value*> ins;
  for (auto t : {x, sc, b, mu, var}) ins.push_back(g.newConstant("c", t));
  Node* n = g.addNode("BatchNormalization", "bn", ins, {g.newValue("y"), g.newValue("m"), g.newValue("v")});
  n->attrs["training_mode"] = (int64_t)1;
  EXPECT_THROW(inferNode(g, *n), AtcError);
}

TEST(Norm, InstanceAndMeanVariance) {
  auto x = randT({2, 3, 4, 5}, 9);
  auto sc = randT({3}, 10), b = randT({3}, 11);
  auto r = run("InstanceNormalization", {x, sc, b}, {{"epsilon", 1e-5}});
  std::vector<double> ref(120);
  for (int nc = 0; nc < 6; ++nc) {
    double m = 0, v = 0;
    for (int i = 0; i < 20; ++i) m += x->floatAt(nc * 20 + i);
    m /= 20;
    for (int i = 0; i < 20; ++i) v += std::pow(x->floatAt(nc * 20 + i) - m, 2);
    v /= 20;
    for (int i = 0; i < 20; ++i)
      ref[nc * 20 + i] = (x->floatAt(nc * 20 + i) - m) / std::sqrt(v + 1e-5) * sc->floatAt(nc % 3) + b->floatAt(nc % 3);
  }
  expectClose(*r[0], ref, 1e-5, 1e-5);
  // MVN default axes [0, 2, 3]: statistics per channel over N and spatial.
  auto mv = run("MeanVarianceNormalization", {x}, {});
  for (int c = 0; c < 3; ++c) {
    double m = 0, v = 0;
    for (int n = 0; n < 2; ++n)
      for (int i = 0; i < 20; ++i) m += x->floatAt(n * 60 + c * 20 + i);
    m /= 40;
    for (int n = 0; n < 2; ++n)
      for (int i = 0; i < 20; ++i) v += std::pow(x->floatAt(n * 60 + c * 20 + i) - m, 2);
    v /= 40;
    for (int n = 0; n < 2; ++n)
      for (int i = 0; i < 20; ++i) {
        int64_t k = n * 60 + c * 20 + i;
        ASSERT_NEAR(mv[0]->floatAt(k), (x->floatAt(k) - m) / (std::sqrt(v) + 1e-9), 1e-5);
      }
  }
}

TEST(Norm, LayerNormWithStatistics) {
  auto x = randT({4, 7, 96}, 12);
  auto sc = randT({96}, 13), b = randT({96}, 14);
  auto r = run("LayerNormalization", {x, sc, b}, {{"epsilon", 1e-5}}, 17, 3);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[1]->type.str(), "float32[4,7,1]");
  for (int row = 0; row < 28; ++row) {
    double m = 0, v = 0;
    for (int i = 0; i < 96; ++i) m += x->floatAt(row * 96 + i);
    m /= 96;
    for (int i = 0; i < 96; ++i) v += std::pow(x->floatAt(row * 96 + i) - m, 2);
    v /= 96;
    double inv = 1 / std::sqrt(v + 1e-5);
    ASSERT_NEAR(r[1]->floatAt(row), m, 1e-5);
    ASSERT_NEAR(r[2]->floatAt(row), inv, 1e-4 * inv);
    for (int i = 0; i < 96; ++i)
      ASSERT_NEAR(r[0]->floatAt(row * 96 + i), (x->floatAt(row * 96 + i) - m) * inv * sc->floatAt(i) + b->floatAt(i), 2e-5);
  }
  // axis = 1 normalises the last two dims; no bias.
  auto sc2 = randT({7, 96}, 15);
  auto r2 = run("LayerNormalization", {x, sc2}, {{"axis", (int64_t)1}}, 17);
  for (int n = 0; n < 4; ++n) {
    double m = 0, v = 0;
    for (int i = 0; i < 672; ++i) m += x->floatAt(n * 672 + i);
    m /= 672;
    for (int i = 0; i < 672; ++i) v += std::pow(x->floatAt(n * 672 + i) - m, 2);
    v /= 672;
    for (int i = 0; i < 672; ++i)
      ASSERT_NEAR(r2[0]->floatAt(n * 672 + i), (x->floatAt(n * 672 + i) - m) / std::sqrt(v + 1e-5) * sc2->floatAt(i), 2e-5);
  }
}

TEST(Norm, LpNormalization) {
  auto x = randT({3, 4, 5}, 16);
  for (int64_t p : {1, 2})
    for (int64_t axis : {1, -1}) {
      auto r = run("LpNormalization", {x}, {{"p", p}, {"axis", axis}});
      int64_t a = axis < 0 ? 2 : axis;
      int64_t len = x->type.shape[a], inner = a == 1 ? 5 : 1, outer = a == 1 ? 3 : 12;
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < inner; ++j) {
          double s = 0;
          for (int64_t i = 0; i < len; ++i) {
            double v = x->floatAt((o * len + i) * inner + j);
            s += p == 1 ? std::fabs(v) : v * v;
          }
          if (p == 2) s = std::sqrt(s);
          for (int64_t i = 0; i < len; ++i) {
            int64_t k = (o * len + i) * inner + j;
            ASSERT_NEAR(r[0]->floatAt(k), x->floatAt(k) / s, 1e-6);
          }
        }
    }
}

// An all-zero slice has norm 0: its output is 0 (ONNX Runtime's result), not 0 * (1/0) = NaN.
TEST(Norm, LpNormalizationZeroSlice) {
  auto x = std::make_shared<Tensor>(TensorType(DType::F32, {3, 4}));
  const float v[12] = {3, 0, -4, 0, 0, 0, 0, 0, 1, 1, -1, 1};
  for (int i = 0; i < 12; ++i) x->as<float>()[i] = v[i];
  for (int64_t p : {1, 2}) {
    SCOPED_TRACE("p = " + std::to_string(p));
    auto r = run("LpNormalization", {x}, {{"p", p}, {"axis", (int64_t)1}});
    const double n0 = p == 1 ? 7 : 5, n2 = p == 1 ? 4 : 2;
    const double want[12] = {3 / n0, 0, -4 / n0, 0, 0, 0, 0, 0, 1 / n2, 1 / n2, -1 / n2, 1 / n2};
    for (int i = 0; i < 12; ++i) EXPECT_NEAR(r[0]->floatAt(i), want[i], 1e-6) << "at " << i;
    // Along axis 0, with x[2][1] zeroed: column 1 is all zeros, column 3 has one non-zero.
    auto c = std::make_shared<Tensor>(*x);
    c->as<float>()[9] = 0;
    auto r0 = run("LpNormalization", {c}, {{"p", p}, {"axis", (int64_t)0}});
    EXPECT_EQ(r0[0]->floatAt(1), 0.0);
    EXPECT_EQ(r0[0]->floatAt(5), 0.0);
    EXPECT_EQ(r0[0]->floatAt(9), 0.0);
    EXPECT_EQ(r0[0]->floatAt(3), 0.0);
    EXPECT_NEAR(r0[0]->floatAt(11), 1.0, 1e-6);
  }
}

// The explicit-vector row path (vec_math.h atck_softmax_row): row lengths below, at and
// above the 16-lane width, -inf entries (attention masks) giving exact zeros, and a NaN
// making its whole row NaN while the other rows stay finite.
TEST(Softmax, VectorRowsWithInfAndNan) {
  for (int64_t n : {1, 7, 8, 13, 16, 31, 64, 67}) {
    SCOPED_TRACE(n);
    auto x = randT({4, n}, 10 + (unsigned)n, -20, 20);
    float* d = x->as<float>();
    if (n > 2) d[1 * n + 2] = -INFINITY;
    d[2 * n + n - 1] = NAN;
    auto y = run("Softmax", {x}, {})[0];
    auto ref = refSoftmax(*x, 4, n, 1, 0);
    for (int64_t r = 0; r < 4; ++r) {
      double sum = 0;
      for (int64_t j = 0; j < n; ++j) {
        float v = y->as<float>()[r * n + j];
        if (r == 2) {
          EXPECT_TRUE(std::isnan(v)) << "row " << r << " col " << j;
          continue;
        }
        EXPECT_NEAR(v, ref[r * n + j], 2e-6 * std::fabs(ref[r * n + j]) + 1e-9) << "row " << r << " col " << j;
        sum += v;
      }
      if (r == 1 && n > 2) EXPECT_EQ(y->as<float>()[r * n + 2], 0.0f);
      if (r != 2) EXPECT_NEAR(sum, 1.0, 1e-5);
    }
  }
}
