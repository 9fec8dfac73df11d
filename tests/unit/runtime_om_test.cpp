// buildOm + runtime: Identity graphs end to end, constant and pass-through outputs, memory
// plan reuse, and clear errors for truncated or corrupted files.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>

#include "kernels/codegen/host_cpu.h"
#include "backend/om_builder.h"
#include "backend/plan_memory.h"
#include "ir/op_registry.h"
#include "runtime/atc_runtime.h"
#include "runtime/om_format.h"
#include "tests/unit/om_test_util.h"

using namespace atc;
using namespace atc::omtest;

namespace {

std::vector<uint8_t> buildIdentityModel() {
  Graph g;
  g.name = "idmodel";
  Value* x = g.newValue("x", TensorType(DType::F32, {2, 3}));
  g.inputs.push_back(x);
  Value* a = g.newValue("a", TensorType(DType::F32, {2, 3}));
  Value* b = g.newValue("b", TensorType(DType::F32, {2, 3}));
  g.addNode("Identity", "id0", {x}, {a});
  g.addNode("Identity", "id1", {a}, {b});
  auto ct = std::make_shared<Tensor>(TensorType(DType::I64, {3}));
  for (int i = 0; i < 3; ++i) ct->as<int64_t>()[i] = 10 + i;
  Value* c = g.newConstant("c", ct);
  Value* cz = g.newValue("cz", TensorType(DType::I64, {3}));
  g.addNode("Identity", "idc", {c}, {cz});
  Value* e = g.newValue("e", TensorType(DType::F32, {0, 4}));
  g.inputs.push_back(e);
  g.outputs = {b, cz, x, c};
  BackendOptions o;
  o.cmdline = "test";
  return buildOm(g, o, loadHostTargetProfile("native"));
}

}  // namespace

TEST(RuntimeOm, IdentityModelRuns) {
  std::vector<uint8_t> om1 = buildIdentityModel();
  EXPECT_EQ(om1, buildIdentityModel());  // deterministic
  auto m = rt::Model::loadFromMemory(om1.data(), om1.size(), 2);
  ASSERT_EQ(m->inputs().size(), 2u);
  ASSERT_EQ(m->outputs().size(), 4u);
  EXPECT_EQ(m->inputs()[0].dtype, "float32");
  EXPECT_EQ(m->inputs()[0].shapeString(), "[2,3]");
  EXPECT_EQ(m->inputs()[1].bytes, 0u);
  float x[6] = {1, 2, 3, 4, 5, 6}, b[6] = {0};
  float x2[6] = {0};
  int64_t cz[3] = {0}, c[3] = {0};
  m->run({x, nullptr}, {b, cz, x2, c});
  EXPECT_EQ(0, memcmp(x, b, sizeof x));
  EXPECT_EQ(0, memcmp(x, x2, sizeof x));
  EXPECT_EQ(cz[0], 10);
  EXPECT_EQ(cz[2], 12);
  EXPECT_EQ(c[1], 11);
  EXPECT_THROW(m->run({x}, {b, cz, x2, c}), rt::RuntimeError);
}

TEST(RuntimeOm, TruncatedAndCorrupted) {
  std::vector<uint8_t> om1 = buildIdentityModel();
  expectError(std::vector<uint8_t>(om1.begin(), om1.begin() + 100), "truncated");
  expectError(std::vector<uint8_t>(om1.begin(), om1.end() - 10), "truncated");
  std::vector<uint8_t> bad = om1;
  bad[bad.size() / 2] ^= 0x40;
  expectError(bad, "checksum");
  bad = om1;
  bad[0] = 'X';
  expectError(bad, "magic");
  bad = om1;
  bad[8] = 99;
  expectError(bad, "version");
  expectError({}, "truncated");
  EXPECT_THROW(rt::Model::load("/nonexistent/model.om"), rt::RuntimeError);
}

