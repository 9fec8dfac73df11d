// Reductions and ArgMax/ArgMin through the native kernels against references computed
// here: all ops, several axes sets (contiguous, non-contiguous, negative, empty), keepdims,
// axes as input (opset 13 ReduceSum), noop_with_empty_axes, int dtypes, NaN/inf.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ops/native_eval.h"
#include "support/diagnostics.h"
#include "ir/op_registry.h"

using namespace atc;

namespace {

std::shared_ptr<Tensor> makeF(Shape s, unsigned seed, double lo = -2, double hi = 2) {
  auto t = std::make_shared<Tensor>(TensorType(DType::F32, s));
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u((float)lo, (float)hi);
  for (int64_t i = 0; i < t->type.numel(); ++i) t->as<float>()[i] = u(g);
  return t;
}

std::vector<TensorPtr> run(const std::string& type, std::vector<TensorPtr> ins,
                           std::map<std::string, AttrValue> attrs, TensorType* outType = nullptr,
                           int64_t opset = 13) {
  Graph g;
  g.opsetVersion = opset;
  std::vector<Value*> vin;
  for (size_t i = 0; i < ins.size(); ++i) vin.push_back(g.newConstant("in" + std::to_string(i), ins[i]));
  Node* n = g.addNode(type, "node", vin, {g.newValue("out")});
  n->attrs = attrs;
  inferNode(g, *n);
  if (outType) *outType = n->outputs[0]->type;
  return evalNodeNative(g, *n);
}

// Reference reduction (double precision) of x over axes.
std::vector<double> refReduce(const std::string& op, const Tensor& x, std::vector<int64_t> axes) {
  const Shape& s = x.type.shape;
  int64_t rank = s.size();
  std::vector<bool> red(rank, false);
  for (auto a : axes) red[a < 0 ? a + rank : a] = true;
  if (axes.empty()) red.assign(rank, true);
  int64_t nout = 1, nred = 1;
  for (int64_t d = 0; d < rank; ++d) (red[d] ? nred : nout) *= s[d];
  std::vector<std::vector<double>> groups(nout);
  for (int64_t i = 0; i < x.type.numel(); ++i) {
    int64_t rem = i, o = 0, mul = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t c = rem % s[d];
      rem /= s[d];
      if (!red[d]) {
        o += c * mul;
        mul *= s[d];
      }
    }
    groups[o].push_back(x.floatAt(i));
  }
  std::vector<double> r;
  for (auto& g : groups) {
    double acc = 0;
    if (op == "ReduceSum" || op == "ReduceMean") {
      for (double v : g) acc += v;
      if (op == "ReduceMean") acc /= (double)g.size();
    } else if (op == "ReduceMax") {
      acc = -INFINITY;
      for (double v : g) acc = std::max(acc, v);
    } else if (op == "ReduceMin") {
      acc = INFINITY;
      for (double v : g) acc = std::min(acc, v);
    } else if (op == "ReduceProd") {
      acc = 1;
      for (double v : g) acc *= v;
    } else if (op == "ReduceL1") {
      for (double v : g) acc += std::fabs(v);
    } else if (op == "ReduceL2") {
      for (double v : g) acc += v * v;
      acc = std::sqrt(acc);
    } else if (op == "ReduceLogSum") {
      for (double v : g) acc += v;
      acc = std::log(acc);
    } else if (op == "ReduceLogSumExp") {
      for (double v : g) acc += std::exp(v);
      acc = std::log(acc);
    } else if (op == "ReduceSumSquare") {
      for (double v : g) acc += v * v;
    }
    r.push_back(acc);
  }
  return r;
}

void expectClose(const Tensor& t, const std::vector<double>& ref, double rtol, double atol) {
  ASSERT_EQ((size_t)t.type.numel(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i) {
    double v = t.floatAt(i);
    if (std::isnan(ref[i])) EXPECT_TRUE(std::isnan(v)) << i;
    else if (std::isinf(ref[i])) EXPECT_EQ(v, ref[i]) << i;
    else EXPECT_NEAR(v, ref[i], atol + rtol * std::fabs(ref[i])) << "at " << i;
  }
}

}  // namespace

