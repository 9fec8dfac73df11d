#include <gtest/gtest.h>

#include "support/diagnostics.h"
#include "ir/printer.h"
#include "ir/verifier.h"

using namespace atc;

namespace {

bool mentions(const std::vector<std::string>& problems, const std::string& what) {
  for (auto& p : problems)
    if (p.find(what) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(IrVerifier, AcceptsAValidGraph) {
  auto g = parseGraph(
      "graph g(%x: float32[2]) -> (%z) {\n"
      "  %y: float32[2] = Identity(%x) {name=\"a\"}\n"
      "  %z: float32[2] = Identity(%y) {name=\"b\"}\n"
      "}\n");
  EXPECT_TRUE(verifyGraphProblems(*g).empty());
  VerifyOptions vo;
  vo.requireStaticShapes = true;
  EXPECT_NO_THROW(verifyGraph(*g, vo));
}

TEST(IrVerifier, FindsUseBeforeDefinitionAndCycles) {
  auto g = parseGraph(
      "graph g(%x: float32[2]) -> (%z) {\n"
      "  %z: float32[2] = Identity(%y) {name=\"b\"}\n"
      "  %y: float32[2] = Identity(%z) {name=\"a\"}\n"
      "}\n");
  auto p = verifyGraphProblems(*g);
  EXPECT_TRUE(mentions(p, "used before it is defined")) << p.size();
  EXPECT_TRUE(mentions(p, "cycle"));
  EXPECT_THROW(verifyGraph(*g), AtcError);
}

TEST(IrVerifier, FindsCountAndNameProblems) {
  Graph g;
  Value* x = g.newValue("x", TensorType(DType::F32, {2}));
  g.inputs.push_back(x);
  Value* y = g.newValue("y", TensorType(DType::F32, {2}));
  Value* z = g.newValue("z", TensorType(DType::F32, {2}));
  g.addNode("Identity", "n", {x, x}, {y});  // too many inputs
  Node* second = g.addNode("Identity", "m", {y}, {z});
  second->name = "n";  // duplicate node name
  Node* unknown = g.addNode("NoSuchOp", "u", {z}, {g.newValue("w")});
  (void)unknown;
  Value* dangling = g.newValue("dangling", TensorType(DType::F32, {2}));
  g.outputs.push_back(z);
  g.outputs.push_back(dangling);
  auto p = verifyGraphProblems(g);
  EXPECT_TRUE(mentions(p, "2 inputs, expected 1..1"));
  EXPECT_TRUE(mentions(p, "node name n is used twice"));
  EXPECT_TRUE(mentions(p, "not registered"));
  EXPECT_TRUE(mentions(p, "graph output %dangling is not defined"));
}

TEST(IrVerifier, StaticShapesWhenRequired) {
  auto g = parseGraph(
      "graph g(%x: float32[?]) -> (%y) {\n"
      "  %y: float32[?] = Identity(%x) {name=\"a\"}\n"
      "}\n");
  EXPECT_TRUE(verifyGraphProblems(*g).empty());
  VerifyOptions vo;
  vo.requireStaticShapes = true;
  EXPECT_TRUE(mentions(verifyGraphProblems(*g, vo), "no static type"));
}
