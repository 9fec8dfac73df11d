// Golden-text pass tests: tests/golden/<case>.before.ir is parsed, the passes named on its
// "// passes:" line run in order, and the printed result must equal <case>.after.ir.
// A "// requires:" line names ops that must be registered (else the case is skipped).
// ATC_UPDATE_GOLDEN=1 rewrites the .after.ir files from the current output.
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "pass_test_util.h"

using namespace atc;

namespace {

std::string goldenDir() { return std::string(ATC_SOURCE_DIR) + "/tests/golden"; }

using atc_test::readFile;
using atc_test::words;

std::vector<std::string> goldenCases() { return atc_test::goldenCases(goldenDir()); }

class PassGolden : public testing::TestWithParam<std::string> {};

TEST_P(PassGolden, MatchesAfterText) {
  std::string base = goldenDir() + "/" + GetParam();
  std::string before = readFile(base + ".before.ir");
  for (auto& op : words(before, "// requires:"))
    if (!OpRegistry::instance().find(op)) GTEST_SKIP() << "op " << op << " is not registered yet";
  auto passes = words(before, "// passes:");
  ASSERT_FALSE(passes.empty()) << "no // passes: line in " << base << ".before.ir";
  auto g = parseGraph(before);
  for (auto& p : passes) atc_test::runPass(p, *g);
  std::string got = printGraph(*g);
  if (const char* u = std::getenv("ATC_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    std::ofstream(base + ".after.ir", std::ios::binary) << got;
    return;
  }
  EXPECT_EQ(got, readFile(base + ".after.ir")) << "golden case " << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Golden, PassGolden, testing::ValuesIn(goldenCases()),
                         [](const testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