TEST(Reduce, AllOpsManyAxes) {
  const char* ops[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                       "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"};
  std::vector<std::vector<int64_t>> axesSets = {{0}, {1}, {2}, {3}, {-1}, {1, 2}, {2, 3}, {0, 2}, {1, 3}, {0, 1, 2, 3}, {}};
  auto x = makeF({3, 4, 5, 37}, 7, 0.5, 1.5);  // positive: LogSum / Prod stay finite
  for (const char* op : ops)
    for (auto& axes : axesSets)
      for (int64_t keep : {0, 1}) {
        SCOPED_TRACE(std::string(op) + " axes=" + std::to_string(axes.size() ? axes[0] : 99) +
                     (axes.size() > 1 ? "," + std::to_string(axes[1]) : "") + " keep=" + std::to_string(keep));
        std::map<std::string, AttrValue> attrs = {{"keepdims", keep}};
        if (!axes.empty()) attrs["axes"] = axes;
        TensorType ot;
        auto r = run(op, {x}, attrs, &ot, 11);
        auto ref = refReduce(op, *x, axes);
        expectClose(*r[0], ref, std::string(op) == "ReduceProd" ? 1e-4 : 2e-6, 1e-6);
        // Output shape.
        Shape want;
        for (int64_t d = 0; d < 4; ++d) {
          bool red = axes.empty();
          for (auto a : axes) red |= (a < 0 ? a + 4 : a) == d;
          if (!red) want.push_back(x->type.shape[d]);
          else if (keep) want.push_back(1);
        }
        EXPECT_EQ(ot.shape, want);
      }
}

TEST(Reduce, LargeContiguousAndStrided) {
  // BERT-like mean over the last axis, and a reduction over a leading axis (vector mode).
  auto x = makeF({256, 768}, 3);
  auto r = run("ReduceMean", {x}, {{"axes", std::vector<int64_t>{-1}}});
  expectClose(*r[0], refReduce("ReduceMean", *x, {1}), 1e-5, 1e-6);
  auto r0 = run("ReduceSum", {x}, {{"axes", std::vector<int64_t>{0}}, {"keepdims", (int64_t)0}}, nullptr, 11);
  expectClose(*r0[0], refReduce("ReduceSum", *x, {0}), 1e-5, 1e-5);
  auto lse = run("ReduceLogSumExp", {makeF({4, 1000}, 5, -50, 120)}, {{"axes", std::vector<int64_t>{1}}});
  EXPECT_TRUE(std::isfinite(lse[0]->floatAt(0)));
}

TEST(Reduce, AxesInputAndNoop) {
  auto x = makeF({2, 3, 4}, 9);
  auto axes = std::make_shared<Tensor>(TensorType(DType::I64, {1}));
  axes->as<int64_t>()[0] = -2;
  TensorType ot;
  auto r = run("ReduceSum", {x, axes}, {{"keepdims", (int64_t)0}}, &ot, 13);
  EXPECT_EQ(ot.str(), "float32[2,4]");
  expectClose(*r[0], refReduce("ReduceSum", *x, {1}), 1e-6, 1e-6);
  auto empty = std::make_shared<Tensor>(TensorType(DType::I64, {0}));
  auto rn = run("ReduceSum", {x, empty}, {{"noop_with_empty_axes", (int64_t)1}}, &ot, 13);
  EXPECT_EQ(ot.str(), "float32[2,3,4]");
  for (int i = 0; i < 24; ++i) EXPECT_EQ(rn[0]->floatAt(i), x->floatAt(i));
  auto ra = run("ReduceSum", {x, empty}, {}, &ot, 13);
  EXPECT_EQ(ot.str(), "float32[1,1,1]");
  expectClose(*ra[0], refReduce("ReduceSum", *x, {}), 1e-6, 1e-6);
  // Axes fed at run time: an output bounded by X whose shape depends on data
  // (data_shaped_outputs_test.cpp runs it); axes that are not int64 or not 1-D are refused.
  Graph g;
  Value* gx = g.newValue("x", TensorType(DType::F32, {2, 3}));
  Node* n = g.addNode("ReduceSum", "r", {gx, g.newValue("a", TensorType(DType::I64, {1}))}, {g.newValue("y")});
  inferNode(g, *n);
  EXPECT_TRUE(n->outputs[0]->shapeFromData);
  EXPECT_EQ(n->outputs[0]->type.str(), "float32[2,3]");
  Node* bad = g.addNode("ReduceSum", "b", {gx, g.newValue("a32", TensorType(DType::I32, {1}))}, {g.newValue("y2")});
  EXPECT_THROW(inferNode(g, *bad), AtcError);
  Node* bad2 = g.addNode("ReduceSum", "c", {gx, g.newValue("a2", TensorType(DType::I64, {1, 1}))}, {g.newValue("y3")});
  EXPECT_THROW(inferNode(g, *bad2), AtcError);
}

