#include <gtest/gtest.h>

#include "ops/native_eval.h"
#include "ir/op_registry.h"

using namespace atc;

TEST(NativeEval, IdentityCopiesData) {
  Graph g;
  auto t = std::make_shared<Tensor>(TensorType(DType::F32, {2, 3}));
  for (int i = 0; i < 6; ++i) t->as<float>()[i] = (float)i * 1.5f;
  Value* in = g.newConstant("x", t);
  Value* out = g.newValue("y");
  Node* n = g.addNode("Identity", "id", {in}, {out});
  inferNode(g, *n);
  EXPECT_EQ(out->type.str(), "float32[2,3]");
  auto r = evalNodeNative(g, *n);
  ASSERT_EQ(r.size(), 1u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(r[0]->as<float>()[i], (float)i * 1.5f);
}
