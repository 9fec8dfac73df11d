// --fusion_switch_file forms and errors; fusion_result.json shape.
#include <gtest/gtest.h>

#include <algorithm>

#include "atc/fusion_result.h"
#include "atc/fusion_switch.h"
#include "support/diagnostics.h"

namespace {
using namespace atc;

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string errCode(const std::string& text) {
  try {
    parseFusionSwitchText(text, "sw.cfg");
  } catch (const AtcError& e) {
    return e.code();
  }
  return "";
}

TEST(FusionSwitch, JsonAllOffWithExceptions) {
  auto sw = parseFusionSwitchText(
      R"({"Switch":{"GraphFusion":{"ALL":"off","SoftmaxFusionPass":"on"},"UBFusion":{"ALL":"off","TbePool2dQuantFusionPass":"on"}}})",
      "sw.cfg");
  EXPECT_TRUE(has(sw.unknownNames, "TbePool2dQuantFusionPass"));
  PassOptions o;
  applyFusionSwitches(sw, o);
  EXPECT_FALSE(has(o.disabledPasses, "SoftmaxFusionPass"));  // exact name beats ALL
  EXPECT_TRUE(has(o.disabledPasses, "LayerNormFusionPass"));
  EXPECT_TRUE(has(o.disabledPasses, "TbeEltwiseFusionPass"));
  EXPECT_FALSE(has(o.disabledPasses, "constant_folding"));  // not a fusion pass
}

TEST(FusionSwitch, LineForm) {
  auto sw = parseFusionSwitchText("# comment\nGeluFusionPass:off\n\nTbeEltwiseFusionPass : off\nNpuOnlyPass:on\n", "sw.cfg");
  PassOptions o;
  applyFusionSwitches(sw, o);
  EXPECT_TRUE(has(o.disabledPasses, "GeluFusionPass"));
  EXPECT_TRUE(has(o.disabledPasses, "TbeEltwiseFusionPass"));
  EXPECT_FALSE(has(o.disabledPasses, "LayerNormFusionPass"));
  EXPECT_TRUE(has(sw.unknownNames, "NpuOnlyPass"));
}

TEST(FusionSwitch, Errors) {
  EXPECT_EQ(errCode(R"({"Switch":{"GraphFusion":{"GeluFusionPass":"maybe"}}})"), "E10003");
  EXPECT_EQ(errCode(R"({"Switch":{"GraphFusion":{"GeluFusionPass":"off","GeluFusionPass":"on"}}})"), "E10003");
  EXPECT_EQ(errCode(R"({"Switch":{"GraphFusion":{)"), "E10003");
  EXPECT_EQ(errCode(R"({"Other":{}})"), "E10003");
  EXPECT_EQ(errCode("GeluFusionPass off\n"), "E10003");
  EXPECT_EQ(errCode("GeluFusionPass:disabled\n"), "E10003");
  EXPECT_EQ(errCode("GeluFusionPass:off\nGeluFusionPass:on\n"), "E10003");
  EXPECT_EQ(errCode("GeluFusionPass:off\n"), "");
}

TEST(FusionResult, Shape) {
  std::vector<PassRecord> recs(3);
  recs[0].name = "GeluFusionPass"; recs[0].group = "graph_fusion"; recs[0].runs = 1;
  recs[0].stats.matchTimes = 2; recs[0].stats.effectTimes = 1;
  recs[1].name = "TbeEltwiseFusionPass"; recs[1].group = "ub_fusion"; recs[1].runs = 1;
  recs[2].name = "LayerNormFusionPass"; recs[2].group = "graph_fusion"; recs[2].skipped = true;
  EXPECT_EQ(fusionResultJson(recs),
            "{\n    \"session_and_graph_id_0_0\": {\n        \"graph_fusion\": {\n"
            "            \"GeluFusionPass\": {\n                \"effect_times\": \"1\",\n"
            "                \"match_times\": \"2\"\n            }\n        },\n"
            "        \"ub_fusion\": {\n            \"TbeEltwiseFusionPass\": {\n"
            "                \"effect_times\": \"0\",\n                \"match_times\": \"0\",\n"
            "                \"repository_hit_times\": \"0\"\n            }\n        }\n    }\n}\n");
}

}  // namespace
