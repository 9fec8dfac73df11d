// Concat without copies (backend/buffer_plan.cpp sliceConcat): producers write straight into
// their slices of the Concat's output and the Concat step disappears from the plan, where the
// slices are contiguous (only 1s before the axis) and every input is the sole-use output of an
// earlier step; otherwise (and in oom builds, whose red zones would be the other slices) the
// Concat copies as before. Outputs are checked against the values
// computed here in both cases.
#include <gtest/gtest.h>

#include <cmath>

#include "backend/om_builder.h"
#include "kernels/codegen/host_cpu.h"
#include "runtime/atc_runtime.h"
#include "runtime/om_format.h"

using namespace atc;

namespace {

// y = Concat(Relu(x), Sigmoid(x), Neg(x); axis 1) * 2 (+ Relu(x) as a second output when
// `shareRelu`): x [N, 3, 4, 5].
std::unique_ptr<Graph> concatGraph(int64_t N, bool shareRelu) {
  auto g = std::make_unique<Graph>();
  g->name = "concat_slices";
  const Shape xs = {N, 3, 4, 5};
  Value* x = g->newValue("x", TensorType(DType::F32, xs));
  g->inputs.push_back(x);
  Value* a = g->newValue("a", TensorType(DType::F32, xs));
  Value* b = g->newValue("b", TensorType(DType::F32, xs));
  Value* c = g->newValue("c", TensorType(DType::F32, xs));
  g->addNode("Relu", "relu", {x}, {a});
  g->addNode("Sigmoid", "sigmoid", {x}, {b});
  g->addNode("Neg", "neg", {x}, {c});
  Value* cat = g->newValue("cat", TensorType(DType::F32, {N, 9, 4, 5}));
  Node* cn = g->addNode("Concat", "concat", {a, b, c}, {cat});
  cn->attrs["axis"] = int64_t(1);
  auto two = std::make_shared<Tensor>(TensorType(DType::F32, {}));
  two->as<float>()[0] = 2.0f;
  Value* y = g->newValue("y", TensorType(DType::F32, {N, 9, 4, 5}));
  g->addNode("Mul", "mul", {cat, g->newConstant("two", two)}, {y});
  g->outputs = {y};
  if (shareRelu) g->outputs.push_back(a);
  return g;
}

// Builds and runs the graph; returns whether the plan still has a Concat step.
bool buildAndCheck(int64_t N, bool shareRelu, bool oom = false) {
  auto g = concatGraph(N, shareRelu);
  BackendOptions o;
  o.cmdline = "test";
  if (oom) {  // red zones around every region: they would lie in the neighbouring slices
    o.oomBoundsCheck = true;
    o.oomRedzone = 256;
  }
  std::vector<uint8_t> om1 = buildOm(*g, o, loadHostTargetProfile("x86-64-v3"));
  om::OmView v = om::parseOm(om1.data(), om1.size());
  const bool concatStep = v.partString(om::kTaskInfo).find("\"type\":\"Concat\"") != std::string::npos;
  const int64_t n = N * 3 * 4 * 5;
  std::vector<float> x(n), y(3 * n), a(n);
  for (int64_t i = 0; i < n; ++i) x[i] = (float)((i * 37) % 23 - 11) / 4.0f;
  auto m = rt::Model::loadFromMemory(om1.data(), om1.size(), 1);
  std::vector<float*> outs = {y.data()};
  if (shareRelu) outs.push_back(a.data());
  m->run({x.data()}, std::vector<void*>(outs.begin(), outs.end()));
  for (int64_t b = 0; b < N; ++b)
    for (int64_t k = 0; k < 3; ++k)
      for (int64_t i = 0; i < 60; ++i) {
        const float xv = x[b * 60 + i];
        const float want = k == 0 ? (xv < 0 ? 0.0f : xv) : k == 1 ? 1.0f / (1.0f + std::exp(-xv)) : -xv;
        EXPECT_NEAR(y[(b * 3 + k) * 60 + i], 2.0f * want, 1e-6f) << "image " << b << " part " << k << " at " << i;
      }
  if (shareRelu)
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(a[i], x[i] < 0 ? 0.0f : x[i]);
  return concatStep;
}

}  // namespace

TEST(BackendConcatSlices, ProducersWriteIntoTheirSlices) {
  EXPECT_FALSE(buildAndCheck(1, false));  // one image: three contiguous slices, no Concat step
}

TEST(BackendConcatSlices, CopiesWhereSlicesAreNotContiguousOrShared) {
  EXPECT_TRUE(buildAndCheck(2, false));  // two images: each input is two separate ranges
  EXPECT_TRUE(buildAndCheck(1, true));   // Relu(x) is also a graph output
  EXPECT_TRUE(buildAndCheck(1, false, true));  // an oom build
}