TEST(Reduce, IntegerAndSpecialValues) {
  auto xi = std::make_shared<Tensor>(TensorType(DType::I64, {2, 3}));
  int64_t vals[] = {1, -5, 3, 4, 10, -6};
  for (int i = 0; i < 6; ++i) xi->as<int64_t>()[i] = vals[i];
  auto s = run("ReduceSum", {xi}, {{"axes", std::vector<int64_t>{1}}}, nullptr, 11);
  EXPECT_EQ(s[0]->as<int64_t>()[0], -1);
  EXPECT_EQ(s[0]->as<int64_t>()[1], 8);
  auto mx = run("ReduceMax", {xi}, {{"axes", std::vector<int64_t>{0}}}, nullptr, 11);
  EXPECT_EQ(mx[0]->as<int64_t>()[1], 10);
  auto pr = run("ReduceProd", {xi}, {}, nullptr, 11);
  EXPECT_EQ(pr[0]->as<int64_t>()[0], 1 * -5 * 3 * 4 * 10 * -6);
  auto xf = std::make_shared<Tensor>(TensorType(DType::F32, {2, 2}));
  float fv[] = {NAN, 1, -INFINITY, -INFINITY};
  for (int i = 0; i < 4; ++i) xf->as<float>()[i] = fv[i];
  auto m = run("ReduceMax", {xf}, {{"axes", std::vector<int64_t>{1}}}, nullptr, 11);
  EXPECT_TRUE(std::isnan(m[0]->floatAt(0)));
  EXPECT_EQ(m[0]->floatAt(1), -INFINITY);
  auto l = run("ReduceLogSumExp", {xf}, {{"axes", std::vector<int64_t>{1}}}, nullptr, 11);
  EXPECT_EQ(l[0]->floatAt(1), -INFINITY);
}

TEST(ArgReduce, MaxMinKeepLast) {
  auto x = std::make_shared<Tensor>(TensorType(DType::F32, {2, 3, 2}));
  float v[] = {1, 5, 3, 5, 3, 0,   -1, 2, -1, 2, -7, 2};
  for (int i = 0; i < 12; ++i) x->as<float>()[i] = v[i];
  TensorType ot;
  auto a = run("ArgMax", {x}, {{"axis", (int64_t)1}}, &ot);
  EXPECT_EQ(ot.str(), "int64[2,1,2]");
  std::vector<int64_t> want = {1, 0, 0, 0};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(a[0]->as<int64_t>()[i], want[i]) << i;
  auto al = run("ArgMax", {x}, {{"axis", (int64_t)1}, {"select_last_index", (int64_t)1}, {"keepdims", (int64_t)0}}, &ot);
  EXPECT_EQ(ot.str(), "int64[2,2]");
  want = {2, 1, 1, 2};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(al[0]->as<int64_t>()[i], want[i]) << i;
  auto mn = run("ArgMin", {x}, {{"axis", (int64_t)-1}}, &ot);
  EXPECT_EQ(ot.str(), "int64[2,3,1]");
  want = {0, 0, 1, 0, 0, 0};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(mn[0]->as<int64_t>()[i], want[i]) << i;
  auto big = makeF({3, 5000}, 4);
  auto ab = run("ArgMax", {big}, {{"axis", (int64_t)1}});
  for (int r = 0; r < 3; ++r) {
    int64_t bi = 0;
    for (int j = 1; j < 5000; ++j)
      if (big->floatAt(r * 5000 + j) > big->floatAt(r * 5000 + bi)) bi = j;
    EXPECT_EQ(ab[0]->as<int64_t>()[r], bi);
  }
}
