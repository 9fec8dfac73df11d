// Dynamic gears (docs/dynamic-shapes.md) through OmBuilder, the C++ and the C runtime API:
// one .om with a plan per gear, the weights stored once, gears chosen by dims or by shapes.
#include <unistd.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

#include "backend/om_builder.h"
#include "kernels/codegen/host_cpu.h"
#include "runtime/atc_runtime.h"
#include "runtime/atc_runtime_c.h"
#include "runtime/om_format.h"

using namespace atc;

namespace {

// y = Relu(x + w), x: float32[batch, 4], w: a 4-float constant (the same bytes in every gear).
std::unique_ptr<Graph> gearGraph(int64_t batch) {
  auto g = std::make_unique<Graph>();
  g->name = "gears";
  Value* x = g->newValue("x", TensorType(DType::F32, {batch, 4}));
  auto wt = std::make_shared<Tensor>(TensorType(DType::F32, {4}));
  for (int i = 0; i < 4; ++i) wt->as<float>()[i] = (float)(i - 2);
  Value* w = g->newConstant("w", wt);
  Value* s = g->newValue("s", TensorType(DType::F32, {batch, 4}));
  Value* y = g->newValue("y", TensorType(DType::F32, {batch, 4}));
  g->inputs.push_back(x);
  g->addNode("Add", "add", {x, w}, {s});
  g->addNode("Relu", "relu", {s}, {y});
  g->outputs.push_back(y);
  return g;
}

std::vector<uint8_t> buildGears(const std::vector<int64_t>& batches) {
  OmBuilder b(BackendOptions(), loadHostTargetProfile("x86-64-v3"));
  b.setDynamic("dynamic_batch_size", "batch", {{"x", {-1, 4}}});
  for (int64_t n : batches) {
    auto g = gearGraph(n);
    b.addGraph(*g, {n});
  }
  std::vector<uint8_t> out;
  b.finish(nullptr, [&out](size_t n) {
    out.assign(n, 0);
    return out.data();
  });
  return out;
}

std::string writeTemp(const std::vector<uint8_t>& om, const char* tag) {
  std::string path = testing::TempDir() + std::to_string(::getpid()) + tag;
  std::ofstream(path, std::ios::binary).write((const char*)om.data(), (std::streamsize)om.size());
  return path;
}

}  // namespace

TEST(RuntimeGears, OnePlanPerGearWeightsOnce) {
  std::vector<uint8_t> om = buildGears({1, 3, 8});
  om::OmView v = om::parseOm(om.data(), om.size(), "gears");
  EXPECT_EQ(v.header.weightSize, 16u);  // the 4 floats once, not once per gear
  EXPECT_EQ(v.header.memorySize, 2u * 8 * 4 * 4);  // the largest gear: x and y of [8,4]

  auto m = rt::Model::loadFromMemory(om.data(), om.size(), 1, "gears");
  EXPECT_EQ(m->dynamicKind(), "batch");
  ASSERT_EQ(m->gears().size(), 3u);
  EXPECT_EQ(m->gears()[1].dims, std::vector<int64_t>{3});
  EXPECT_EQ(m->gear(), 0u);
  for (size_t gi = 0; gi < 3; ++gi) {
    m->setGear(gi);
    int64_t batch = m->gears()[gi].dims[0];
    ASSERT_EQ(m->inputs()[0].shape, (std::vector<int64_t>{batch, 4}));
    ASSERT_EQ(m->outputs()[0].shape, (std::vector<int64_t>{batch, 4}));
    std::vector<float> x(batch * 4), y(batch * 4, -99.f);
    for (size_t i = 0; i < x.size(); ++i) x[i] = (float)i * 0.5f - 1.f;
    m->run({x.data()}, {y.data()});
    for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], std::max(0.f, x[i] + (float)((int)(i % 4) - 2))) << i;
  }
  EXPECT_EQ(m->findGear({{3, 4}}), 1u);
  EXPECT_EQ(m->findGearByDims({8}), 2u);
  try {
    m->findGear({{2, 4}});
    FAIL() << "a shape of no gear was accepted";
  } catch (const rt::RuntimeError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("[2,4]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("gear 1 (batch 3): x[3,4]"), std::string::npos) << msg;
  }
  EXPECT_THROW(m->setGear(3), rt::RuntimeError);
  EXPECT_EQ(m->gear(), 2u);  // a refused choice keeps the gear
}

TEST(RuntimeGears, StaticModelHasOneGear) {
  auto g = gearGraph(2);
  std::vector<uint8_t> om = buildOm(*g, BackendOptions(), loadHostTargetProfile("x86-64-v3"));
  auto m = rt::Model::loadFromMemory(om.data(), om.size(), 1, "static");
  EXPECT_EQ(m->dynamicKind(), "");
  ASSERT_EQ(m->gears().size(), 1u);
  EXPECT_TRUE(m->gears()[0].dims.empty());
  EXPECT_THROW(m->findGearByDims({2}), rt::RuntimeError);
}

