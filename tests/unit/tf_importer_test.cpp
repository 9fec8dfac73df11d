// TF frontend: reading, structure, options and bad inputs (importTfFromBytes on pbtxt text).
#include <gtest/gtest.h>

#include "frontends/tf/tf_graph.pb.h"
#include "frontends/tf/tf_importer.h"
#include "support/diagnostics.h"

#include <google/protobuf/text_format.h>

namespace atc {
namespace {

const char* kPh = R"(node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
)";

std::string errCode(const std::string& text, ImportOptions opts = {}) {
  try {
    importTfFromBytes(text, opts);
  } catch (const AtcError& e) {
    return e.code() + " " + e.message();
  }
  return "ok";
}

TEST(TfImporter, ImportsTextGraphWithIdentityAndControlDeps) {
  std::string t = std::string(kPh) + R"(
node { name: "init" op: "NoOp" }
node { name: "xi" op: "Identity" input: "x" input: "^init" }
node { name: "y" op: "Relu" input: "xi:0" attr { key: "T" value { type: DT_FLOAT } } })";
  auto g = importTfFromBytes(t, {});
  ASSERT_EQ(g->inputs.size(), 1u);
  EXPECT_EQ(g->inputs[0]->name, "x");
  ASSERT_EQ(g->outputs.size(), 1u);
  ASSERT_EQ(g->nodes().size(), 1u);
  EXPECT_EQ(g->nodes().front()->type, "Relu");
}

TEST(TfImporter, SplatConstant) {
  std::string t = R"(node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } } float_val: 2.5 } } } }
node { name: "y" op: "Neg" input: "c" })";
  auto g = importTfFromBytes(t, {});
  auto* neg = g->nodes().front().get();
  auto c = neg->inputs[0]->constant;
  ASSERT_TRUE(c);
  ASSERT_EQ(c->type.numel(), 4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(c->as<float>()[i], 2.5f);
}

// Found by fuzz_tf (out-of-memory): one float_val declared as [2^31] float32 (8 GiB) was
// expanded before anything checked it. A splat above 1 GiB is refused before allocating.
TEST(TfImporter, HugeSplatConstantIsE10041) {
  std::string t = R"(node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2147483648 } } float_val: 1 } } } }
node { name: "y" op: "Neg" input: "c" })";
  std::string r = errCode(t);
  EXPECT_EQ(r.rfind("E10041", 0), 0u) << r;
  EXPECT_NE(r.find("expanded from a list of values"), std::string::npos) << r;
}

TEST(TfImporter, TruncatedBinaryIsE10041) {
  tfproto::GraphDef gd;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(std::string(kPh) + R"(node { name: "y" op: "Relu" input: "x" })", &gd));
  std::string bin = gd.SerializeAsString();
  EXPECT_EQ(errCode(bin).substr(0, 6), "ok");
  EXPECT_EQ(errCode(bin.substr(0, bin.size() - 5)).substr(0, 6), "E10041");
}

TEST(TfImporter, CycleIsE10041) {
  std::string t = std::string(kPh) + R"(
node { name: "a" op: "Add" input: "x" input: "b" }
node { name: "b" op: "Relu" input: "a" })";
  ImportOptions o;
  o.outNodeList = {{"b", 0}};
  std::string e = errCode(t, o);
  EXPECT_EQ(e.substr(0, 6), "E10041") << e;
  EXPECT_NE(e.find("cycle"), std::string::npos) << e;
}

TEST(TfImporter, MissingInputNodeIsE10041) {
  std::string t = std::string(kPh) + R"(node { name: "y" op: "Add" input: "x" input: "nowhere:0" })";
  std::string e = errCode(t);
  EXPECT_EQ(e.substr(0, 6), "E10041") << e;
  EXPECT_NE(e.find("nowhere"), std::string::npos) << e;
}

// Found by fuzz_tf: converters read their inputs by index, so a node with fewer data inputs
// than its op needs threw std::out_of_range (MatMul: "E19999 Internal error: vector::
// _M_range_check") or read past the vector (Relu with none).
TEST(TfImporter, TooFewDataInputsIsE10041) {
  for (std::string node : {R"(node { name: "y" op: "MatMul" input: "x" attr { key: "T" value { type: DT_FLOAT } } })",
                           R"(node { name: "y" op: "Relu" attr { key: "T" value { type: DT_FLOAT } } })",
                           R"(node { name: "y" op: "Conv2D" input: "x" attr { key: "T" value { type: DT_FLOAT } } })",
                           R"(node { name: "y" op: "BatchMatMulV2" input: "x" attr { key: "T" value { type: DT_FLOAT } } })"}) {
    std::string r = errCode(std::string(kPh) + node);
    EXPECT_EQ(r.substr(0, 7), "E10041 ") << node << "\n" << r;
    EXPECT_NE(r.find("data input"), std::string::npos) << r;
  }
}

