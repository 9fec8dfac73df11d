// Golden IR-text tests of the fusion passes: tests/golden/fusion/<case>.before.ir is parsed,
// the passes on its "// passes:" line run in order, and the printed graph must equal
// <case>.after.ir. Then
//  - numbers: the before graph (cleanup passes only) and the after graph give the same
//    outputs with the native kernels ("// tol:" line, relative);
//  - switch-off: the fusion passes of the line switched off through a fusion switch file
//    (JSON form) leave the graph exactly as the cleanup passes alone leave it (unfused).
// ATC_UPDATE_GOLDEN=1 rewrites the .after.ir files.
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "atc/fusion_switch.h"
#include "ops/native_eval.h"
#include "ir/op_registry.h"
#include "ir/printer.h"
#include "passes/pass_manager.h"
#include "passes/pass_registry.h"
#include "tests/unit/pass_test_util.h"

using namespace atc;

namespace {

std::string dir() { return std::string(ATC_SOURCE_DIR) + "/tests/golden/fusion"; }

using atc_test::readFile;
using atc_test::words;

std::vector<std::string> cases() { return atc_test::goldenCases(dir()); }

bool isFusionPass(const std::string& name) {
  const PassInfo* p = findPass(name);
  return p && (std::string(p->group) == "graph_fusion" || std::string(p->group) == "ub_fusion");
}

// Outputs of the graph computed with the native kernels (deterministic random inputs).
std::vector<std::vector<double>> evalGraph(Graph& g) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  atc_test::runPass("final_inference", g);
  for (auto* in : g.inputs) {
    auto t = std::make_shared<Tensor>(in->type);
    for (int64_t i = 0; i < in->type.numel(); ++i) t->as<float>()[i] = dist(rng);
    in->constant = t;
  }
  for (auto& n : g.nodes()) {
    auto outs = evalNodeNative(g, *n);
    for (size_t i = 0; i < outs.size(); ++i) n->outputs[i]->constant = outs[i];
  }
  std::vector<std::vector<double>> r;
  for (auto* o : g.outputs) {
    std::vector<double> v;
    for (int64_t i = 0; i < o->type.numel(); ++i) v.push_back(o->constant->floatAt(i));
    r.push_back(v);
  }
  return r;
}

class FusionGolden : public testing::TestWithParam<std::string> {};

TEST_P(FusionGolden, TextNumbersAndSwitchOff) {
  std::string base = dir() + "/" + GetParam();
  std::string before = readFile(base + ".before.ir");
  auto passes = words(before, "// passes:");
  ASSERT_FALSE(passes.empty()) << "no // passes: line in " << base << ".before.ir";
  auto tolw = words(before, "// tol:");
  double tol = tolw.empty() ? 1e-5 : std::stod(tolw[0]);
  std::vector<std::string> fusion, cleanup;
  for (auto& p : passes) (isFusionPass(p) ? fusion : cleanup).push_back(p);

  auto g = parseGraph(before);
  for (auto& p : passes) atc_test::runPass(p, *g);
  std::string got = printGraph(*g);
  if (const char* u = std::getenv("ATC_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    std::ofstream(base + ".after.ir", std::ios::binary) << got;
  } else {
    EXPECT_EQ(got, readFile(base + ".after.ir")) << "golden case " << GetParam();
  }

  // Numbers: unfused (cleanup passes only) vs fused.
  auto ref = parseGraph(before);
  for (auto& p : cleanup) atc_test::runPass(p, *ref);
  std::string unfusedText = printGraph(*ref);
  auto a = evalGraph(*ref), b = evalGraph(*g);
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    ASSERT_EQ(a[k].size(), b[k].size());
    for (size_t i = 0; i < a[k].size(); ++i)
      ASSERT_NEAR(a[k][i], b[k][i], tol * (1 + std::fabs(a[k][i]))) << GetParam() << " output " << k << " elem " << i;
  }

  // Switch-off through a switch file (each pass in its own section): the graph stays unfused.
  std::string gf, ub;
  for (auto& p : fusion) {
    std::string& sec = std::string(findPass(p)->group) == "ub_fusion" ? ub : gf;
    sec += (sec.empty() ? "" : ",") + ("\"" + p + "\":\"off\"");
  }
  std::string sw = "{\"Switch\":{\"GraphFusion\":{" + gf + "},\"UBFusion\":{" + ub + "}}}";
  PassOptions opts;
  applyFusionSwitches(parseFusionSwitchText(sw, "golden.cfg"), opts);
  PassManager pm(opts);
  for (auto& p : passes) pm.addPass(p);
  auto off = parseGraph(before);
  pm.run(*off);
  bool required = false;
  for (auto& p : fusion) required = required || !findPass(p)->canDisable;
  if (!required) EXPECT_EQ(printGraph(*off), unfusedText) << "switched off, " << GetParam() << " must stay unfused";
}

INSTANTIATE_TEST_SUITE_P(Fusion, FusionGolden, testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
