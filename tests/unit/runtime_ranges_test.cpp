// Shape ranges (docs/dynamic-shapes.md, "Ranges") through OmBuilder and the runtime: one plan
// per shape, the steps whose params change with the shape on generic kernels (params from the
// plan at run time) with the same numbers as static builds; the loader's checks of them; the
// C API; the weight store sharing the prefixes a range build folds per shape.
#include <unistd.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>

#include "backend/om_builder.h"
#include "backend/weight_store.h"
#include "kernels/codegen/host_cpu.h"
#include "runtime/atc_runtime.h"
#include "runtime/atc_runtime_c.h"
#include "runtime/om_format.h"
#include "tests/unit/om_test_util.h"

using namespace atc;
using omtest::editPlan;
using omtest::expectError;

namespace {

constexpr int64_t kK = 24, kN = 40;  // x: [n, kK] -> y: [n, kN]

// y = Relu(MatMul(x, W) + b) * 0.5: a gemm whose M is the range's dim, then element-wise ops.
std::unique_ptr<Graph> rangeGraph(int64_t n) {
  auto g = std::make_unique<Graph>();
  g->name = "ranges";
  Value* x = g->newValue("x", TensorType(DType::F32, {n, kK}));
  auto wt = std::make_shared<Tensor>(TensorType(DType::F32, {kK, kN}));
  for (int64_t i = 0; i < kK * kN; ++i) wt->as<float>()[i] = (float)((i * 7) % 13 - 6) * 0.125f;
  auto bt = std::make_shared<Tensor>(TensorType(DType::F32, {kN}));
  for (int64_t i = 0; i < kN; ++i) bt->as<float>()[i] = (float)(i % 5) - 2.f;
  auto ht = std::make_shared<Tensor>(TensorType(DType::F32, {}));
  ht->as<float>()[0] = 0.5f;
  Value* w = g->newConstant("w", wt);
  Value* b = g->newConstant("b", bt);
  Value* h = g->newConstant("h", ht);
  Value* m = g->newValue("m", TensorType(DType::F32, {n, kN}));
  Value* s = g->newValue("s", TensorType(DType::F32, {n, kN}));
  Value* r = g->newValue("r", TensorType(DType::F32, {n, kN}));
  Value* y = g->newValue("y", TensorType(DType::F32, {n, kN}));
  g->inputs.push_back(x);
  g->addNode("MatMul", "mm", {x, w}, {m});
  g->addNode("Add", "add", {m, b}, {s});
  g->addNode("Relu", "relu", {s}, {r});
  g->addNode("Mul", "half", {r, h}, {y});
  g->outputs.push_back(y);
  return g;
}

std::vector<uint8_t> finish(OmBuilder& b) {
  std::vector<uint8_t> out;
  b.finish(nullptr, [&out](size_t n) {
    out.assign(n, 0);
    return out.data();
  });
  return out;
}

std::vector<uint8_t> buildRange(int64_t lo, int64_t hi, const char* soc = "x86-64-v3") {
  OmBuilder b(BackendOptions(), loadHostTargetProfile(soc));
  nlohmann::json ranges = {{{"name", "x"}, {"min", {lo, kK}}, {"max", {hi, kK}}}};
  b.setDynamic("input_shape", "range", {{"x", {-1, kK}}}, ranges);
  for (int64_t n = lo; n <= hi; ++n) {
    auto g = rangeGraph(n);
    b.addGraph(*g, {n});
  }
  return finish(b);
}

std::vector<float> runStatic(int64_t n, const std::vector<float>& x, const char* soc = "x86-64-v3") {
  auto g = rangeGraph(n);
  std::vector<uint8_t> om = buildOm(*g, BackendOptions(), loadHostTargetProfile(soc));
  auto m = rt::Model::loadFromMemory(om.data(), om.size(), 1, "static");
  std::vector<float> y((size_t)(n * kN));
  m->run({x.data()}, {y.data()});
  return y;
}

std::vector<float> input(int64_t n) {
  std::vector<float> x((size_t)(n * kK));
  for (size_t i = 0; i < x.size(); ++i) x[i] = (float)((int)(i * 5 % 17) - 8) * 0.25f;
  return x;
}

}  // namespace

