// atc's memory economy (docs/security.md "Memory and size"): packed weight copies shared by
// the nodes that read one constant the same way, originals freed once nothing reads them,
// and buildOm moving the weights into the .om image (the graph drops them) with the same
// bytes as a build that keeps them.
#include <gtest/gtest.h>

#include "backend/lowering.h"
#include "backend/om_builder.h"
#include "kernels/codegen/host_cpu.h"
#include "runtime/atc_runtime.h"
#include "runtime/om_format.h"

using namespace atc;

namespace {

// y = ((x @ W) @ W) @ W with one 32x32 constant W read by three MatMuls.
std::unique_ptr<Graph> sharedWeightGraph() {
  auto g = std::make_unique<Graph>();
  g->name = "shared";
  Value* x = g->newValue("x", TensorType(DType::F32, {4, 32}));
  g->inputs.push_back(x);
  auto w = std::make_shared<Tensor>(TensorType(DType::F32, {32, 32}));
  for (int i = 0; i < 32 * 32; ++i) w->as<float>()[i] = (float)((i * 7) % 13 - 6) / 16.0f;
  Value* wv = g->newConstant("w", w);
  Value* prev = x;
  for (int i = 0; i < 3; ++i) {
    Value* y = g->newValue("h" + std::to_string(i), TensorType(DType::F32, {4, 32}));
    g->addNode("MatMul", "mm" + std::to_string(i), {prev, wv}, {y});
    prev = y;
  }
  g->outputs = {prev};
  return g;
}

int constantsHeld(const Graph& g) {
  int n = 0;
  for (auto& v : g.values()) n += v->constant != nullptr;
  return n;
}

}  // namespace

TEST(BackendMemory, NodesReadingOneConstantShareOnePackedCopy) {
  auto g = sharedWeightGraph();
  lowerGraph(*g, loadHostTargetProfile("x86-64-v3"));
  Value* packed = nullptr;
  for (auto& n : g->nodes()) {
    ASSERT_TRUE(n->inputs[1]->isConstant());
    if (!packed) packed = n->inputs[1];
    EXPECT_EQ(n->inputs[1], packed) << n->name;  // one packed copy, not three
  }
  EXPECT_EQ(g->findValue("w"), nullptr);  // the unpacked original is freed and pruned
  EXPECT_EQ(constantsHeld(*g), 1);
}

TEST(BackendMemory, BuildOmMovesTheWeightsIntoTheImage) {
  auto keep = sharedWeightGraph(), moved = sharedWeightGraph();
  BackendOptions o;
  o.cmdline = "test";
  TargetProfile t = loadHostTargetProfile("x86-64-v3");
  std::vector<uint8_t> a = buildOm(*keep, o, t);
  EXPECT_EQ(constantsHeld(*keep), 1);
  o.releaseConstants = true;
  std::vector<uint8_t> b = buildOm(*moved, o, t);
  EXPECT_EQ(constantsHeld(*moved), 0);  // the graph dropped its weights once they were copied
  EXPECT_EQ(a, b);                      // and the .om holds the same bytes
  om::OmView v = om::parseOm(b.data(), b.size());
  uint64_t wsize = 0;
  v.part(om::kWeightsData, &wsize);
  EXPECT_EQ(wsize, 32u * 32u * 4u);  // one packed 32x32 panel set, stored once
  auto m = rt::Model::loadFromMemory(b.data(), b.size(), 1);
  std::vector<float> x(4 * 32, 0.5f), y(4 * 32);
  m->run({x.data()}, {y.data()});
  EXPECT_TRUE(std::isfinite(y[0]));
}
