#include <gtest/gtest.h>

#include <cstdlib>

#include "support/diagnostics.h"
#include "passes/pass_manager.h"
#include "pass_test_util.h"

using namespace atc;

namespace {

// x -> Identity(a) -> t -> Identity(b) -> y
std::unique_ptr<Graph> identityChain() {
  return parseGraph(
      "graph g(%x: float32[2]) -> (%y) {\n"
      "  %t: float32[2] = Identity(%x) {name=\"a\"}\n"
      "  %y: float32[2] = Identity(%t) {name=\"b\"}\n"
      "}\n");
}

const PassRecord* record(const PassManager& pm, const std::string& name) {
  for (auto& r : pm.records())
    if (r.name == name) return &r;
  return nullptr;
}

}  // namespace

TEST(PassManager, DefaultPipelineIsTheRegistryOrder) {
  PassOptions opts;
  PassManager pm(opts);
  pm.addDefaultPipeline();
  auto names = pm.pipeline();
  ASSERT_GE(names.size(), 4u);
  EXPECT_EQ(names.front(), "constant_folding");
  EXPECT_EQ(names.back(), "final_inference");
  EXPECT_FALSE(findPass("constant_folding")->canDisable);
  EXPECT_FALSE(findPass("final_inference")->canDisable);
  EXPECT_TRUE(findPass("dead_code_elimination")->canDisable);
  EXPECT_EQ(findPass("no_such_pass"), nullptr);
}

TEST(PassManager, RunsWithStatisticsAndVerification) {
  PassOptions opts;
  PassManager pm(opts);
  pm.addDefaultPipeline();
  auto g = identityChain();
  EXPECT_TRUE(pm.run(*g));
  const PassRecord* r = record(pm, "identity_removal");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->runs, 1);
  EXPECT_EQ(r->stats.matchTimes, 2);
  EXPECT_EQ(r->stats.effectTimes, 1);  // b stays: its input is a graph input, its output a graph output
  EXPECT_EQ(g->nodes().size(), 1u);
}

TEST(PassManager, DisablesSwitchablePassesOnly) {
  PassOptions opts;
  opts.disabledPasses = {"identity_removal", "constant_folding"};
  PassManager pm(opts);
  pm.addDefaultPipeline();
  EXPECT_FALSE(pm.isEnabled("identity_removal"));
  EXPECT_TRUE(pm.isEnabled("constant_folding"));  // cannot be switched off
  auto g = identityChain();
  pm.run(*g);
  EXPECT_TRUE(record(pm, "identity_removal")->skipped);
  EXPECT_EQ(record(pm, "constant_folding")->runs, 1);
  EXPECT_EQ(g->nodes().size(), 2u);
}

TEST(PassManager, UnknownPassNamesAreErrors) {
  PassOptions opts;
  opts.disabledPasses = {"typo_pass"};
  try {
    PassManager pm(opts);
    FAIL();
  } catch (const AtcError& e) {
    EXPECT_EQ(e.code(), "E10001");
    EXPECT_NE(e.message().find("typo_pass"), std::string::npos);
  }
  PassOptions o2;
  PassManager pm(o2);
  EXPECT_THROW(pm.addPass("typo_pass"), AtcError);
}

TEST(PassManager, StopsAfterNPassesButRunsRequiredOnes) {
  PassOptions opts;
  opts.debug.stopAfterPasses = 1;
  PassManager pm(opts);
  pm.addDefaultPipeline();
  auto g = identityChain();
  pm.run(*g);
  EXPECT_EQ(record(pm, "constant_folding")->runs, 1);
  EXPECT_TRUE(record(pm, "identity_removal")->skipped);
  EXPECT_EQ(record(pm, "final_inference")->runs, 1);
}

TEST(PassManager, PrintsIrAfterANamedPass) {
  PassOptions opts;
  opts.debug.printIrAfter = {"identity_removal"};
  PassManager pm(opts);
  pm.addDefaultPipeline();
  auto g = identityChain();
  testing::internal::CaptureStderr();
  pm.run(*g);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("// ---- IR after pass identity_removal (changed) ----"), std::string::npos) << err;
  EXPECT_NE(err.find("%y: float32[2] = Identity(%x) {name=\"b\"}"), std::string::npos) << err;
  EXPECT_EQ(err.find("IR after pass dead_code_elimination"), std::string::npos);
}

TEST(PassManager, ReadsTheDebugEnvironment) {
  setenv("ATC_PRINT_IR_AFTER", "all", 1);
  setenv("ATC_DISABLE_PASSES", "identity_removal, dead_code_elimination", 1);
  setenv("ATC_STOP_AFTER_PASSES", "3", 1);
  setenv("ATC_VERIFY_EACH", "0", 1);
  PassOptions opts;
  applyPassDebugEnv(opts);
  unsetenv("ATC_PRINT_IR_AFTER");
  unsetenv("ATC_DISABLE_PASSES");
  unsetenv("ATC_VERIFY_EACH");
  EXPECT_TRUE(opts.debug.printIrAfterAll);
  ASSERT_EQ(opts.disabledPasses.size(), 2u);
  EXPECT_EQ(opts.disabledPasses[1], "dead_code_elimination");
  EXPECT_EQ(opts.debug.stopAfterPasses, 3);
  EXPECT_FALSE(opts.debug.verifyEach);
  setenv("ATC_STOP_AFTER_PASSES", "x", 1);
  PassOptions o2;
  EXPECT_THROW(applyPassDebugEnv(o2), AtcError);
  unsetenv("ATC_STOP_AFTER_PASSES");
}