// Crafted .om files with a valid checksum (recomputed, as an attacker can): every field the
// loader uses is checked, and each gives a clear error instead of a crash.
TEST(RuntimeOm, CraftedFilesAreRefused) {
  std::vector<uint8_t> om1 = buildIdentityModel();
  // The header is inside the checksum: a changed memory size alone is detected.
  std::vector<uint8_t> bad = om1;
  bad[120] ^= 0x01;
  expectError(bad, "checksum");
  // An arena size near 2^64 (it used to wrap to 64 bytes).
  expectError(editPlan(om1, [](nlohmann::json& j) { j["arena_size"] = UINT64_MAX - 10; }), "arena size");
  // An input of shape [2,3] float32 declared as 3072 bytes (it used to over-read the heap).
  expectError(editPlan(om1, [](nlohmann::json& j) { j["inputs"][0]["bytes"] = 3072; }), "bytes declared");
  expectError(editPlan(om1, [](nlohmann::json& j) { j["outputs"][0]["shape"] = {1}; }), "bytes declared");
  expectError(editPlan(om1, [](nlohmann::json& j) { j["inputs"][0]["dtype"] = "float99"; }), "bytes declared");
  // JSON partitions that are not zstd frames, or claim a huge unpacked size (a zstd bomb).
  expectError(rewrite(om1, om::kTaskInfo, [](std::vector<uint8_t>& b) { b.assign(b.size(), 'x'); }), "zstd");
  expectError(rewrite(om1, om::kTaskInfo, [](std::vector<uint8_t>& b) { b.resize(b.size() / 2); }), "TASK_INFO");
  expectError(rewrite(om1, om::kTaskInfo, [](std::vector<uint8_t>& b) {
                // a frame header claiming 2^40 bytes: magic, FHD (8-byte size, single segment), size
                b = {0x28, 0xB5, 0x2F, 0xFD, 0xE0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0};
              }),
              "too large");
  // Found by fuzz_om: a 16-byte frame claiming 3 GiB (under the 4 GiB cap) made the loader
  // allocate and clear 3 GiB before failing; the claim is now bounded by the frame's size.
  expectError(rewrite(om1, om::kTaskInfo, [](std::vector<uint8_t>& b) {
                b = {0x28, 0xB5, 0x2F, 0xFD, 0xE0, 0, 0, 0, 0xC0, 0, 0, 0, 0, 1, 0, 0};
              }),
              "too large");
  // A truncated kernel library (it used to fault inside dlopen).
  expectError(rewrite(om1, om::kKernels, [](std::vector<uint8_t>& b) { b.resize(b.size() / 2); }), "kernel library");
  expectError(rewrite(om1, om::kKernels, [](std::vector<uint8_t>& b) { b.resize(16); }), "kernel library");
}

// A plan whose run-sized buffers (docs/dynamic-shapes.md) a kernel could reach unsized is refused.
TEST(RuntimeOm, CraftedRunSizedPlansAreRefused) {
  Graph g;
  g.name = "expand_rt";
  g.opsetVersion = 17;
  Value* x = g.newValue("x", TensorType(DType::F32, {3, 1}));
  Value* shape = g.newValue("shape", TensorType(DType::I64, {2}));
  Value* y = g.newValue("y");
  g.inputs = {x, shape};
  inferNode(g, *g.addNode("Expand", "expand", {x, shape}, {y}));
  g.outputs = {y};
  BackendOptions o;
  o.cmdline = "test";
  std::vector<uint8_t> om1 = buildOm(g, o, loadHostTargetProfile("native"));
  rt::Model::loadFromMemory(om1.data(), om1.size(), 1, "m.om");  // the model as built loads
  auto runBuffer = [](nlohmann::json& j) -> nlohmann::json& {
    for (auto& b : j["buffers"])
      if (b["mem"] == "run") return b;
    throw std::runtime_error("no run buffer");
  };
  expectError(editPlan(om1, [](nlohmann::json& j) { j["steps"][0].erase("sizes"); }), "no earlier step sized");
  expectError(editPlan(om1, [](nlohmann::json& j) { j["steps"][0]["sizes"] = {0}; }), "no run-sized buffer");
  expectError(editPlan(om1, [&](nlohmann::json& j) { runBuffer(j)["rank"] = 9; }), "run-sized buffer of rank 9");
  expectError(editPlan(om1, [&](nlohmann::json& j) { runBuffer(j)["esize"] = 3; }), "element size 3");
  expectError(editPlan(om1, [](nlohmann::json& j) { j["outputs"][0].erase("run_sized"); }),
              "a run-sized tensor needs a run buffer");
  expectError(editPlan(om1, [](nlohmann::json& j) { j["outputs"][0]["shape"] = {-1}; }),
              "a run-sized tensor needs a run buffer");
}

TEST(RuntimeOm, HeaderFields) {
  std::vector<uint8_t> om1 = buildIdentityModel();
  om::OmView v = om::parseOm(om1.data(), om1.size());
  EXPECT_EQ(v.header.name, "idmodel");
  EXPECT_EQ(v.header.socVersion, "native");
  EXPECT_EQ(v.partitions.size(), 4u);
  EXPECT_TRUE(v.has(om::kKernels));
  auto md = nlohmann::json::parse(v.partString(om::kModelDef));
  EXPECT_EQ(md["atc_cmdline"], "test");
  EXPECT_EQ(md["graph"]["nodes"].size(), 3u);
}

TEST(PlanMemory, ReusesDisjointLifetimes) {
  std::vector<PlanBuffer> b(3);
  b[0].size = 100, b[0].first = 0, b[0].last = 1;
  b[1].size = 100, b[1].first = 1, b[1].last = 2;
  b[2].size = 64, b[2].first = 2, b[2].last = 3;  // may reuse b[0]
  int64_t arena = planArena(b, true);
  EXPECT_EQ(arena, 256);
  EXPECT_EQ(b[2].offset, b[0].offset);
  EXPECT_NE(b[0].offset, b[1].offset);
  std::vector<PlanBuffer> c = b;
  EXPECT_EQ(planArena(c, false), 128 + 128 + 64);
}

