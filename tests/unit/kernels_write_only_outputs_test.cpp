// A kernel writes only its outputs: bufs are the node's inputs then its outputs, so a kernel
// with a fixed output index ("copy" writes bufs[1]) lowered for a node with more inputs
// writes over an input. CastLike between equal dtypes did that: y = x + CastLike(0.5, x)
// wrote 0.5 over x[0] and left the CastLike output unwritten (zeros). Checked here through
// native evaluation (which now refuses a kernel that changes an input), through a compiled
// .om (also with the dtype donor in the weights, which the runtime maps read-only), and for
// every byte-copy lowering that can have more than one input.
#include <gtest/gtest.h>

#include <cstring>

#include "backend/om_builder.h"
#include "ir/op_registry.h"
#include "kernels/codegen/host_cpu.h"
#include "ops/native_eval.h"
#include "runtime/atc_runtime.h"
#include "support/diagnostics.h"

using namespace atc;

namespace {

TensorPtr floats(Shape s, const std::vector<float>& v) {
  auto t = std::make_shared<Tensor>(TensorType(DType::F32, s));
  for (size_t i = 0; i < v.size(); ++i) t->as<float>()[i] = v[i];
  return t;
}

TensorPtr ints(const std::vector<int64_t>& v) {
  auto t = std::make_shared<Tensor>(TensorType(DType::I64, {(int64_t)v.size()}));
  for (size_t i = 0; i < v.size(); ++i) t->as<int64_t>()[i] = v[i];
  return t;
}

// The old CastLike lowering, kept as a test op: a two-input node lowered to "copy".
const bool kTestOpRegistered = [] {
  OpDef d;
  d.type = "TestCopyOverInput1";
  d.category = OpCategory::Misc;
  d.minInputs = d.maxInputs = 2;
  d.infer = [](Graph&, Node& n) { n.outputs[0]->type = n.inputs[0]->type; };
  d.lower = [](LowerCtx& c) { return KernelCall{"copy", {c.node.outputs[0]->type.byteSize()}}; };
  OpRegistry::instance().add(d);
  return true;
}();

struct OneNode {
  Graph g;
  Node* n = nullptr;
  std::vector<std::vector<uint8_t>> inputBytes;  // before evaluation
};

std::unique_ptr<OneNode> makeNode(const std::string& type, const std::vector<TensorPtr>& ins,
                                  std::map<std::string, AttrValue> attrs = {}, int nout = 1) {
  auto r = std::make_unique<OneNode>();
  r->g.opsetVersion = 17;
  std::vector<Value*> vin, vout;
  for (size_t i = 0; i < ins.size(); ++i) {
    vin.push_back(r->g.newConstant("in" + std::to_string(i), ins[i]));
    r->inputBytes.push_back(ins[i]->data);
  }
  for (int i = 0; i < nout; ++i) vout.push_back(r->g.newValue("out" + std::to_string(i)));
  r->n = r->g.addNode(type, "node", vin, vout);
  r->n->attrs = attrs;
  inferNode(r->g, *r->n);
  return r;
}

void expectInputsUnchanged(const OneNode& r) {
  for (size_t i = 0; i < r.n->inputs.size(); ++i)
    EXPECT_EQ(r.n->inputs[i]->constant->data, r.inputBytes[i]) << r.n->type << " changed input " << i;
}

}  // namespace

TEST(KernelsWriteOnlyOutputs, CastLikeSameDtypeNative) {
  auto r = makeNode("CastLike", {floats({}, {0.5f}), floats({5}, {-1, 0, 1, -2, 3})});
  ASSERT_EQ(r->n->outputs[0]->type.str(), "float32[]");
  auto out = evalNodeNative(r->g, *r->n);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]->as<float>()[0], 0.5f);
  expectInputsUnchanged(*r);
}

// Every lowering whose output is input 0's bytes, with the extra inputs the op allows: the
// output is input 0's values and no input changes.
TEST(KernelsWriteOnlyOutputs, ByteCopyLoweringsWithExtraInputs) {
  auto x = floats({2, 3}, {1, -2, 3.5f, -4, 5, 6.25f});
  auto half = std::make_shared<Tensor>(TensorType(DType::F16, {1}));
  struct Case {
    std::string type;
    std::vector<TensorPtr> ins;
    std::map<std::string, AttrValue> attrs;
  };
  std::vector<Case> cases = {
      {"Identity", {x}, {}},
      {"Cast", {x}, {{"to", (int64_t)1}}},
      {"CastLike", {x, floats({4}, {9, 9, 9, 9})}, {}},
      {"CastLike", {x, floats({}, {9})}, {}},
      {"Reshape", {x, ints({3, 2})}, {}},
      {"Reshape", {x, ints({6})}, {}},
      {"Squeeze", {floats({1, 6}, {1, -2, 3.5f, -4, 5, 6.25f}), ints({0})}, {}},
      {"Unsqueeze", {x, ints({0})}, {}},
      {"Flatten", {x}, {}},
      {"Dropout", {x, floats({}, {0.5f})}, {}},
  };
  for (auto& c : cases) {
    SCOPED_TRACE(c.type + " with " + std::to_string(c.ins.size()) + " inputs");
    auto r = makeNode(c.type, c.ins, c.attrs);
    std::vector<TensorPtr> out;
    ASSERT_NO_THROW(out = evalNodeNative(r->g, *r->n));
    ASSERT_EQ(out[0]->data.size(), x->data.size());
    EXPECT_EQ(0, std::memcmp(out[0]->data.data(), x->data.data(), x->data.size()));
    expectInputsUnchanged(*r);
  }
  // A dtype change goes through the eltwise kernel, which names its output buffer.
  auto r = makeNode("CastLike", {x, half});
  auto out = evalNodeNative(r->g, *r->n);
  EXPECT_EQ(out[0]->type.str(), "float16[2,3]");
  EXPECT_EQ(out[0]->floatAt(2), 3.5);
  expectInputsUnchanged(*r);
}