// Found by fuzz_tf (UBSan): BatchMatMul with adj_x on a rank-1 operand swapped perm[-1] and
// perm[-2].
TEST(TfImporter, BatchMatMulAdjOfRank1IsE10041) {
  std::string v = R"(node { name: "v" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 3 } } } } }
)";
  std::string r = errCode(std::string(kPh) + v + R"(node { name: "y" op: "BatchMatMulV2" input: "v" input: "x"
    attr { key: "T" value { type: DT_FLOAT } } attr { key: "adj_x" value { b: true } } })");
  EXPECT_EQ(r.substr(0, 7), "E10041 ") << r;
}

// Found by fuzz_tf: an output index too big for int ("x:99999999999") threw std::out_of_range
// from std::stoi.
TEST(TfImporter, HugeOutputIndexIsE10041) {
  std::string r = errCode(std::string(kPh) + R"(node { name: "y" op: "Relu" input: "x:99999999999" attr { key: "T" value { type: DT_FLOAT } } })");
  EXPECT_EQ(r.substr(0, 7), "E10041 ") << r;
}

// Found by fuzz_tf: SplitV with a -1 size read the input's shape at split_dim without a range
// check (heap-buffer-overflow); a rank-2 Conv2D filter was indexed as rank 4.
TEST(TfImporter, SplitVDimOutOfRangeAndBadFilterRankAreE10041) {
  auto ci = [](const char* name, const char* shape, const char* vals) {
    return std::string("node { name: \"") + name + "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT32 } } " +
           "attr { key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape { " + shape + " } " + vals + " } } } }\n";
  };
  std::string t = std::string(kPh) + ci("sizes", "dim { size: 2 }", "int_val: 1 int_val: -1") +
                  ci("axis", "", "int_val: 5") +
                  R"(node { name: "y" op: "SplitV" input: "x" input: "sizes" input: "axis"
                       attr { key: "T" value { type: DT_FLOAT } } attr { key: "num_split" value { i: 2 } } })";
  std::string r = errCode(t);
  EXPECT_EQ(r.substr(0, 7), "E10041 ") << r;
  EXPECT_NE(r.find("split_dim 5 is out of range"), std::string::npos) << r;
  std::string w = R"(node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } dim { size: 1 } } float_val: 1 } } } }
)";
  r = errCode(std::string(kPh) + w + R"(node { name: "y" op: "Conv2D" input: "x" input: "w"
    attr { key: "T" value { type: DT_FLOAT } } attr { key: "padding" value { s: "VALID" } } })");
  EXPECT_EQ(r.substr(0, 7), "E10041 ") << r;
  EXPECT_NE(r.find("rank 4"), std::string::npos) << r;
}

TEST(TfImporter, UnknownShapeNeedsInputShape) {
  std::string t = R"(node { name: "in" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } } }
node { name: "y" op: "Relu" input: "in" })";
  std::string e = errCode(t);
  EXPECT_EQ(e.substr(0, 6), "E10001") << e;
  EXPECT_NE(e.find("[in]"), std::string::npos) << e;
  ImportOptions o;
  o.inputShapes["in"] = {4, 3};
  auto g = importTfFromBytes(t, o);
  EXPECT_EQ(g->inputs[0]->type.shape, (Shape{4, 3}));
}

// tf.cond on a run-time predicate: both branches, a Where per Merge (tf_cond.h).
TEST(TfImporter, SwitchWithRuntimePredicateSelectsWithWhere) {
  std::string t = std::string(kPh) + R"(
node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } attr { key: "shape" value { shape { } } } }
node { name: "sw" op: "Switch" input: "x" input: "p" }
node { name: "t" op: "Relu" input: "sw:1" }
node { name: "f" op: "Neg" input: "sw:0" }
node { name: "m" op: "Merge" input: "f" input: "t" })";
  auto g = importTfFromBytes(t, ImportOptions());
  ASSERT_EQ(g->outputs.size(), 2u);  // Merge's value and value_index
  Node* where = g->outputs[0]->producer;
  ASSERT_NE(where, nullptr);
  EXPECT_EQ(where->type, "Where");
  ASSERT_EQ(where->inputs.size(), 3u);
  EXPECT_EQ(where->inputs[1]->producer->type, "Relu");  // the true side first
  EXPECT_EQ(where->inputs[2]->producer->type, "Neg");
}

