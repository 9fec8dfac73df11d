// Run-sized values (docs/dynamic-shapes.md, "Run-sized values"): outputs whose shape comes from
// input values with no static bound. The kernels size them in a size pass and the runtime
// allocates them per run: Expand with a run-time shape, element-wise readers, Shape of such a
// value, bad values failing the run cleanly, the C++ and C APIs, and readers that are refused.
#include <unistd.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <memory>

#include "backend/lowering.h"
#include "backend/om_builder.h"
#include "ir/op_registry.h"
#include "kernels/codegen/host_cpu.h"
#include "runtime/atc_runtime.h"
#include "runtime/atc_runtime_c.h"
#include "support/diagnostics.h"

using namespace atc;

namespace {

// y = Expand(x: float32[3, 1], shape: int64[L] fed at run time); with `reader`, reader(y) * 2.
std::unique_ptr<Graph> expandGraph(int64_t L, const std::string& reader = "") {
  auto g = std::make_unique<Graph>();
  g->name = "expand_rt";
  g->opsetVersion = 17;
  Value* x = g->newValue("x", TensorType(DType::F32, {3, 1}));
  Value* s = g->newValue("shape", TensorType(DType::I64, {L}));
  Value* y = g->newValue("y");
  g->inputs = {x, s};
  inferNode(*g, *g->addNode("Expand", "expand", {x, s}, {y}));
  g->outputs = {y};
  if (!reader.empty()) {
    Value* r = g->newValue("r");
    inferNode(*g, *g->addNode(reader, "reader", {y}, {r}));
    auto two = std::make_shared<Tensor>(TensorType(DType::F32, {}));
    two->as<float>()[0] = 2.f;
    Value* z = g->newValue("z");
    inferNode(*g, *g->addNode("Mul", "mul", {r, g->newConstant("two", two)}, {z}));
    g->outputs = {z};
  }
  return g;
}

std::unique_ptr<rt::Model> compile(Graph& g) {
  std::vector<uint8_t> om = buildOm(g, BackendOptions(), loadHostTargetProfile("x86-64-v3"));
  return rt::Model::loadFromMemory(om.data(), om.size(), 2, g.name);
}

TEST(RunSizedValues, TypedWithUnknownDims) {
  auto g = expandGraph(3);
  Value* y = g->outputs[0];
  EXPECT_TRUE(isRunSized(y));
  EXPECT_EQ(y->type.rank(), 3);
  EXPECT_FALSE(y->type.isStatic());
}

TEST(RunSizedValues, EachRunSizesTheOutput) {
  auto g = expandGraph(3);
  auto m = compile(*g);
  ASSERT_TRUE(m->outputs()[0].runSized);
  EXPECT_EQ(m->outputs()[0].shape, (std::vector<int64_t>{-1, -1, -1}));
  const float x[3] = {1, 2, 3};
  // Grow, shrink, grow again: the memory is reused or replaced, the data always right.
  for (auto shape : std::vector<std::vector<int64_t>>{{2, 3, 4}, {1, 1, 1}, {1, 3, 1}, {5, 3, 7}}) {
    m->run({x, shape.data()}, {nullptr});
    const rt::TensorDesc& d = m->lastOutputs()[0];
    const std::vector<int64_t> want = {shape[0], 3, shape[2]};
    ASSERT_EQ(d.shape, want);
    ASSERT_EQ(d.bytes, (uint64_t)(want[0] * 3 * want[2] * 4));
    const float* y = (const float*)m->outputData(0);
    for (int64_t a = 0; a < want[0]; ++a)
      for (int64_t b = 0; b < 3; ++b)
        for (int64_t c = 0; c < want[2]; ++c) ASSERT_EQ(y[(a * 3 + b) * want[2] + c], x[b]);
  }
}

TEST(RunSizedValues, BadValuesFailTheRunAndTheNextRunWorks) {
  auto g = expandGraph(2);
  auto m = compile(*g);
  const float x[3] = {1, 2, 3};
  const int64_t bad[2] = {4, 5};  // 3 does not broadcast to 4
  try {
    m->run({x, bad}, {nullptr});
    FAIL() << "a shape that does not broadcast ran";
  } catch (const rt::RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("output y: this run's input values give it no valid shape"), std::string::npos)
        << e.what();
  }
  const int64_t huge[2] = {3, int64_t(1) << 40};  // 12 TiB: far beyond this machine's memory
  try {
    m->run({x, huge}, {nullptr});
    FAIL() << "a huge shape ran";
  } catch (const rt::RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("more memory than this machine has"), std::string::npos) << e.what();
  }
  const int64_t ok[2] = {3, 2};
  m->run({x, ok}, {nullptr});
  EXPECT_EQ(m->lastOutputs()[0].shape, (std::vector<int64_t>{3, 2}));
  float out[6];
  EXPECT_THROW(m->run({x, ok}, {out}), rt::RuntimeError);  // run-sized: the pointer must be null
}

TEST(RunSizedValues, ElementwiseReadersKeepTheRunsDims) {
  auto g = expandGraph(2, "Neg");
  EXPECT_TRUE(isRunSized(g->outputs[0]));
  auto m = compile(*g);
  const float x[3] = {1, 2, 3};
  const int64_t shape[2] = {3, 40};  // more elements than one eltwise_rs task's share
  m->run({x, shape}, {nullptr});
  ASSERT_EQ(m->lastOutputs()[0].shape, (std::vector<int64_t>{3, 40}));
  const float* y = (const float*)m->outputData(0);
  for (int i = 0; i < 120; ++i) ASSERT_EQ(y[i], -2.f * x[i / 40]) << i;
}