// Native evaluation (the constant folder's engine) refuses a kernel that changed one of its
// inputs, and puts the input's bytes back: a shared constant must not change silently.
TEST(KernelsWriteOnlyOutputs, NativeEvalRefusesAKernelThatWritesAnInput) {
  ASSERT_TRUE(kTestOpRegistered);
  auto r = makeNode("TestCopyOverInput1", {floats({}, {0.5f}), floats({5}, {-1, 0, 1, -2, 3})});
  try {
    evalNodeNative(r->g, *r->n);
    ADD_FAILURE() << "expected an error";
  } catch (const AtcError& e) {
    EXPECT_NE(e.message().find("wrote its input 1"), std::string::npos) << e.message();
  }
  expectInputsUnchanged(*r);
}

namespace {

std::vector<uint8_t> compileForHost(Graph& g) {
  inferGraph(g);
  BackendOptions o;
  o.cmdline = "test";
  return buildOm(g, o, loadHostTargetProfile("native"));
}

// y = x + CastLike(0.5, x) and y2 = CastLike(x, w) + w with w in the weights.
std::vector<uint8_t> buildCastLikeModel() {
  Graph g;
  g.name = "castlike";
  g.opsetVersion = 17;
  Value* x = g.newValue("x", TensorType(DType::F32, {5}));
  g.inputs.push_back(x);
  Value* half = g.newConstant("half", floats({}, {0.5f}));
  Value* w = g.newConstant("w", floats({5}, {10, 20, 30, 40, 50}));
  Value* hc = g.newValue("hc");
  Value* y = g.newValue("y");
  Value* xc = g.newValue("xc");
  Value* y2 = g.newValue("y2");
  g.addNode("CastLike", "cl_half", {half, x}, {hc});
  g.addNode("Add", "add", {x, hc}, {y});
  g.addNode("CastLike", "cl_x", {x, w}, {xc});
  g.addNode("Add", "add2", {xc, w}, {y2});
  g.outputs = {y, y2};
  return compileForHost(g);
}

}  // namespace

TEST(KernelsWriteOnlyOutputs, CastLikeInACompiledModel) {
  std::vector<uint8_t> om = buildCastLikeModel();
  auto m = rt::Model::loadFromMemory(om.data(), om.size(), 2);
  for (int run = 0; run < 2; ++run) {  // the weights must be the same on the second run
    SCOPED_TRACE("run " + std::to_string(run));
    float x[5] = {-1, 0, 1, -2, 3}, y[5] = {0}, y2[5] = {0};
    m->run({x}, {y, y2});
    const float wantY[5] = {-0.5f, 0.5f, 1.5f, -1.5f, 3.5f}, wantY2[5] = {9, 20, 31, 38, 53};
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(y[i], wantY[i]) << "y at " << i;
      EXPECT_EQ(y2[i], wantY2[i]) << "y2 at " << i;
    }
  }
}

// The runtime maps the weights read-only: a kernel that writes one of its inputs when that
// input is a weight faults at once instead of changing the model for every later run.
TEST(KernelsWriteOnlyOutputsDeathTest, WeightsAreReadOnlyAtRunTime) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  ASSERT_TRUE(kTestOpRegistered);
  Graph g;
  g.name = "writes_weight";
  Value* x = g.newValue("x", TensorType(DType::F32, {5}));
  g.inputs.push_back(x);
  Value* w = g.newConstant("w", floats({5}, {10, 20, 30, 40, 50}));
  Value* y = g.newValue("y");
  g.addNode("TestCopyOverInput1", "bad", {x, w}, {y});
  g.outputs = {y};
  std::vector<uint8_t> om = compileForHost(g);
  auto runIt = [&om] {
    auto m = rt::Model::loadFromMemory(om.data(), om.size(), 1);
    float xin[5] = {1, 2, 3, 4, 5}, yout[5] = {0};
    m->run({xin}, {yout});
  };
  EXPECT_DEATH(runIt(), "");
}