TEST(TfImporter, RuntimeCondBranchesOfDifferentShapesAreE19010) {
  std::string t = std::string(kPh) + R"(
node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } attr { key: "shape" value { shape { } } } }
node { name: "sw" op: "Switch" input: "x" input: "p" }
node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } } }
node { name: "t" op: "ConcatV2" input: "sw:1" input: "sw:1" input: "axis" attr { key: "N" value { i: 2 } } }
node { name: "f" op: "Neg" input: "sw:0" }
node { name: "m" op: "Merge" input: "f" input: "t" })";
  std::string e = errCode(t);
  EXPECT_EQ(e.substr(0, 6), "E19010") << e;
  EXPECT_NE(e.find("both branches run"), std::string::npos) << e;
}

TEST(TfImporter, WhileLoopIsE19010) {
  std::string t = std::string(kPh) + R"(
node { name: "enter" op: "Enter" input: "x" }
node { name: "merge" op: "Merge" input: "enter" input: "next" }
node { name: "body" op: "Relu" input: "merge" }
node { name: "next" op: "NextIteration" input: "body" }
node { name: "exit" op: "Exit" input: "body" })";
  ImportOptions o;
  o.outNodeList = {{"exit", 0}};
  std::string e = errCode(t, o);
  EXPECT_EQ(e.substr(0, 6), "E19010") << e;
  EXPECT_NE(e.find("control flow"), std::string::npos) << e;
}

// A TF1 while loop as freezing leaves it: i = 0; while (i < LIMIT) { x = relu(x) ... ; i += 1 }.
// `body` is the loop variable x's next value given x = "w/Switch_1:1" (default: Relu).
std::string whileGraph(const std::string& limit, const std::string& body = "") {
  auto i32 = [](const char* name, int v) {
    return std::string("node { name: \"") + name + "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT32 } } "
           "attr { key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: " + std::to_string(v) +
           " } } } }\n";
  };
  auto enter = [](const char* name, const std::string& in, bool invariant) {
    return std::string("node { name: \"") + name + "\" op: \"Enter\" input: \"" + in +
           "\" attr { key: \"frame_name\" value { s: \"w\" } } attr { key: \"is_constant\" value { b: " +
           (invariant ? "true" : "false") + " } } }\n";
  };
  return std::string(kPh) + i32("i0", 0) + i32("one", 1) + i32("big", 100000) + i32("three", 3) +
         enter("w/Enter", "i0", false) + enter("w/Enter_1", "x", false) + enter("w/lim", limit, true) +
         enter("w/one", "one", true) + R"(
node { name: "w/Merge" op: "Merge" input: "w/Enter" input: "w/NextIteration" }
node { name: "w/Merge_1" op: "Merge" input: "w/Enter_1" input: "w/NextIteration_1" }
node { name: "w/Less" op: "Less" input: "w/Merge" input: "w/lim" }
node { name: "w/LoopCond" op: "LoopCond" input: "w/Less" }
node { name: "w/Switch" op: "Switch" input: "w/Merge" input: "w/LoopCond" }
node { name: "w/Switch_1" op: "Switch" input: "w/Merge_1" input: "w/LoopCond" }
node { name: "w/add" op: "Add" input: "w/Switch:1" input: "w/one" }
node { name: "w/NextIteration" op: "NextIteration" input: "w/add" }
node { name: "w/Exit_1" op: "Exit" input: "w/Switch_1" }
)" + (body.empty() ? std::string(R"(node { name: "w/next" op: "Relu" input: "w/Switch_1:1" })") : body) +
         R"(
node { name: "w/NextIteration_1" op: "NextIteration" input: "w/next" })";
}

ImportOptions whileOutput() {
  ImportOptions o;
  o.outNodeList = {{"w/Exit_1", 0}};
  return o;
}

TEST(TfImporter, WhileLoopWithConstantTripCountIsUnrolled) {
  auto g = importTfFromBytes(whileGraph("three"), whileOutput());
  int relus = 0;
  for (const auto& n : g->nodes()) relus += n->type == "Relu";
  EXPECT_EQ(relus, 3);
  ASSERT_EQ(g->outputs.size(), 1u);
  ASSERT_NE(g->outputs[0]->producer, nullptr);
  EXPECT_EQ(g->outputs[0]->producer->type, "Relu");
}