TEST(RuntimeRanges, EveryShapeMatchesItsStaticBuild) {
  std::vector<uint8_t> om = buildRange(1, 9);
  om::OmView v = om::parseOm(om.data(), om.size(), "ranges");
  auto plan = nlohmann::json::parse(v.partString(om::kTaskInfo));
  ASSERT_FALSE(plan.at("generic_kernels").empty());  // the gemm's params change with M
  size_t withParams = 0;
  for (auto& s : plan.at("gears")[0].at("steps")) withParams += s.contains("params");
  EXPECT_GT(withParams, 0u);

  auto m = rt::Model::loadFromMemory(om.data(), om.size(), 2, "ranges");
  EXPECT_EQ(m->dynamicKind(), "range");
  ASSERT_EQ(m->gears().size(), 9u);
  ASSERT_EQ(m->inputRanges().size(), 1u);
  EXPECT_EQ(m->inputRanges()[0].min, (std::vector<int64_t>{1, kK}));
  EXPECT_EQ(m->inputRanges()[0].max, (std::vector<int64_t>{9, kK}));
  for (int64_t n : {1, 2, 5, 7, 9}) {  // M below and above the wide-tile switch, odd sizes
    m->setGear(m->findGear({{n, kK}}));
    std::vector<float> x = input(n), y((size_t)(n * kN), -99.f);
    m->run({x.data()}, {y.data()});
    std::vector<float> want = runStatic(n, x);
    for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], want[i]) << "n " << n << " element " << i;
  }
  try {
    m->findGear({{10, kK}});
    FAIL() << "a shape outside the range was accepted";
  } catch (const rt::RuntimeError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("outside the model's shape ranges"), std::string::npos) << msg;
    EXPECT_NE(msg.find("x[1~9,24]"), std::string::npos) << msg;
  }
}

// On 512-bit targets a range build packs B for the 6x64 tiles at every M (a static build of at
// most 4 rows uses the 16-column tiles): the few-row products go through the wide tiles.
TEST(RuntimeRanges, WideTilesForFewRowsOnAvx512) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "the host has no AVX-512";
  std::vector<uint8_t> om = buildRange(1, 6, "x86-64-v4");
  auto m = rt::Model::loadFromMemory(om.data(), om.size(), 2, "ranges");
  for (int64_t n = 1; n <= 6; ++n) {
    m->setGear(m->findGear({{n, kK}}));
    std::vector<float> x = input(n), y((size_t)(n * kN), -99.f);
    m->run({x.data()}, {y.data()});
    std::vector<float> want = runStatic(n, x, "x86-64-v4");
    for (size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], want[i], 1e-5f) << "n " << n << " element " << i;
  }
}

TEST(RuntimeRanges, CApiListsTheRanges) {
  std::vector<uint8_t> om = buildRange(2, 4);
  std::string path = testing::TempDir() + std::to_string(::getpid()) + "_ranges_capi.om";
  std::ofstream(path, std::ios::binary).write((const char*)om.data(), (std::streamsize)om.size());
  atc_model* m = atc_model_load(path.c_str(), 1);
  ASSERT_NE(m, nullptr) << atc_last_error();
  EXPECT_STREQ(atc_model_dynamic_kind(m), "range");
  ASSERT_EQ(atc_model_num_input_ranges(m), 1u);
  const char* name = nullptr;
  size_t rank = 0;
  const int64_t *lo = nullptr, *hi = nullptr;
  ASSERT_EQ(atc_model_input_range(m, 0, &name, &rank, &lo, &hi), 0);
  EXPECT_STREQ(name, "x");
  ASSERT_EQ(rank, 2u);
  EXPECT_EQ(lo[0], 2);
  EXPECT_EQ(hi[0], 4);
  EXPECT_EQ(hi[1], kK);
  EXPECT_EQ(atc_model_input_range(m, 1, &name, &rank, &lo, &hi), -1);
  int64_t shape[2] = {3, kK};
  const int64_t* shapes[1] = {shape};
  size_t ranks[1] = {2};
  ASSERT_EQ(atc_model_set_input_shapes(m, ranks, shapes), 0) << atc_last_error();
  EXPECT_EQ(atc_model_current_gear(m), 1u);
  shape[0] = 5;
  EXPECT_EQ(atc_model_set_input_shapes(m, ranks, shapes), -1);
  EXPECT_NE(std::string(atc_last_error()).find("x[2~4,24]"), std::string::npos) << atc_last_error();
  atc_model_free(m);
  std::remove(path.c_str());
}

