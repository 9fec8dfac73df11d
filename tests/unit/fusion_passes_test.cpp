// Graph/UB fusion passes: the pattern is rewritten (golden op list), the fused graph computes
// the same numbers as the unfused one (native kernels), and switching the pass off leaves the
// graph unfused and the pass out of fusion_result.json.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>

#include "atc/fusion_result.h"
#include "ops/native_eval.h"
#include "ir/op_registry.h"
#include "ir/printer.h"
#include "passes/pass_manager.h"
#include "tests/unit/pass_test_util.h"

namespace {

using namespace atc;

// Evaluates the graph with the native kernels; inputs get deterministic random data.
std::vector<std::vector<float>> evalGraph(Graph& g) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  g.topoSort();
  for (auto* in : g.inputs) {
    auto t = std::make_shared<Tensor>(in->type);
    for (int64_t i = 0; i < in->type.numel(); ++i) t->as<float>()[i] = dist(rng);
    in->constant = t;
  }
  for (auto& n : g.nodes()) {
    inferNode(g, *n);
    auto outs = evalNodeNative(g, *n);
    for (size_t i = 0; i < outs.size(); ++i) n->outputs[i]->constant = outs[i];
  }
  std::vector<std::vector<float>> r;
  for (auto* o : g.outputs) {
    const float* p = o->constant->as<float>();
    r.emplace_back(p, p + o->type.numel());
  }
  return r;
}

std::vector<std::string> opTypes(const Graph& g) {
  std::vector<std::string> t;
  for (auto& n : g.nodes()) t.push_back(n->type);
  return t;
}

// Runs constant folding + the pass on a parsed copy; checks the op list and the numbers.
void checkPass(const std::string& pass, const std::string& ir, const std::vector<std::string>& expectOps,
               double tol = 1e-4) {
  auto ref = parseGraph(ir);
  auto fused = parseGraph(ir);
  atc_test::runPass("constant_folding", *ref);
  atc_test::runPass("constant_folding", *fused);
  auto r = atc_test::runPass(pass, *fused);
  EXPECT_TRUE(r.changed) << pass;
  EXPECT_GE(r.stats.matchTimes, 1);
  EXPECT_GE(r.stats.effectTimes, 1);
  EXPECT_EQ(opTypes(*fused), expectOps) << printGraph(*fused);
  atc_test::runPass("final_inference", *fused);
  auto a = evalGraph(*ref), b = evalGraph(*fused);
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    ASSERT_EQ(a[k].size(), b[k].size());
    for (size_t i = 0; i < a[k].size(); ++i)
      ASSERT_NEAR(a[k][i], b[k][i], tol * (1 + std::fabs(a[k][i]))) << pass << " output " << k << " elem " << i;
  }
  // Switched off: the default pipeline leaves the pattern, and fusion_result.json omits it.
  auto off = parseGraph(ir);
  PassOptions opts;
  opts.disabledPasses = {pass};
  auto recs = runDefaultPipeline(*off, opts);
  std::string json = fusionResultJson(recs);
  EXPECT_EQ(json.find("\"" + pass + "\""), std::string::npos) << json;
  auto on = parseGraph(ir);
  PassOptions opts2;
  auto recs2 = runDefaultPipeline(*on, opts2);
  EXPECT_NE(fusionResultJson(recs2).find("\"" + pass + "\""), std::string::npos);
}

const char* kGelu = R"(
graph main(%x: float32[2,40]) -> (%y) {
  %s: float32[] = const [1.4142135]
  %one: float32[] = const [1.0]
  %h: float32[] = const [0.5]
  %d: float32[2,40] = Div(%x, %s) {name="div"}
  %e: float32[2,40] = Erf(%d) {name="erf"}
  %a: float32[2,40] = Add(%e, %one) {name="add"}
  %m: float32[2,40] = Mul(%x, %a) {name="mul"}
  %y: float32[2,40] = Mul(%m, %h) {name="mul2"}
}
)";

TEST(FusionPasses, GeluErf) { checkPass("GeluFusionPass", kGelu, {"Gelu"}); }

TEST(FusionPasses, GeluTanh) {
  checkPass("GeluFusionPass", R"(
graph main(%x: float32[3,20]) -> (%y) {
  %three: float32[] = const [3.0]
  %k: float32[] = const [0.044715]
  %c: float32[] = const [0.7978846]
  %one: float32[] = const [1.0]
  %h: float32[] = const [0.5]
  %p: float32[3,20] = Pow(%x, %three) {name="pow"}
  %q: float32[3,20] = Mul(%p, %k) {name="mulk"}
  %u: float32[3,20] = Add(%x, %q) {name="addu"}
  %v: float32[3,20] = Mul(%u, %c) {name="mulc"}
  %t: float32[3,20] = Tanh(%v) {name="tanh"}
  %a: float32[3,20] = Add(%t, %one) {name="add1"}
  %hx: float32[3,20] = Mul(%x, %h) {name="mulh"}
  %y: float32[3,20] = Mul(%hx, %a) {name="muly"}
}
)", {"Gelu"});
}

TEST(FusionPasses, LayerNorm) {
  checkPass("LayerNormFusionPass", R"(
graph main(%x: float32[2,3,4]) -> (%y) {
  %two: float32[] = const [2.0]
  %eps: float32[] = const [0.00001]
  %g: float32[4] = const [1.0, 0.5, 2.0, -1.0]
  %b: float32[4] = const [0.1, 0.2, 0.3, 0.4]
  %m: float32[2,3,1] = ReduceMean(%x) {name="rm1", axes=[-1]}
  %d: float32[2,3,4] = Sub(%x, %m) {name="sub"}
  %p: float32[2,3,4] = Pow(%d, %two) {name="pow"}
  %v: float32[2,3,1] = ReduceMean(%p) {name="rm2", axes=[-1]}
  %ve: float32[2,3,1] = Add(%v, %eps) {name="addeps"}
  %s: float32[2,3,1] = Sqrt(%ve) {name="sqrt"}
  %n: float32[2,3,4] = Div(%d, %s) {name="div"}
  %gn: float32[2,3,4] = Mul(%n, %g) {name="mul"}
  %y: float32[2,3,4] = Add(%gn, %b) {name="add"}
}
)", {"LayerNormalization"});
}

