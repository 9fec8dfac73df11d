#include <gtest/gtest.h>

#include "support/diagnostics.h"
#include "ir/printer.h"

using namespace atc;

namespace {

std::shared_ptr<Tensor> floats(const Shape& s, const std::vector<float>& v) {
  auto t = std::make_shared<Tensor>(TensorType(DType::F32, s));
  for (size_t i = 0; i < v.size(); ++i) t->as<float>()[i] = v[i];
  return t;
}

}  // namespace

TEST(IrPrinter, PrintsNodesConstantsAndSortedAttributes) {
  Graph g;
  g.name = "main";
  Value* x = g.newValue("x", TensorType(DType::F32, {1, 3}));
  g.inputs.push_back(x);
  Value* w = g.newConstant("w", floats({3}, {0.5f, 1.0f, -2.25f}));
  Value* y = g.newValue("y", TensorType(DType::F32, {1, 3}));
  Node* n = g.addNode("Mul", "mul1", {x, w}, {y});
  n->attrs["zeta"] = int64_t(3);
  n->attrs["alpha"] = 0.5;
  n->attrs["axes"] = std::vector<int64_t>{0, -1};
  n->attrs["mode"] = std::string("constant");
  g.outputs.push_back(y);
  EXPECT_EQ(printGraph(g),
            "graph main(%x: float32[1,3]) -> (%y) {\n"
            "  %w: float32[3] = const [0.5, 1.0, -2.25]\n"
            "  %y: float32[1,3] = Mul(%x, %w) {name=\"mul1\", alpha=0.5, axes=[0, -1], "
            "mode=\"constant\", zeta=3}\n"
            "}\n");
}

TEST(IrPrinter, LargeConstantsAreElidedWithAHash) {
  std::vector<float> v(100, 1.0f);
  auto t = floats({100}, v);
  std::string s = printTensorData(*t);
  EXPECT_EQ(s.rfind("<100 elements, fnv1a=", 0), 0u) << s;
  EXPECT_EQ(s, printTensorData(*floats({100}, v)));  // deterministic
}

TEST(IrPrinter, RoundTripsThroughTheParser) {
  const std::string text =
      "graph \"my graph\"(%\"in:0\": float32[2,2], %b: int64[]) -> (%y, %z) {\n"
      "  %c: int64[2] = const [2, 2]\n"
      "  %t: float32[2] = const [1.0, nan]\n"
      "  %a: float32[2,2], %m: bool[?] = Dropout(%\"in:0\", _, %b) {name=\"d\", domain=\"ai.test\", "
      "fused_from=[\"x\", \"y\"], empty=ints[], f=[1.5, 2.0], s=[\"p\", \"q\"], seed=-7, "
      "v=tensor<float32[2]>[3.0, 4.0]}\n"
      "  %y: float32[?,2] = Reshape(%a, %c) {name=\"r\"}\n"
      "  %z: undefined[?] = Add(%y, %t) {name=\"add\"}\n"
      "}\n";
  auto g = parseGraph(text);
  EXPECT_EQ(printGraph(*g), text);
  ASSERT_EQ(g->inputs.size(), 2u);
  EXPECT_EQ(g->inputs[0]->name, "in:0");
  Node* d = g->findNode("d");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->inputs[1], nullptr);
  EXPECT_EQ(d->domain, "ai.test");
  EXPECT_EQ(d->attrInt("seed", 0), -7);
  EXPECT_EQ(d->attrFloats("f").size(), 2u);
}

TEST(IrPrinter, ParserReportsTheLineOfAnError) {
  try {
    parseGraph("graph g(%x: float32[1]) -> (%y) {\n  %y: float32[1] = Relu(%x\n}\n");
    FAIL() << "expected an error";
  } catch (const AtcError& e) {
    EXPECT_EQ(e.code(), "E19999");
    EXPECT_NE(e.message().find("line 3"), std::string::npos) << e.message();
  }
  EXPECT_THROW(parseGraph("graph g() -> (%y) {\n}\n"), AtcError);  // %y never defined
  EXPECT_THROW(parseGraph("graph g() -> (%y) {\n  %y: float32[200] = const <200 elements, fnv1a=0>\n}\n"),
               AtcError);
}
