// Two models loaded at the same time in one process each run their own kernels. Their kernel
// libraries have the same symbols (k0, k1, ...): the runtime must never hand the second model
// the first one's library (dlopen finds an already loaded object by its path, and a memfd's
// /proc/self/fd/N path comes back when N is reused).
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "backend/om_builder.h"
#include "ir/op_registry.h"
#include "kernels/codegen/host_cpu.h"
#include "runtime/atc_runtime.h"

using namespace atc;

namespace {

// x[8] -> op -> y: the same shapes, the same kernel symbol k0, different code.
std::vector<uint8_t> unaryModel(const std::string& op) {
  Graph g;
  g.name = "same_name";
  g.opsetVersion = 17;
  Value* x = g.newValue("x", TensorType(DType::F32, {8}));
  g.inputs.push_back(x);
  Value* y = g.newValue("y");
  g.addNode(op, "op", {x}, {y});
  g.outputs = {y};
  inferGraph(g);
  BackendOptions o;
  o.cmdline = "test";
  return buildOm(g, o, loadHostTargetProfile("native"));
}

}  // namespace

TEST(RuntimeTwoModels, EachModelRunsItsOwnKernels) {
  std::vector<uint8_t> relu = unaryModel("Relu"), neg = unaryModel("Neg"), abs = unaryModel("Abs");
  float x[8] = {-3, -2, -1, 0, 1, 2, 3, 4}, y[8];
  auto check = [&](rt::Model& m, float (*f)(float), const char* what) {
    m.run({x}, {y});
    for (int i = 0; i < 8; ++i) EXPECT_EQ(y[i], f(x[i])) << what << " element " << i;
  };
  auto mRelu = rt::Model::loadFromMemory(relu.data(), relu.size(), 1);
  auto mNeg = rt::Model::loadFromMemory(neg.data(), neg.size(), 1);
  check(*mRelu, [](float v) { return v > 0 ? v : 0.f; }, "relu");
  check(*mNeg, [](float v) { return -v; }, "neg");
  // Unload one, load another: whatever number its file gets, it is its own library.
  mRelu.reset();
  auto mAbs = rt::Model::loadFromMemory(abs.data(), abs.size(), 1);
  check(*mAbs, [](float v) { return v < 0 ? -v : v; }, "abs");
  check(*mNeg, [](float v) { return -v; }, "neg after abs");
  auto mRelu2 = rt::Model::loadFromMemory(relu.data(), relu.size(), 1);
  check(*mRelu2, [](float v) { return v > 0 ? v : 0.f; }, "relu again");
  check(*mAbs, [](float v) { return v < 0 ? -v : v; }, "abs after relu");
}