TEST(FusionPasses, SoftmaxDecomposed) {
  checkPass("SoftmaxFusionPass", R"(
graph main(%x: float32[4,7]) -> (%y) {
  %mx: float32[4,1] = ReduceMax(%x) {name="rmax", axes=[1]}
  %d: float32[4,7] = Sub(%x, %mx) {name="sub"}
  %e: float32[4,7] = Exp(%d) {name="exp"}
  %s: float32[4,1] = ReduceSum(%e) {name="rsum", axes=[1]}
  %y: float32[4,7] = Div(%e, %s) {name="div"}
}
)", {"Softmax"});
}

TEST(FusionPasses, MatMulBiasAdd) {
  checkPass("MatMulBiasAddFusionPass", R"(
graph main(%x: float32[1,5,3]) -> (%y) {
  %w: float32[3,2] = const [0.1, -0.2, 0.3, 0.4, -0.5, 0.6]
  %b: float32[2] = const [1.0, -1.0]
  %m: float32[1,5,2] = MatMul(%x, %w) {name="mm"}
  %y: float32[1,5,2] = Add(%b, %m) {name="add"}
}
)", {"MatMul"});
}

TEST(FusionPasses, ConvBatchnorm) {
  checkPass("ConvBatchnormFusionPass", R"(
graph main(%x: float32[1,1,4,4]) -> (%y) {
  %w: float32[2,1,1,1] = const [0.5, -1.5]
  %s: float32[2] = const [1.0, 2.0]
  %b: float32[2] = const [0.1, 0.2]
  %mu: float32[2] = const [0.3, -0.3]
  %var: float32[2] = const [0.5, 2.0]
  %c: float32[1,2,4,4] = Conv(%x, %w) {name="conv"}
  %y: float32[1,2,4,4] = BatchNormalization(%c, %s, %b, %mu, %var) {name="bn"}
}
)", {"Conv"});
}

TEST(FusionPasses, ConvScale) {
  checkPass("ConvScaleFusionPass", R"(
graph main(%x: float32[1,1,4,4]) -> (%y) {
  %w: float32[2,1,1,1] = const [0.5, -1.5]
  %k: float32[2,1,1] = const [3.0, 0.25]
  %a: float32[1,2,1,1] = const [1.0, -2.0]
  %c: float32[1,2,4,4] = Conv(%x, %w) {name="conv"}
  %m: float32[1,2,4,4] = Mul(%c, %k) {name="mul"}
  %y: float32[1,2,4,4] = Add(%m, %a) {name="add"}
}
)", {"Conv"});
}

TEST(FusionPasses, ConvResidualReluEpilogue) {
  checkPass("TbeCommonRules0FusionPass", R"(
graph main(%x: float32[1,2,5,5], %r: float32[1,3,5,5]) -> (%y) {
  %w: float32[3,2,1,1] = const [0.5, -1.5, 1.0, 2.0, -0.25, 0.75]
  %c: float32[1,3,5,5] = Conv(%x, %w) {name="conv"}
  %a: float32[1,3,5,5] = Add(%c, %r) {name="add"}
  %y: float32[1,3,5,5] = Relu(%a) {name="relu"}
}
)", {"Conv"});
}

TEST(FusionPasses, MatMulGeluEpilogue) {
  checkPass("TbeCommonRules0FusionPass", R"(
graph main(%x: float32[7,3], %w: float32[3,20]) -> (%y) {
  %m: float32[7,20] = MatMul(%x, %w) {name="mm"}
  %y: float32[7,20] = Gelu(%m) {name="gelu"}
}
)", {"MatMul"});
}

TEST(FusionPasses, EltwiseChain) {
  checkPass("TbeEltwiseFusionPass", R"(
graph main(%x: float32[3,50], %b: float32[50]) -> (%y) {
  %k: float32[] = const [0.5]
  %a: float32[3,50] = Add(%x, %b) {name="add"}
  %s: float32[3,50] = Sigmoid(%a) {name="sig"}
  %y: float32[3,50] = Mul(%s, %k) {name="mul"}
}
)", {"FusedEltwise"});
}

TEST(FusionPasses, EltwiseTree) {
  checkPass("AutomaticUbFusion", R"(
graph main(%x: float32[4,33], %z: float32[4,33]) -> (%y) {
  %e: float32[4,33] = Exp(%x) {name="exp"}
  %t: float32[4,33] = Tanh(%z) {name="tanh"}
  %y: float32[4,33] = Div(%e, %t) {name="div"}
}
)", {"FusedEltwise"});
}

TEST(FusionPasses, EltwiseKeepsSharedValues) {
  // The Exp output is also a graph output: it cannot disappear into the group.
  auto g = parseGraph(R"(
graph main(%x: float32[4,8]) -> (%e, %y) {
  %e: float32[4,8] = Exp(%x) {name="exp"}
  %y: float32[4,8] = Relu(%e) {name="relu"}
}
)");
  auto r = atc_test::runPass("TbeEltwiseFusionPass", *g);
  EXPECT_FALSE(r.changed);
  EXPECT_EQ(opTypes(*g), (std::vector<std::string>{"Exp", "Relu"}));
}

}  // namespace
