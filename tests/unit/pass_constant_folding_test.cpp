#include <gtest/gtest.h>

#include "ir/verifier.h"
#include "pass_test_util.h"

using namespace atc;
using atc_test::runPass;

TEST(PassConstantFolding, FoldsConstantNodesAndInfersTheRest) {
  auto g = parseGraph(
      "graph g(%x: float32[2]) -> (%y, %k) {\n"
      "  %c: float32[2] = const [1.5, -2.0]\n"
      "  %k: undefined[?] = Identity(%c) {name=\"fold_me\"}\n"
      "  %y: undefined[?] = Identity(%x) {name=\"keep_me\"}\n"
      "}\n");
  auto r = runPass("constant_folding", *g);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.stats.matchTimes, 1);
  EXPECT_EQ(r.stats.effectTimes, 1);
  EXPECT_EQ(printGraph(*g),
            "graph g(%x: float32[2]) -> (%y, %k) {\n"
            "  %k: float32[2] = const [1.5, -2.0]\n"
            "  %y: float32[2] = Identity(%x) {name=\"keep_me\"}\n"
            "}\n");
  EXPECT_TRUE(verifyGraphProblems(*g).empty());
}

TEST(PassConstantFolding, ShapeGatherConcatReshapeChainFolds) {
  ATC_REQUIRE_OPS("Shape", "Gather", "Concat", "Reshape");
  auto g = parseGraph(
      "graph g(%x: float32[2,3,4]) -> (%y) {\n"
      "  %i: int64[1] = const [0]\n"
      "  %m: int64[1] = const [-1]\n"
      "  %s: undefined[?] = Shape(%x) {name=\"shape\"}\n"
      "  %n: undefined[?] = Gather(%s, %i) {name=\"gather\", axis=0}\n"
      "  %c: undefined[?] = Concat(%n, %m) {name=\"concat\", axis=0}\n"
      "  %y: undefined[?] = Reshape(%x, %c) {name=\"reshape\"}\n"
      "}\n");
  auto r = runPass("constant_folding", *g);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.stats.effectTimes, 3);
  EXPECT_EQ(printGraph(*g),
            "graph g(%x: float32[2,3,4]) -> (%y) {\n"
            "  %c: int64[2] = const [2, -1]\n"
            "  %y: float32[2,12] = Reshape(%x, %c) {name=\"reshape\"}\n"
            "}\n");
}

TEST(PassConstantFolding, LeavesLargeCheapBroadcastsAsNodes) {
  ATC_REQUIRE_OPS("ConstantOfShape");
  auto g = parseGraph(
      "graph g() -> (%y) {\n"
      "  %s: int64[2] = const [2048, 1024]\n"
      "  %y: undefined[?] = ConstantOfShape(%s) {name=\"big\"}\n"
      "}\n");
  auto r = runPass("constant_folding", *g);
  EXPECT_FALSE(r.changed);
  ASSERT_NE(g->findNode("big"), nullptr);
  EXPECT_EQ(g->findValue("y")->type.str(), "float32[2048,1024]");
}

// CastLike between equal dtypes folds to input 0's value, and the dtype donor (a constant
// other nodes read) keeps its value: the byte copy once wrote 0.25 over %w[0] and folded %zc
// to 0.
TEST(PassConstantFolding, CastLikeFoldsWithoutTouchingItsDonor) {
  auto g = parseGraph(
      "graph g(%x: float32[3]) -> (%y, %y2) {\n"
      "  %z: float32[] = const [0.25]\n"
      "  %w: float32[3] = const [1.0, 2.0, 3.0]\n"
      "  %zc: undefined[?] = CastLike(%z, %w) {name=\"castlike\"}\n"
      "  %y: undefined[?] = Add(%x, %zc) {name=\"add\"}\n"
      "  %y2: undefined[?] = Add(%x, %w) {name=\"add2\"}\n"
      "}\n");
  auto r = runPass("constant_folding", *g);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(g->findNode("castlike"), nullptr);
  EXPECT_EQ(printGraph(*g),
            "graph g(%x: float32[3]) -> (%y, %y2) {\n"
            "  %zc: float32[] = const [0.25]\n"
            "  %w: float32[3] = const [1.0, 2.0, 3.0]\n"
            "  %y: float32[3] = Add(%x, %zc) {name=\"add\"}\n"
            "  %y2: float32[3] = Add(%x, %w) {name=\"add2\"}\n"
            "}\n");
}
