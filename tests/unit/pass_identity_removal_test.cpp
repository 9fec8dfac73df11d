#include <gtest/gtest.h>

#include "pass_test_util.h"

using namespace atc;
using atc_test::runPass;

TEST(PassIdentityRemoval, ProducerTakesOverAGraphOutput) {
  auto g = parseGraph(
      "graph g(%x: float32[2]) -> (%y) {\n"
      "  %r: float32[2] = Relu(%x) {name=\"relu\"}\n"
      "  %y: float32[2] = Identity(%r) {name=\"id\"}\n"
      "}\n");
  auto r = runPass("identity_removal", *g);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.stats.effectTimes, 1);
  EXPECT_EQ(printGraph(*g),
            "graph g(%x: float32[2]) -> (%y) {\n"
            "  %y: float32[2] = Relu(%x) {name=\"relu\"}\n"
            "}\n");
}

TEST(PassIdentityRemoval, KeepsNodesThatWouldMergeGraphValues) {
  const std::string text =
      "graph g(%x: float32[2]) -> (%r, %y, %z) {\n"
      "  %r: float32[2] = Relu(%x) {name=\"relu\"}\n"
      "  %y: float32[2] = Identity(%r) {name=\"id1\"}\n"
      "  %z: float32[2] = Identity(%x) {name=\"id2\"}\n"
      "}\n";
  auto g = parseGraph(text);
  auto r = runPass("identity_removal", *g);
  EXPECT_FALSE(r.changed);
  EXPECT_EQ(r.stats.matchTimes, 2);
  EXPECT_EQ(r.stats.effectTimes, 0);
  EXPECT_EQ(printGraph(*g), text);
}

TEST(PassIdentityRemoval, ConstantInputBecomesAConstantOutput) {
  auto g = parseGraph(
      "graph g() -> (%y) {\n"
      "  %c: int64[2] = const [1, 2]\n"
      "  %y: int64[2] = Identity(%c) {name=\"id\"}\n"
      "}\n");
  EXPECT_TRUE(runPass("identity_removal", *g).changed);
  EXPECT_EQ(printGraph(*g),
            "graph g() -> (%y) {\n"
            "  %y: int64[2] = const [1, 2]\n"
            "}\n");
}

TEST(PassIdentityRemoval, DropoutOnlyWhenTheMaskIsUnusedAndNotTraining) {
  auto g = parseGraph(
      "graph g(%x: float32[2]) -> (%y, %m2) {\n"
      "  %d: float32[2], %m: bool[2] = Dropout(%x) {name=\"drop\"}\n"
      "  %y: float32[2] = Relu(%d) {name=\"relu\"}\n"
      "  %d2: float32[2], %m2: bool[2] = Dropout(%x) {name=\"drop_mask_used\"}\n"
      "  %t: bool[] = const [true]\n"
      "  %d3: float32[2] = Dropout(%x, _, %t) {name=\"drop_training\"}\n"
      "}\n");
  auto r = runPass("identity_removal", *g);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.stats.matchTimes, 1);
  EXPECT_EQ(g->findNode("drop"), nullptr);
  EXPECT_NE(g->findNode("drop_mask_used"), nullptr);
  EXPECT_NE(g->findNode("drop_training"), nullptr);
  EXPECT_EQ(g->findNode("relu")->inputs[0]->name, "x");
}