namespace {
// y = x * 2^M through a run-time loop (ops/control/loop_ops.cpp), each iteration's value scanned.
std::vector<uint8_t> buildDoublingLoop() {
  Graph g;
  g.name = "doubling_loop";
  g.opsetVersion = 17;
  Value* m = g.newValue("M", TensorType(DType::I64, {}));
  Value* x = g.newValue("x", TensorType(DType::F32, {3}));
  g.inputs = {m, x};
  Value* iter = g.newValue("iter");
  Value* condIn = g.newValue("cond_in");
  Value* xin = g.newValue("x_in");
  Node* b = g.addNode("LoopBegin", "begin", {m, nullptr, x}, {iter, condIn, xin});
  b->attrs["_carried"] = int64_t(1);
  inferNode(g, *b);
  Value* two = g.newConstant("two", makeScalar(2, DType::F32));
  Value* xout = g.newValue("x_out");
  inferNode(g, *g.addNode("Mul", "double", {xin, two}, {xout}));
  Value* fin = g.newValue("y");
  Value* scan = g.newValue("ys");
  Node* e = g.addNode("LoopEnd", "end", {iter, condIn, xout, xout}, {fin, scan});
  e->attrs["_carried"] = int64_t(1);
  inferNode(g, *e);
  g.outputs = {fin, scan};
  BackendOptions o;
  o.cmdline = "test";
  return buildOm(g, o, loadHostTargetProfile("native"));
}

}  // namespace

TEST(RuntimeOm, RunTimeLoopRunsAnyTripCount) {
  std::vector<uint8_t> om1 = buildDoublingLoop();
  EXPECT_EQ(om1, buildDoublingLoop());  // deterministic
  auto m = rt::Model::loadFromMemory(om1.data(), om1.size(), 1);
  ASSERT_EQ(m->outputs().size(), 2u);
  EXPECT_TRUE(m->outputs()[1].runSized);
  const float x[3] = {1, -2, 0.5f};
  for (int64_t trips : {3, 0, 1, 3}) {  // one model, run after run, the scan output resized
    float y[3] = {0};
    m->run({&trips, x}, {y, nullptr});
    float want = std::ldexp(1.0f, (int)trips);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(y[k], x[k] * want) << trips;
    ASSERT_EQ(m->lastOutputs()[1].shape, (std::vector<int64_t>{trips, 3}));
    const float* ys = (const float*)m->outputData(1);
    for (int64_t t = 0; t < trips; ++t) EXPECT_EQ(ys[t * 3 + 1], x[1] * std::ldexp(1.0f, (int)t + 1));
  }
}

// A plan whose loop steps could make the runtime copy outside a buffer or jump anywhere is refused.
TEST(RuntimeOm, CraftedLoopPlansAreRefused) {
  std::vector<uint8_t> om1 = buildDoublingLoop();
  auto edit = [&](const std::function<void(nlohmann::json&)>& f) { return editPlan(om1, f); };
  expectError(edit([](nlohmann::json& j) { stepOf(j, "loop_begin")["end"] = 0; }), "no matching loop_end");
  expectError(edit([](nlohmann::json& j) { stepOf(j, "loop_end")["begin"] = 5; }), "no matching loop_end");
  expectError(edit([](nlohmann::json& j) { stepOf(j, "loop_begin")["control"] = "jump"; }), "unknown control step");
  expectError(edit([](nlohmann::json& j) { stepOf(j, "loop_begin")["args"].erase(0); }), "argument counts");
  expectError(edit([](nlohmann::json& j) { stepOf(j, "loop_end")["carried"] = 2; }), "argument counts");
  expectError(edit([](nlohmann::json& j) { stepOf(j, "loop_begin")["bytes"][2] = 4096; }), "different sizes");
  expectError(edit([](nlohmann::json& j) {
                for (auto& s : j["steps"]) {  // every copy 4096 bytes: larger than the buffers
                  if (!s.contains("control")) continue;
                  for (size_t p : s.value("control", std::string()) == "loop_begin" ? std::vector<size_t>{2, 5}
                                                                                     : std::vector<size_t>{2, 4})
                    s["bytes"][p] = 4096;
                }
              }),
              "which is smaller");
  expectError(edit([](nlohmann::json& j) { stepOf(j, "loop_begin")["bytes"][3] = 4; }), "wrong size");
  expectError(edit([](nlohmann::json& j) { stepOf(j, "loop_end")["scan_dims"] = {{4}}; }), "dims do not match");
  expectError(edit([](nlohmann::json& j) { stepOf(j, "loop_end")["sizes"] = nlohmann::json::array(); }),
              "no earlier step sized");
  expectError(edit([](nlohmann::json& j) {  // an extra argument sized: the final value's buffer is no run buffer
                stepOf(j, "loop_end")["sizes"].push_back(4);
              }),
              "no run-sized buffer");
  expectError(edit([](nlohmann::json& j) { stepOf(j, "loop_end")["shape_at"][2] = 8; }), "do not lie in its buffer");
  expectError(edit([](nlohmann::json& j) {  // the iteration number written into the weights
                for (size_t id = 0; id < j["buffers"].size(); ++id)
                  if (j["buffers"][id]["mem"] == "weights") stepOf(j, "loop_begin")["args"][3] = id;
              }),
              "in the weights");
}
