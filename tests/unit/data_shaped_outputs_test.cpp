// Outputs whose shape depends on input values (Value::shapeFromData, docs/dynamic-shapes.md):
// the IR text, constant evaluation, the refusal of readers, and the .om through the C++ and C
// runtime APIs (TopK with a run-time k, NonZero).
#include <unistd.h>
#include <gtest/gtest.h>

#include <fstream>
#include <memory>

#include "backend/lowering.h"
#include "backend/om_builder.h"
#include "ir/op_registry.h"
#include "ir/printer.h"
#include "kernels/codegen/host_cpu.h"
#include "ops/native_eval.h"
#include "runtime/atc_runtime.h"
#include "runtime/atc_runtime_c.h"
#include "support/diagnostics.h"

using namespace atc;

namespace {

// TopK(x: float32[2,5], k: int64[1] fed at run time) along axis 1; `reader` (an op type) adds
// reader(values).
std::unique_ptr<Graph> topkGraph(const std::string& reader = "") {
  auto g = std::make_unique<Graph>();
  g->name = "topk_rt";
  g->opsetVersion = 17;
  Value* x = g->newValue("x", TensorType(DType::F32, {2, 5}));
  Value* k = g->newValue("k", TensorType(DType::I64, {1}));
  Value* v = g->newValue("values");
  Value* i = g->newValue("indices");
  g->inputs = {x, k};
  Node* t = g->addNode("TopK", "topk", {x, k}, {v, i});
  t->attrs["axis"] = int64_t(1);
  inferNode(*g, *t);
  if (!reader.empty()) {
    Value* r = g->newValue("r");
    inferNode(*g, *g->addNode(reader, "reader", {v}, {r}));
    g->outputs = {r, i};
  } else {
    g->outputs = {v, i};
  }
  return g;
}

TEST(DataShapedOutputs, TypedAsTheBoundAndPrintedAsBound) {
  auto g = topkGraph();
  EXPECT_TRUE(g->outputs[0]->shapeFromData);
  EXPECT_EQ(g->outputs[0]->type.str(), "float32[2,5]");
  std::string text = printGraph(*g);
  EXPECT_NE(text.find("%values: float32[2,5] bound, %indices: int64[2,5] bound = TopK"), std::string::npos) << text;
  auto back = parseGraph(text);
  EXPECT_EQ(printGraph(*back), text);
  EXPECT_TRUE(back->outputs[1]->shapeFromData);
}

TEST(DataShapedOutputs, ConstantInputsEvaluateToTheActualShape) {
  Graph g;
  auto xt = std::make_shared<Tensor>(TensorType(DType::F32, {2, 3}));
  const float xs[6] = {0, 1.5f, 0, -2, 0, 3};
  for (int i = 0; i < 6; ++i) xt->as<float>()[i] = xs[i];
  Value* x = g.newConstant("x", xt);
  Value* y = g.newValue("y");
  Node* n = g.addNode("NonZero", "nz", {x}, {y});
  inferNode(g, *n);
  EXPECT_TRUE(y->shapeFromData);
  EXPECT_EQ(y->type.str(), "int64[2,6]");
  std::vector<TensorPtr> r = evalNodeNative(g, *n);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0]->type.str(), "int64[2,3]");
  EXPECT_EQ(r[0]->toInts(), (std::vector<int64_t>{0, 1, 1, 1, 0, 2}));
}

TEST(DataShapedOutputs, AReaderIsRefusedWithE19010) {
  auto g = topkGraph("Transpose");
  try {
    lowerGraph(*g, loadHostTargetProfile("x86-64-v3"));
    FAIL() << "a node reading a data-shaped value was lowered";
  } catch (const AtcError& e) {
    EXPECT_EQ(e.code(), "E19010");
    EXPECT_NE(e.message().find("Op [reader] (Transpose) reads values"), std::string::npos) << e.message();
  }
}

