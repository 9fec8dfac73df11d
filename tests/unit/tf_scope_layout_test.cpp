// TF frontend passes: ScopeGeluPass, TfLayoutSinkingPass (registered passes run on the
// imported IR), and MirrorPad SYMMETRIC (importTfFromBytes on pbtxt text; numerics are in tests/tf_gen).
#include <gtest/gtest.h>

#include <map>

#include "frontends/tf/tf_importer.h"
#include "passes/pass_manager.h"
#include "support/diagnostics.h"

namespace atc {
namespace {

std::string ph(const std::string& name, const std::vector<int>& dims) {
  std::string s = "node { name: \"" + name + "\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } }\n"
                  "  attr { key: \"shape\" value { shape {";
  for (int d : dims) s += " dim { size: " + std::to_string(d) + " }";
  return s + " } } } }\n";
}
std::string scalar(const std::string& name, float v) {
  return "node { name: \"" + name + "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } }\n"
         "  attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: " + std::to_string(v) +
         " } } } }\n";
}
std::string vec(const std::string& name, int n, float v) {
  return "node { name: \"" + name + "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } }\n"
         "  attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: " + std::to_string(n) +
         " } } float_val: " + std::to_string(v) + " } } } }\n";
}
std::string op(const std::string& type, const std::string& name, const std::vector<std::string>& ins,
               const std::string& attrs = "") {
  std::string s = "node { name: \"" + name + "\" op: \"" + type + "\"";
  for (auto& i : ins) s += " input: \"" + i + "\"";
  return s + " attr { key: \"T\" value { type: DT_FLOAT } }" + attrs + " }\n";
}
std::map<std::string, int> histogram(const Graph& g) {
  std::map<std::string, int> h;
  for (auto& n : g.nodes()) h[n->type]++;
  return h;
}

// Imports the text, then runs the named passes as the pipeline would (first, in this order).
struct Imported {
  std::unique_ptr<Graph> g;
  std::vector<PassRecord> records;
};
Imported importAndRun(const std::string& text, const ImportOptions& o, const std::vector<std::string>& passes) {
  Imported r;
  r.g = importTfFromBytes(text, o);
  static PassOptions opts;
  PassManager pm(opts);
  for (auto& p : passes) pm.addPass(p);
  pm.run(*r.g);
  r.records = pm.records();
  return r;
}

// tf.nn.gelu(approximate=False): 0.5 * x * (1 + erf(x / sqrt(2)))
std::string geluErf() {
  return ph("x", {2, 8}) + scalar("half", 0.5f) + scalar("s2", 1.41421356f) + scalar("one", 1.0f) +
         op("Mul", "gelu/mul", {"half", "x"}) + op("RealDiv", "gelu/truediv", {"x", "s2"}) +
         op("Erf", "gelu/Erf", {"gelu/truediv"}) + op("AddV2", "gelu/add", {"one", "gelu/Erf"}) +
         op("Mul", "gelu/mul_1", {"gelu/mul", "gelu/add"});
}

TEST(TfScopeGelu, OffByDefault) {
  auto g = importTfFromBytes(geluErf(), {});
  EXPECT_EQ(histogram(*g).count("Gelu"), 0u);
  EXPECT_EQ(histogram(*g)["Erf"], 1);
}

TEST(TfScopeGelu, ErfFormFusesAndCounts) {
  auto r = importAndRun(geluErf(), {}, {"ScopeGeluPass"});
  auto& g = r.g;
  auto h = histogram(*g);
  ASSERT_EQ(h["Gelu"], 1);
  EXPECT_EQ(h.size(), 1u);
  Node* ge = g->nodes().front().get();
  EXPECT_EQ(ge->attrString("approximate", ""), "none");
  EXPECT_EQ(ge->outputs[0], g->outputs[0]);
  ASSERT_EQ(r.records.size(), 1u);
  EXPECT_EQ(r.records[0].name, "ScopeGeluPass");
  EXPECT_EQ(r.records[0].group, "scope_fusion");
  EXPECT_EQ(r.records[0].stats.effectTimes, 1);
}

TEST(TfScopeGelu, TanhFormWithPowFuses) {
  std::string t = ph("x", {4}) + scalar("half", 0.5f) + scalar("c", 0.7978845608f) + scalar("k", 0.044715f) +
                  scalar("three", 3.0f) + scalar("one", 1.0f) + op("Mul", "mul", {"half", "x"}) +
                  op("Pow", "Pow", {"x", "three"}) + op("Mul", "mul_1", {"k", "Pow"}) +
                  op("AddV2", "add", {"x", "mul_1"}) + op("Mul", "mul_2", {"c", "add"}) +
                  op("Tanh", "Tanh", {"mul_2"}) + op("AddV2", "add_1", {"one", "Tanh"}) +
                  op("Mul", "mul_3", {"mul", "add_1"});
  auto g = importAndRun(t, {}, {"ScopeGeluPass"}).g;
  auto h = histogram(*g);
  ASSERT_EQ(h["Gelu"], 1);
  EXPECT_EQ(h.size(), 1u);
  EXPECT_EQ(g->nodes().front()->attrString("approximate", ""), "tanh");
}

TEST(TfScopeGelu, IntermediateWithOtherUserIsKept) {
  // The Erf result is also a graph output: fusing would lose it.
  ImportOptions o;
  o.outNodeList = {{"gelu/mul_1", 0}, {"gelu/Erf", 0}};
  auto r = importAndRun(geluErf(), o, {"ScopeGeluPass"});
  EXPECT_EQ(histogram(*r.g).count("Gelu"), 0u);
  EXPECT_EQ(r.records[0].stats.effectTimes, 0);
}

// Two NHWC conv layers with BiasAdd + Relu between them: only the boundary Transposes stay.
TEST(TfLayout, ConsecutiveNhwcLayersStayChannelsFirst) {
  std::string w = "node { name: \"w\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } }\n"
                  "  attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 } dim { size: 1 }"
                  " dim { size: 4 } dim { size: 4 } } float_val: 0.5 } } } }\n";
  std::string conv = " attr { key: \"strides\" value { list { i: 1 i: 1 i: 1 i: 1 } } }"
                     " attr { key: \"padding\" value { s: \"SAME\" } }";
  std::string pool = " attr { key: \"ksize\" value { list { i: 1 i: 2 i: 2 i: 1 } } }"
                     " attr { key: \"strides\" value { list { i: 1 i: 2 i: 2 i: 1 } } }"
                     " attr { key: \"padding\" value { s: \"VALID\" } }";
  std::string t = ph("x", {1, 6, 6, 4}) + w + vec("b", 4, 0.1f) + scalar("six", 6.0f) +
                  op("Conv2D", "c1", {"x", "w"}, conv) + op("BiasAdd", "b1", {"c1", "b"}) + op("Relu", "r1", {"b1"}) +
                  op("Conv2D", "c2", {"r1", "w"}, conv) + op("Mul", "m2", {"c2", "six"}) + op("Relu6", "r2", {"m2"}) +
                  op("MaxPool", "p", {"r2"}, pool) + op("Relu", "out", {"p"});
  auto g = importAndRun(t, {}, {"TfLayoutSinkingPass"}).g;
  auto h = histogram(*g);
  std::string dump;
  int data = 0;  // Transposes of data (the filter ones are on constants: folded later)
  for (auto& n : g->nodes()) {
    dump += n->type + "(" + n->name + ") ";
    if (n->type == "Transpose" && !n->inputs[0]->isConstant()) ++data;
  }
  EXPECT_EQ(data, 2) << "one at the input, one at the output: " << dump;
  EXPECT_EQ(h["Conv"], 2);
  EXPECT_EQ(h["MaxPool"], 1);
  ASSERT_EQ(g->outputs.size(), 1u);
  EXPECT_EQ(g->outputs[0]->type.shape, (Shape{1, 3, 3, 4}));
  EXPECT_EQ(g->outputs[0]->producer->type, "Transpose");
  // The per-channel bias now broadcasts over NCHW.
  for (auto& n : g->nodes())
    if (n->type == "Add") {
      ASSERT_TRUE(n->inputs[1]->isConstant());
      EXPECT_EQ(n->inputs[1]->constant->type.shape, (Shape{4, 1, 1}));
    }
}

TEST(TfMirrorPad, SymmetricIsGatherPerPaddedDim) {
  std::string pads = "node { name: \"pads\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT32 } }\n"
                     "  attr { key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } dim { size: 2 } }"
                     " int_val: 0 int_val: 0 int_val: 3 int_val: 1 } } } }\n";
  std::string t = ph("x", {2, 3}) + pads +
                  op("MirrorPad", "mp", {"x", "pads"}, " attr { key: \"mode\" value { s: \"SYMMETRIC\" } }");
  auto g = importTfFromBytes(t, {});
  auto h = histogram(*g);
  EXPECT_EQ(h["Gather"], 1);
  EXPECT_EQ(g->outputs[0]->type.shape, (Shape{2, 7}));
  std::string bad = ph("x", {2, 3}) + pads +
                    op("MirrorPad", "mp", {"x", "pads"}, " attr { key: \"mode\" value { s: \"WRAP\" } }");
  try {
    importTfFromBytes(bad, {});
    FAIL();
  } catch (const AtcError& e) {
    EXPECT_EQ(e.code(), "E19010");
  }
}

}  // namespace
}  // namespace atc