// A loop the importer cannot unroll runs in the runtime: LoopBegin, the body once, LoopEnd,
// the Exit reading the LoopEnd's final value (tests/tf_gen/while_cases.py runs such loops).
void expectRunTimeLoop(const Graph& g) {
  int begins = 0, ends = 0, relus = 0;
  for (const auto& n : g.nodes()) {
    begins += n->type == "LoopBegin";
    ends += n->type == "LoopEnd";
    relus += n->type == "Relu";
  }
  EXPECT_EQ(begins, 1);
  EXPECT_EQ(ends, 1);
  EXPECT_GE(relus, 1);
  ASSERT_EQ(g.outputs.size(), 1u);
  ASSERT_NE(g.outputs[0]->producer, nullptr);
}

TEST(TfImporter, WhileLoopWithRunTimeTripCountRunsInTheRuntime) {
  std::string t = R"(node { name: "n" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "shape" value { shape { } } } }
)" + whileGraph("n");
  expectRunTimeLoop(*importTfFromBytes(t, whileOutput()));
}

TEST(TfImporter, WhileLoopOverTheUnrollBudgetRunsInTheRuntime) {
  expectRunTimeLoop(*importTfFromBytes(whileGraph("big"), whileOutput()));
}

TEST(TfImporter, NestedWhileLoopIsE19010) {
  std::string inner = R"(node { name: "w/relu" op: "Relu" input: "w/Switch_1:1" }
node { name: "w/inner/Enter" op: "Enter" input: "w/relu" attr { key: "frame_name" value { s: "inner" } } }
node { name: "w/next" op: "Exit" input: "w/inner/Enter" })";
  std::string e = errCode(whileGraph("three", inner), whileOutput());
  EXPECT_EQ(e.substr(0, 6), "E19010") << e;
  EXPECT_NE(e.find("nested while loops are not supported"), std::string::npos) << e;
}

TEST(TfImporter, TensorArrayReadOfAnUnwrittenElementIsE19010) {
  std::string t = std::string(kPh) + R"(
node { name: "two" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 2 } } } }
node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } } }
node { name: "ta" op: "TensorArrayV3" input: "two" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "wr" op: "TensorArrayWriteV3" input: "ta" input: "two" input: "x" input: "ta:1" }
node { name: "rd" op: "TensorArrayReadV3" input: "ta" input: "one" input: "ta:1" })";
  ImportOptions o;
  o.outNodeList = {{"rd", 0}};
  std::string e = errCode(t, o);
  EXPECT_EQ(e.substr(0, 6), "E19010") << e;
  EXPECT_NE(e.find("never written"), std::string::npos) << e;
  o.outNodeList = {{"wr", 0}};  // index 2 of a 2-element array
  e = errCode(t, o);
  EXPECT_EQ(e.substr(0, 6), "E10041") << e;
}

TEST(TfImporter, OutNodesMissingIsE10016) {
  std::string t = std::string(kPh) + R"(node { name: "y" op: "Relu" input: "x" })";
  ImportOptions o;
  o.outNodeList = {{"nope", 0}};
  EXPECT_EQ(errCode(t, o).substr(0, 6), "E10016");
  o.outNodeList = {{"y", 3}};
  EXPECT_EQ(errCode(t, o).substr(0, 6), "E10016");
}

TEST(TfImporter, UnsupportedOpsListedTogether) {
  std::string t = std::string(kPh) + R"(node { name: "a" op: "FancyOp" input: "x" }
node { name: "b" op: "OtherOp" input: "a" })";
  std::string e = errCode(t);
  EXPECT_EQ(e.substr(0, 6), "E19010") << e;
  EXPECT_NE(e.find("FancyOp, OtherOp"), std::string::npos) << e;
}

TEST(TfImporter, OutNodesCutTheGraph) {
  std::string t = std::string(kPh) + R"(node { name: "a" op: "Relu" input: "x" }
node { name: "b" op: "FancyOp" input: "a" })";
  ImportOptions o;
  o.outNodeList = {{"a", 0}};
  auto g = importTfFromBytes(t, o);
  EXPECT_EQ(g->nodes().size(), 1u);
}

}  // namespace
}  // namespace atc