TEST(RunSizedValues, ShapeOfARunSizedValueIsComputedAtRunTime) {
  auto g = expandGraph(3);
  Value* s = g->newValue("s");
  Node* n = g->addNode("Shape", "shape_of", {g->outputs[0]}, {s});
  n->attrs["start"] = int64_t(1);
  inferNode(*g, *n);
  EXPECT_EQ(s->type.str(), "int64[2]");
  EXPECT_FALSE(s->isConstant());
  g->outputs = {s, g->outputs[0]};
  auto m = compile(*g);
  const float x[3] = {1, 2, 3};
  const int64_t shape[3] = {2, 1, 6};
  m->run({x, shape}, {nullptr, nullptr});
  EXPECT_EQ(std::vector<int64_t>((const int64_t*)m->outputData(0), (const int64_t*)m->outputData(0) + 2),
            (std::vector<int64_t>{3, 6}));
}

TEST(RunSizedValues, OtherReadersAreRefusedWithE19010) {
  try {
    auto g = expandGraph(2, "Transpose");
    FAIL() << "a Transpose of a run-sized value was inferred";
  } catch (const AtcError& e) {
    EXPECT_EQ(e.code(), "E19010");
    EXPECT_NE(e.message().find("whose size each run decides (Op [expand] (Expand)"), std::string::npos) << e.message();
  }
}

TEST(RunSizedValues, TheCApiReadsTheOutputWhereTheModelKeepsIt) {
  auto g = expandGraph(2);
  std::vector<uint8_t> om = buildOm(*g, BackendOptions(), loadHostTargetProfile("x86-64-v3"));
  std::string path = testing::TempDir() + std::to_string(::getpid()) + "_expand_rt.om";
  std::ofstream(path, std::ios::binary).write((const char*)om.data(), (std::streamsize)om.size());
  atc_model* cm = atc_model_load(path.c_str(), 1);
  ASSERT_NE(cm, nullptr) << atc_last_error();
  EXPECT_EQ(atc_model_output_run_sized(cm, 0), 1);
  EXPECT_EQ(atc_model_output_bytes(cm, 0), 0u);
  const float x[3] = {1, 2, 3};
  const int64_t shape[2] = {3, 2};
  const void* ins[2] = {x, shape};
  void* outs[1] = {nullptr};
  ASSERT_EQ(atc_model_run(cm, ins, outs), 0) << atc_last_error();
  EXPECT_EQ(atc_model_output_last_dims(cm, 0)[1], 2);
  EXPECT_EQ(atc_model_output_last_bytes(cm, 0), 24u);
  EXPECT_EQ(((const float*)atc_model_output_data(cm, 0))[5], 3.f);
  EXPECT_EQ(atc_model_output_data(cm, 1), nullptr);
  atc_model_free(cm);
  std::remove(path.c_str());
}

}  // namespace

// Pad with its axes fed at run time (opset 18): any dim may be padded, so the output is
// run-sized; an axis out of range or repeated fails the run, and the next run works.
TEST(RunSizedValues, PadAxesFedAtRunTime) {
  Graph g;
  g.name = "pad_axes_rt";
  g.opsetVersion = 18;
  Value* x = g.newValue("x", TensorType(DType::F32, {2, 3}));
  Value* pads = g.newConstant("pads", makeIntTensor({1, 2}, DType::I64));
  Value* axes = g.newValue("axes", TensorType(DType::I64, {1}));
  Value* y = g.newValue("y");
  g.inputs = {x, axes};
  Node* pad = g.addNode("Pad", "pad", {x, pads, nullptr, axes}, {y});
  pad->attrs["mode"] = std::string("wrap");
  inferNode(g, *pad);
  g.outputs = {y};
  EXPECT_TRUE(isRunSized(y));
  auto m = compile(g);
  const float xs[6] = {1, 2, 3, 4, 5, 6};
  const int64_t cols[1] = {-1}, rows[1] = {0};
  m->run({xs, cols}, {nullptr});  // wrap along dim 1: one column before, two after
  ASSERT_EQ(m->lastOutputs()[0].shape, (std::vector<int64_t>{2, 6}));
  const float* out = (const float*)m->outputData(0);
  const float wantCols[12] = {3, 1, 2, 3, 1, 2, 6, 4, 5, 6, 4, 5};
  for (int i = 0; i < 12; ++i) EXPECT_EQ(out[i], wantCols[i]) << i;
  m->run({xs, rows}, {nullptr});
  ASSERT_EQ(m->lastOutputs()[0].shape, (std::vector<int64_t>{5, 3}));
  out = (const float*)m->outputData(0);
  const float wantRows[15] = {4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6};
  for (int i = 0; i < 15; ++i) EXPECT_EQ(out[i], wantRows[i]) << i;
  const int64_t bad[1] = {2};
  EXPECT_THROW(m->run({xs, bad}, {nullptr}), rt::RuntimeError);
  m->run({xs, cols}, {nullptr});
  EXPECT_EQ(m->lastOutputs()[0].shape, (std::vector<int64_t>{2, 6}));
}
