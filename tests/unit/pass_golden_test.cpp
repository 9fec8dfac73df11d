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

std::string readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> words(const std::string& text, const std::string& key) {
  std::vector<std::string> r;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    std::istringstream ws(line.substr(key.size()));
    std::string w;
    while (ws >> w) r.push_back(w);
  }
  return r;
}

std::vector<std::string> goldenCases() {
  std::vector<std::string> r;
  if (DIR* d = opendir(goldenDir().c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      const std::string suffix = ".before.ir";
      if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
        r.push_back(n.substr(0, n.size() - suffix.size()));
    }
    closedir(d);
  }
  std::sort(r.begin(), r.end());
  return r;
}

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