// ReduceSum(x: float32[2,3,4], axes: int64[na] fed at run time).
std::unique_ptr<Graph> reduceGraph(int64_t na, int64_t keepdims) {
  auto g = std::make_unique<Graph>();
  g->name = "reduce_rt";
  g->opsetVersion = 18;
  Value* x = g->newValue("x", TensorType(DType::F32, {2, 3, 4}));
  Value* a = g->newValue("axes", TensorType(DType::I64, {na}));
  Value* y = g->newValue("y");
  g->inputs = {x, a};
  g->outputs = {y};
  Node* n = g->addNode("ReduceSum", "rs", {x, a}, {y});
  n->attrs["keepdims"] = keepdims;
  inferNode(*g, *n);
  return g;
}

TEST(DataShapedOutputs, RuntimeReduceAxesBoundTheOutput) {
  auto keep = reduceGraph(1, 1), drop = reduceGraph(1, 0), drop2 = reduceGraph(2, 0);
  EXPECT_TRUE(keep->outputs[0]->shapeFromData);
  EXPECT_EQ(keep->outputs[0]->type.str(), "float32[2,3,4]");
  EXPECT_EQ(drop->outputs[0]->type.str(), "float32[3,4]");  // dim j is X's dim j or j + 1
  EXPECT_EQ(drop2->outputs[0]->type.str(), "float32[4]");
  // the axes' length alone decides: none (reduce all) or as many as X has dims
  auto none = reduceGraph(0, 1), all = reduceGraph(3, 0);
  EXPECT_FALSE(none->outputs[0]->shapeFromData);
  EXPECT_EQ(none->outputs[0]->type.str(), "float32[1,1,1]");
  EXPECT_FALSE(all->outputs[0]->shapeFromData);
  EXPECT_EQ(all->outputs[0]->type.str(), "float32[]");
}