TEST(RuntimeRanges, LoaderChecksGenericSteps) {
  std::vector<uint8_t> om = buildRange(1, 3);
  auto firstGeneric = [](nlohmann::json& j) -> nlohmann::json& {
    for (auto& s : j["gears"][0]["steps"])
      if (s.contains("params")) return s;
    throw std::runtime_error("no step with params");
  };
  expectError(editPlan(om, [&](nlohmann::json& j) { firstGeneric(j).erase("params"); }),
              "calls a generic kernel without params");
  expectError(editPlan(om, [&](nlohmann::json& j) { j.erase("generic_kernels"); }),
              "has params for a specialised kernel");
  expectError(editPlan(om, [&](nlohmann::json& j) { firstGeneric(j)["params"].erase(0); }), "another step");
  expectError(editPlan(om, [&](nlohmann::json& j) { firstGeneric(j)["params"] = nlohmann::json::array(); }),
              "gives its generic kernel 0 params");
  expectError(editPlan(om, [](nlohmann::json& j) { j["dynamic"].erase("ranges"); }), "ranges");
  expectError(editPlan(om, [](nlohmann::json& j) { j["dynamic"]["ranges"][0]["min"][0] = 4; }), "not min <= max");
  expectError(editPlan(om, [](nlohmann::json& j) { j["dynamic"]["kind"] = "ranges"; }), "unknown dynamic kind");
}

TEST(WeightStoreRanges, PrefixesShareTheLargestWeight) {
  auto tensor = [](size_t n, int seed) {
    auto t = std::make_shared<Tensor>(TensorType(DType::U8, {(int64_t)n}));
    for (size_t i = 0; i < n; ++i) t->as<uint8_t>()[i] = (uint8_t)(i * 31 + (size_t)seed);
    return t;
  };
  WeightStore ws;
  auto small = tensor(128, 0), other = tensor(100, 1), big = tensor(300, 0), tiny = tensor(16, 0);
  WeightStore::Place ps = ws.place(small), po = ws.place(other), pb = ws.place(big), pt = ws.place(tiny);
  std::map<int64_t, int64_t> moved = ws.mergePrefixes();
  // small is big's first 128 bytes: it lives there now; tiny is below the 64 bytes matched on
  EXPECT_EQ(moved.at(ps.offset), moved.at(pb.offset));
  EXPECT_NE(moved.at(po.offset), moved.at(pb.offset));
  EXPECT_NE(moved.at(pt.offset), moved.at(pb.offset));
  EXPECT_LT(ws.bytes(), (size_t)(pt.offset + pt.size));
  std::vector<uint8_t> blob(ws.bytes(), 0);
  ws.fill(blob.data());
  EXPECT_EQ(std::memcmp(blob.data() + moved.at(ps.offset), small->data.data(), 128), 0);
  EXPECT_EQ(std::memcmp(blob.data() + moved.at(pb.offset), big->data.data(), 300), 0);
  EXPECT_EQ(std::memcmp(blob.data() + moved.at(po.offset), other->data.data(), 100), 0);
  EXPECT_EQ(std::memcmp(blob.data() + moved.at(pt.offset), tiny->data.data(), 16), 0);
}
