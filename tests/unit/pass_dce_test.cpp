#include <gtest/gtest.h>

#include "pass_test_util.h"

using namespace atc;
using atc_test::runPass;

TEST(PassDeadCodeElimination, RemovesUnusedBranchesKeepsInputs) {
  auto g = parseGraph(
      "graph g(%x: float32[2], %unused: float32[2]) -> (%y) {\n"
      "  %c: float32[2] = const [1.0, 2.0]\n"
      "  %a: float32[2] = Neg(%x) {name=\"dead1\"}\n"
      "  %b: float32[2] = Add(%a, %c) {name=\"dead2\"}\n"
      "  %y: float32[2] = Relu(%x) {name=\"live\"}\n"
      "}\n");
  auto r = runPass("dead_code_elimination", *g);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.stats.effectTimes, 2);
  EXPECT_EQ(printGraph(*g),
            "graph g(%x: float32[2], %unused: float32[2]) -> (%y) {\n"
            "  %y: float32[2] = Relu(%x) {name=\"live\"}\n"
            "}\n");
  EXPECT_EQ(g->findValue("c"), nullptr);  // pruned
  EXPECT_FALSE(runPass("dead_code_elimination", *g).changed);
}

TEST(PassDeadCodeElimination, KeepsMultiOutputNodesWithOneLiveOutput) {
  const std::string text =
      "graph g(%x: float32[4]) -> (%p) {\n"
      "  %p: float32[2], %q: float32[2] = Split(%x) {name=\"split\", axis=0}\n"
      "}\n";
  auto g = parseGraph(text);
  EXPECT_FALSE(runPass("dead_code_elimination", *g).changed);
  EXPECT_EQ(printGraph(*g), text);
}
