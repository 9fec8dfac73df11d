// Implementation modes: option parsing (--op_select_implmode, --optypelist_for_implmode,
// --op_precision_mode ini) and the precedence rules of resolveImplMode / the pass.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "atc/implmode_options.h"
#include "atc/options.h"
#include "support/diagnostics.h"
#include "ops/impl_variant.h"
#include "passes/implmode/implmode_select.h"
#include "passes/pass.h"

using namespace atc;

namespace atc {
bool runImplModeSelection(Graph& g, PassContext& ctx);
}

namespace {

std::string writeTemp(const std::string& text) {
  char name[] = "/tmp/implmode_test_XXXXXX";
  int fd = mkstemp(name);
  close(fd);
  std::ofstream(name) << text;
  return name;
}

// Parses a command line (model/framework/output/soc given) with extra options.
ImplModeOptions parse(std::vector<std::string> extra) {
  std::vector<std::string> args = {"atc", "--model=m.onnx", "--framework=5", "--output=o", "--soc_version=Ascend310"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<const char*> argv;
  for (auto& a : args) argv.push_back(a.c_str());
  AtcOptions o;
  std::ostringstream help;
  parseCommandLine((int)argv.size(), argv.data(), o, help);
  return o.passes.implmode;
}

std::string errorCode(std::vector<std::string> extra) {
  try {
    parse(extra);
  } catch (const AtcError& e) {
    return e.code();
  }
  return "";
}

ImplChoice resolve(const ImplModeOptions& o, const std::string& type, std::vector<std::string> names = {"n"}) {
  return resolveImplMode(o, type, names);
}

}  // namespace

TEST(ImplModeOptions, DefaultIsHighPerformance) {
  ImplModeOptions o = parse({});
  EXPECT_EQ(resolve(o, "Softmax").mode, "high_performance");
  EXPECT_EQ(resolve(o, "Softmax").reason, "op_select_implmode=high_performance (built-in list)");
  EXPECT_EQ(resolve(o, "Log").reason, "default");  // Log: not in the built-in high_performance list
  EXPECT_EQ(resolve(o, "Relu").mode, "");          // one implementation: nothing to choose
}

TEST(ImplModeOptions, HighPrecisionAppliesToBuiltinListOnly) {
  ImplModeOptions o = parse({"--op_select_implmode=high_precision"});
  EXPECT_EQ(resolve(o, "Softmax").mode, "high_precision");
  EXPECT_EQ(resolve(o, "Gelu").mode, "high_precision");
  EXPECT_EQ(resolve(o, "Tanh").mode, "high_performance");  // not in high_precision's list
  EXPECT_EQ(resolve(o, "Tanh").reason, "default");
}

TEST(ImplModeOptions, ForAllAppliesToEveryOpWithBothModes) {
  ImplModeOptions o = parse({"--op_select_implmode=high_precision_for_all"});
  for (const char* t : {"Exp", "Log", "Tanh", "Sigmoid", "Erf", "Gelu", "Softmax", "LayerNormalization",
                        "ReduceSum", "ReduceMean"}) {
    EXPECT_EQ(resolve(o, t).mode, "high_precision") << t;
    EXPECT_EQ(resolve(o, t).reason, "op_select_implmode=high_precision_for_all") << t;
  }
  // Gather has no high_precision implementation: its only compute implementation is used.
  EXPECT_EQ(resolve(o, "Gather").mode, "high_performance");
  EXPECT_NE(resolve(o, "Gather").reason.find("not implemented by Gather"), std::string::npos);
  EXPECT_EQ(resolve(o, "Relu").mode, "");
  ImplModeOptions p = parse({"--op_select_implmode=high_performance_for_all"});
  EXPECT_EQ(resolve(p, "Log").mode, "high_performance");
  EXPECT_EQ(resolve(p, "Log").reason, "op_select_implmode=high_performance_for_all");
}

TEST(ImplModeOptions, OptypelistReplacesTheBuiltinList) {
  ImplModeOptions o = parse({"--op_select_implmode=high_precision", "--optypelist_for_implmode=Tanh, Exp"});
  ASSERT_EQ(o.optypelist.size(), 2u);
  EXPECT_EQ(resolve(o, "Tanh").mode, "high_precision");
  EXPECT_EQ(resolve(o, "Tanh").reason, "op_select_implmode=high_precision, optypelist_for_implmode");
  EXPECT_EQ(resolve(o, "Exp").mode, "high_precision");
  EXPECT_EQ(resolve(o, "Softmax").reason, "default");  // built-in list not used
}

TEST(ImplModeOptions, Errors) {
  EXPECT_EQ(errorCode({"--op_select_implmode=fastest"}), "E10001");
  EXPECT_EQ(errorCode({"--optypelist_for_implmode=Softmax"}), "E10001");  // needs --op_select_implmode
  EXPECT_EQ(errorCode({"--op_select_implmode=high_precision_for_all", "--optypelist_for_implmode=Softmax"}),
            "E10001");
  EXPECT_EQ(errorCode({"--op_select_implmode=high_precision", "--optypelist_for_implmode=Softmax,,Exp"}), "E10001");
  EXPECT_EQ(errorCode({"--op_precision_mode=/nonexistent/op_precision.ini"}), "E10003");
  EXPECT_EQ(errorCode({"--op_select_implmode=high_performance", "--optypelist_for_implmode=Exp"}), "");
}

TEST(ImplModeOptions, IniErrors) {
  auto code = [](const std::string& text) {
    ImplModeOptions o;
    try {
      parseOpPrecisionIni(text, "op.ini", o);
    } catch (const AtcError& e) {
      return e.code() + ": " + e.what();
    }
    return std::string();
  };
  EXPECT_NE(code("Softmax=high_precision\n"), "");                      // before any section
  EXPECT_NE(code("[ByWhat]\nSoftmax=high_precision\n"), "");              // unknown section
  EXPECT_NE(code("[ByOpType]\nSoftmax=fast\n"), "");                      // unknown mode
  EXPECT_NE(code("[ByOpType]\nSoftmax\n"), "");                           // no '='
  EXPECT_NE(code("[ByOpType]\nSoftmax=high_precision\nSoftmax=keep_fp16\n").find("line 3"), std::string::npos);
  EXPECT_EQ(code("# comment\n[ByOpType]\n  Softmax = high_precision \n\n[ByNodeName]\na/b=keep_fp16\n"), "");
}

TEST(ImplModeOptions, IniPrecedence) {
  std::string ini = writeTemp(
      "[ByOpType]\n"
      "Softmax=high_precision\n"
      "Exp=super_performance\n"
      "Gather=support_out_of_bound_index\n"
      "[ByNodeName]\n"
      "sm_fast=high_performance\n"
      "orig_gelu=keep_fp16\n"
      "relu1=high_precision\n");
  // The ini wins over --op_select_implmode (which is then ignored entirely).
  ImplModeOptions o = parse({"--op_precision_mode=" + ini, "--op_select_implmode=high_precision_for_all"});
  std::remove(ini.c_str());
  EXPECT_EQ(resolve(o, "Softmax", {"sm1"}).mode, "high_precision");
  EXPECT_EQ(resolve(o, "Softmax", {"sm1"}).reason, "op_precision_mode [ByOpType] line 2");
  // [ByNodeName] beats [ByOpType].
  EXPECT_EQ(resolve(o, "Softmax", {"sm_fast"}).mode, "high_performance");
  EXPECT_EQ(resolve(o, "Softmax", {"sm_fast"}).reason, "op_precision_mode [ByNodeName] line 6");
  // Original names of fused nodes match too.
  EXPECT_EQ(resolve(o, "Gelu", {"Gelu_fused_3", "orig_mul", "orig_gelu"}).mode, "keep_fp16");
  EXPECT_EQ(resolve(o, "Exp").mode, "super_performance");
  EXPECT_EQ(resolve(o, "Gather").mode, "support_out_of_bound_index");
  // Ops not in the ini keep their default, whatever --op_select_implmode says.
  EXPECT_EQ(resolve(o, "Tanh").mode, "high_performance");
  EXPECT_EQ(resolve(o, "Tanh").reason, "default");
  // One implementation only: nothing recorded.
  EXPECT_EQ(resolve(o, "Relu", {"relu1"}).mode, "");
  // A mode the op lacks: its default, with the reason saying so.
  ImplModeOptions k;
  k.iniFile = "x.ini";
  k.byOpType["ReduceSum"] = {"super_performance", 3};
  EXPECT_EQ(resolve(k, "ReduceSum").mode, "high_performance");
  EXPECT_NE(resolve(k, "ReduceSum").reason.find("op_precision_mode [ByOpType] line 3"), std::string::npos);
}

TEST(ImplModePass, SetsAttributesAndVariants) {
  Graph g;
  Value* x = g.newValue("x");
  Value* y = g.newValue("y");
  Value* z = g.newValue("z");
  Node* sm = g.addNode("Softmax", "sm", {x}, {y});
  Node* relu = g.addNode("Relu", "relu", {y}, {z});
  sm->originalNames = {"orig_exp"};
  PassOptions po;
  po.implmode.iniFile = "x.ini";
  po.implmode.byNodeName["orig_exp"] = {"high_precision", 7};
  PassContext ctx(po);
  EXPECT_TRUE(runImplModeSelection(g, ctx));
  EXPECT_EQ(sm->attrString("_impl_mode", ""), "high_precision");
  EXPECT_EQ(sm->attrString("_impl_mode_reason", ""), "op_precision_mode [ByNodeName] line 7");
  EXPECT_FALSE(relu->hasAttr("_impl_mode"));
  EXPECT_EQ(implVariantOf(*sm), ATCK_IV_PREC);
  EXPECT_EQ(implVariantOf(*relu), ATCK_IV_PERF);
}