TEST(RuntimeGears, CApiChoosesGears) {
  std::string path = writeTemp(buildGears({2, 5}), "_gears_capi.om");
  atc_model* m = atc_model_load(path.c_str(), 1);
  ASSERT_NE(m, nullptr) << atc_last_error();
  EXPECT_STREQ(atc_model_dynamic_kind(m), "batch");
  EXPECT_EQ(atc_model_num_gears(m), 2u);
  size_t n = 0;
  const int64_t* d = atc_model_gear_dims(m, 1, &n);
  ASSERT_EQ(n, 1u);
  EXPECT_EQ(d[0], 5);
  EXPECT_EQ(atc_model_gear_dims(m, 2, &n), nullptr);
  EXPECT_EQ(n, 0u);

  int64_t five = 5;
  ASSERT_EQ(atc_model_select_gear(m, &five, 1), 0) << atc_last_error();
  EXPECT_EQ(atc_model_current_gear(m), 1u);
  EXPECT_EQ(atc_model_input_dims(m, 0)[0], 5);
  EXPECT_EQ(atc_model_output_bytes(m, 0), 5u * 4 * 4);
  std::vector<float> x(20, 1.f), y(20, 0.f);
  const void* ins[1] = {x.data()};
  void* outs[1] = {y.data()};
  ASSERT_EQ(atc_model_run(m, ins, outs), 0) << atc_last_error();
  EXPECT_EQ(y[19], 2.f);  // 1 + w[3] = 1 + 1

  int64_t shape[2] = {2, 4};
  const int64_t* shapes[1] = {shape};
  size_t ranks[1] = {2};
  ASSERT_EQ(atc_model_set_input_shapes(m, ranks, shapes), 0) << atc_last_error();
  EXPECT_EQ(atc_model_current_gear(m), 0u);
  shape[0] = 3;
  EXPECT_EQ(atc_model_set_input_shapes(m, ranks, shapes), -1);
  EXPECT_NE(std::string(atc_last_error()).find("gear 1 (batch 5): x[5,4]"), std::string::npos) << atc_last_error();
  EXPECT_EQ(atc_model_current_gear(m), 0u);
  int64_t seven = 7;
  EXPECT_EQ(atc_model_select_gear(m, &seven, 1), -1);
  EXPECT_EQ(atc_model_set_gear(m, 9), -1);
  EXPECT_EQ(atc_model_set_gear(m, 1), 0);
  atc_model_free(m);
  std::remove(path.c_str());
}

TEST(RuntimeGears, GearIsKeptWhileAnObserverIsSet) {
  std::vector<uint8_t> om = buildGears({1, 2});
  auto m = rt::Model::loadFromMemory(om.data(), om.size(), 1, "gears");
  rt::StepObserver obs;
  m->setStepObserver(&obs);
  EXPECT_THROW(m->setGear(1), rt::RuntimeError);  // the observer knows gear 0's steps
  m->setGear(0);
  m->setStepObserver(nullptr);
  m->setGear(1);
  EXPECT_EQ(m->gear(), 1u);
}

// An empty constant leaves the end of the weights where it was, so the next weight starts at
// the same offset: each must keep its own region (a constant graph output after it was once
// given the empty one's size-0 region, and the runtime refused the model).
TEST(RuntimeGears, EmptyWeightAndTheNextOneKeepTheirOwnRegions) {
  Graph g;
  g.name = "empty_weight";
  Value* x = g.newValue("x", TensorType(DType::F32, {4}));
  Value* e = g.newConstant("e", std::make_shared<Tensor>(TensorType(DType::F32, {0})));
  auto ct = std::make_shared<Tensor>(TensorType(DType::F32, {4}));
  for (int i = 0; i < 4; ++i) ct->as<float>()[i] = (float)(i + 1);
  Value* c = g.newConstant("c", ct);
  Value* y = g.newValue("y", TensorType(DType::F32, {4}));
  g.inputs.push_back(x);
  Node* n = g.addNode("Concat", "cat", {x, e}, {y});
  n->attrs["axis"] = int64_t(0);
  g.outputs.push_back(y);
  g.outputs.push_back(c);
  std::vector<uint8_t> om = buildOm(g, BackendOptions(), loadHostTargetProfile("x86-64-v3"));
  auto m = rt::Model::loadFromMemory(om.data(), om.size(), 1, "empty_weight");
  float in[4] = {5, 6, 7, 8}, out0[4] = {0}, out1[4] = {0};
  m->run({in}, {out0, out1});
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(out0[i], in[i]);
    EXPECT_EQ(out1[i], (float)(i + 1));
  }
}