TEST(DataShapedOutputs, RuntimeReduceAxesRunAndARepeatedAxisFails) {
  auto g = reduceGraph(1, 0);
  std::vector<uint8_t> om = buildOm(*g, BackendOptions(), loadHostTargetProfile("x86-64-v3"));
  auto m = rt::Model::loadFromMemory(om.data(), om.size(), 1, "reduce_rt");
  float x[24];
  for (int i = 0; i < 24; ++i) x[i] = (float)i;
  std::vector<float> y(12, -1.f);
  int64_t axis = 1;
  m->run({x, &axis}, {y.data()});
  EXPECT_EQ(m->lastOutputs()[0].shape, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(std::vector<float>(y.begin(), y.begin() + 8), (std::vector<float>{12, 15, 18, 21, 48, 51, 54, 57}));
  axis = -3;
  m->run({x, &axis}, {y.data()});
  EXPECT_EQ(m->lastOutputs()[0].shape, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(y[0], 12.f);
  EXPECT_EQ(y[11], 34.f);
  axis = 3;
  EXPECT_THROW(m->run({x, &axis}, {y.data()}), rt::RuntimeError);
}

TEST(DataShapedOutputs, ElementwiseReadersRunOverTheActualElements) {
  // Relu(TopK values) * 2: the chain keeps TopK's run-time shape; Add of a tensor is refused.
  auto g = topkGraph("Relu");
  auto two = std::make_shared<Tensor>(TensorType(DType::F32, {}));
  two->as<float>()[0] = 2.f;
  Value* y = g->newValue("y");
  Node* mul = g->addNode("Mul", "mul", {g->outputs[0], g->newConstant("two", two)}, {y});
  inferNode(*g, *mul);
  g->outputs[0] = y;
  EXPECT_TRUE(y->shapeFromData);
  std::vector<uint8_t> om = buildOm(*g, BackendOptions(), loadHostTargetProfile("x86-64-v3"));
  auto m = rt::Model::loadFromMemory(om.data(), om.size(), 1, "topk_chain");
  const float x[10] = {3, -1, 4, 1, 5, -9, -2, -6, -5, -3};
  for (int64_t k : {2, 0, 4}) {
    std::vector<float> v(10, -7.f);
    std::vector<int64_t> idx(10);
    m->run({x, &k}, {v.data(), idx.data()});
    EXPECT_EQ(m->lastOutputs()[0].shape, (std::vector<int64_t>{2, k}));
    if (k == 4)  // rows sorted: {5, 4, 3, 1} and {-2, -3, -5, -6}, relu, times 2
      EXPECT_EQ(std::vector<float>(v.begin(), v.begin() + 8), (std::vector<float>{10, 8, 6, 2, 0, 0, 0, 0}));
  }
  Value* z = g->newValue("z");
  Value* x0 = g->inputs[0];
  inferNode(*g, *g->addNode("Add", "add", {y, x0}, {z}));
  g->outputs[0] = z;
  try {
    lowerGraph(*g, loadHostTargetProfile("x86-64-v3"));
    FAIL() << "an Add broadcasting a tensor over a data-shaped value was lowered";
  } catch (const AtcError& e) {
    EXPECT_EQ(e.code(), "E19010");
    EXPECT_NE(e.message().find("Op [topk] (TopK) decides it"), std::string::npos) << e.message();
  }
}

TEST(DataShapedOutputs, RuntimeGivesEachRunsShape) {
  auto g = topkGraph();
  std::vector<uint8_t> om = buildOm(*g, BackendOptions(), loadHostTargetProfile("x86-64-v3"));
  auto m = rt::Model::loadFromMemory(om.data(), om.size(), 1, "topk");
  ASSERT_EQ(m->outputs().size(), 2u);
  EXPECT_TRUE(m->outputs()[0].shapeFromData);
  EXPECT_EQ(m->outputs()[0].shapeString(), "[2,5]");
  EXPECT_EQ(m->lastOutputs()[0].shapeString(), "[2,5]");  // before a run: the bound
  const float x[10] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3};
  for (int64_t k : {2, 0, 5}) {
    std::vector<float> v(10, -1.f);
    std::vector<int64_t> idx(10, -1);
    m->run({x, &k}, {v.data(), idx.data()});
    EXPECT_EQ(m->lastOutputs()[0].shape, (std::vector<int64_t>{2, k}));
    EXPECT_EQ(m->lastOutputs()[1].bytes, (uint64_t)(2 * k * 8));
    EXPECT_EQ(m->outputs()[0].shapeString(), "[2,5]");  // the bound stays what callers provide
    if (k == 2) {
      EXPECT_EQ(std::vector<float>(v.begin(), v.begin() + 4), (std::vector<float>{5, 4, 9, 6}));
      EXPECT_EQ(std::vector<int64_t>(idx.begin(), idx.begin() + 4), (std::vector<int64_t>{4, 2, 0, 2}));
    }
  }
  std::string path = testing::TempDir() + std::to_string(::getpid()) + "_topk_rt.om";
  std::ofstream(path, std::ios::binary).write((const char*)om.data(), (std::streamsize)om.size());
  atc_model* cm = atc_model_load(path.c_str(), 1);
  ASSERT_NE(cm, nullptr) << atc_last_error();
  EXPECT_EQ(atc_model_output_shape_from_data(cm, 1), 1);
  int64_t k = 3;
  std::vector<float> v(10);
  std::vector<int64_t> idx(10);
  const void* ins[2] = {x, &k};
  void* outs[2] = {v.data(), idx.data()};
  ASSERT_EQ(atc_model_run(cm, ins, outs), 0) << atc_last_error();
  EXPECT_EQ(atc_model_output_last_dims(cm, 1)[1], 3);
  EXPECT_EQ(atc_model_output_last_bytes(cm, 0), 24u);
  EXPECT_EQ(atc_model_output_dims(cm, 0)[1], 5);
  atc_model_free(cm);
  std::remove(path.c_str());
}

}  // namespace
