// Sequences made at run time (ops/control/sequence_ops.cpp, runtime/sequence_control.h): a
// loop appends x * 2^i to a sequence; the runtime's store, Model::sequenceOutput, the C API,
// and the loader's refusal of crafted sequence steps.
#include <unistd.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <functional>

#include "backend/om_builder.h"
#include "ir/op_registry.h"
#include "kernels/codegen/host_cpu.h"
#include "runtime/atc_runtime.h"
#include "runtime/atc_runtime_c.h"
#include "runtime/om_format.h"
#include "tests/unit/om_test_util.h"

using namespace atc;
using namespace atc::omtest;

namespace {

Value* node(Graph& g, const std::string& type, const std::string& name, const std::vector<Value*>& ins,
            const std::vector<std::string>& outs, std::map<std::string, AttrValue> attrs = {}) {
  std::vector<Value*> o;
  for (auto& n : outs) o.push_back(g.newValue(n));
  Node* n = g.addNode(type, name, ins, o);
  n->attrs = std::move(attrs);
  if (type == "LoopBegin" || type == "LoopEnd") n->attrs["_carried"] = int64_t(2);
  inferNode(g, *n);
  return o[0];
}

// s = []; v = x; M times: s.insert(pos, v), v = 2 v. Outputs: the sequence, its length, s[pos]
// (static [3]) and the concatenation (run-sized).
std::vector<uint8_t> buildGrowingSequence(bool withPosition) {
  Graph g;
  g.name = "growing_sequence";
  g.opsetVersion = 17;
  Value* m = g.newValue("M", TensorType(DType::I64, {}));
  Value* x = g.newValue("x", TensorType(DType::F32, {3}));
  Value* pos = g.newValue("pos", TensorType(DType::I64, {}));
  g.inputs = {m, x, pos};
  Value* s0 = node(g, "RuntimeSequenceMake", "make", {}, {"s0"});
  Value* iter = node(g, "LoopBegin", "begin", {m, nullptr, s0, x}, {"iter", "cond_in", "s_in", "v_in"});
  Node* b = iter->producer;
  Value* s1 = node(g, "RuntimeSequenceInsert", "insert", {b->outputs[2], b->outputs[3], withPosition ? pos : nullptr},
                   {"s_out"});
  Value* two = g.newConstant("two", makeScalar(2, DType::F32));
  Value* v1 = node(g, "Mul", "double", {b->outputs[3], two}, {"v_out"});
  Value* fin = node(g, "LoopEnd", "end", {iter, b->outputs[1], s1, v1}, {"s_fin", "v_fin"});
  Value* n = node(g, "RuntimeSequenceLength", "length", {fin}, {"n"});
  Value* y = node(g, "RuntimeSequenceOutput", "out", {fin}, {"y"});
  const int64_t f32 = (int64_t)DType::F32;
  Value* at = node(g, "RuntimeSequenceAt", "at", {fin, pos}, {"at"},
                   {{"_dtype", f32}, {"_dims", std::vector<int64_t>{3}}});
  Value* cat = node(g, "RuntimeSequenceConcat", "cat", {fin}, {"cat"},
                    {{"_dtype", f32}, {"_dims", std::vector<int64_t>{-1}}, {"axis", int64_t(0)}});
  g.outputs = {y, n, at, cat};
  BackendOptions o;
  o.cmdline = "test";
  return buildOm(g, o, loadHostTargetProfile("native"));
}

}  // namespace

TEST(RuntimeSequences, LoopGrowsASequenceOfAnyLength) {
  std::vector<uint8_t> om1 = buildGrowingSequence(false);
  EXPECT_EQ(om1, buildGrowingSequence(false));  // deterministic
  auto m = rt::Model::loadFromMemory(om1.data(), om1.size(), 1);
  ASSERT_EQ(m->outputs().size(), 4u);
  EXPECT_TRUE(m->outputs()[0].sequence);
  EXPECT_FALSE(m->outputs()[1].sequence);
  EXPECT_TRUE(m->outputs()[3].runSized);
  const float x[3] = {1, -2, 0.5f};
  for (int64_t trips : {1, 4, 3}) {  // fewer after more: nothing of the longer run is left
    int64_t pos = 0, n = -1;
    float at[3];
    m->run({&trips, x, &pos}, {nullptr, &n, at, nullptr});
    EXPECT_EQ(n, trips);
    EXPECT_EQ(at[1], -2.0f);  // s[0] = x
    ASSERT_EQ(m->lastOutputs()[3].shape, std::vector<int64_t>{3 * trips});
    EXPECT_EQ(((const float*)m->outputData(3))[3 * trips - 1], 0.5f * float(1 << (trips - 1)));
    const auto& l = m->sequenceOutput(0);
    ASSERT_EQ((int64_t)l.size(), trips);
    for (int64_t i = 0; i < trips; ++i) {
      EXPECT_EQ(l[(size_t)i].desc.name, "y[" + std::to_string(i) + "]");
      EXPECT_EQ(l[(size_t)i].desc.dtype, "float32");
      EXPECT_EQ(l[(size_t)i].desc.shape, std::vector<int64_t>{3});
      const float* d = (const float*)l[(size_t)i].data;
      for (int k = 0; k < 3; ++k) EXPECT_EQ(d[k], x[k] * float(1 << i));
    }
  }
  EXPECT_THROW(m->sequenceOutput(1), rt::RuntimeError);
  int64_t zero = 0, pos = 0, n = 0;  // an empty sequence: s[0] and its concatenation fail the run
  EXPECT_THROW(m->run({&zero, x, &pos}, {nullptr, &n, nullptr, nullptr}), rt::RuntimeError);
}

TEST(RuntimeSequences, RunTimePositionsAndTheirErrors) {
  std::vector<uint8_t> om1 = buildGrowingSequence(true);
  auto m = rt::Model::loadFromMemory(om1.data(), om1.size(), 1);
  const float x[3] = {1, 1, 1};
  int64_t trips = 3, pos = 0, n = 0;
  m->run({&trips, x, &pos}, {nullptr, &n, nullptr, nullptr});  // each at the front: 4x, 2x, 1x
  const auto& l = m->sequenceOutput(0);
  ASSERT_EQ(l.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(((const float*)l[(size_t)i].data)[0], float(4 >> i));
  pos = 1;  // the first insert into the empty sequence: outside [0, 0]
  try {
    m->run({&trips, x, &pos}, {nullptr, &n, nullptr, nullptr});
    ADD_FAILURE() << "position 1 into an empty sequence ran";
  } catch (const rt::RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("the position 1 is outside [0, 0]"), std::string::npos) << e.what();
  }
  pos = -1;  // -1 into the empty sequence: outside [0, 0] as well
  EXPECT_THROW(m->run({&trips, x, &pos}, {nullptr, &n, nullptr, nullptr}), rt::RuntimeError);
  pos = 0;  // the next run works
  m->run({&trips, x, &pos}, {nullptr, &n, nullptr, nullptr});
  EXPECT_EQ(n, 3);
  EXPECT_EQ(((const float*)m->sequenceOutput(0)[0].data)[0], 4.0f);
}

TEST(RuntimeSequences, CApiGivesTheTensors) {
  std::vector<uint8_t> om = buildGrowingSequence(false);
  std::string path = testing::TempDir() + std::to_string(::getpid()) + "_seq_capi.om";
  std::ofstream(path, std::ios::binary).write((const char*)om.data(), (std::streamsize)om.size());
  atc_model* m = atc_model_load(path.c_str(), 1);
  ASSERT_NE(m, nullptr) << atc_last_error();
  EXPECT_EQ(atc_model_output_is_sequence(m, 0), 1);
  EXPECT_EQ(atc_model_output_is_sequence(m, 1), 0);
  int64_t trips = 2, pos = 0, n = 0;
  const float x[3] = {3, 4, 5};
  const void* ins[3] = {&trips, x, &pos};
  void* outs[4] = {nullptr, &n, nullptr, nullptr};
  ASSERT_EQ(atc_model_run(m, ins, outs), 0) << atc_last_error();
  ASSERT_EQ(atc_model_sequence_length(m, 0), 2u);
  EXPECT_STREQ(atc_model_sequence_dtype(m, 0, 1), "float32");
  EXPECT_EQ(atc_model_sequence_rank(m, 0, 1), 1u);
  EXPECT_EQ(atc_model_sequence_dims(m, 0, 1)[0], 3);
  EXPECT_EQ(atc_model_sequence_bytes(m, 0, 1), 12u);
  EXPECT_EQ(((const float*)atc_model_sequence_data(m, 0, 1))[2], 10.0f);
  EXPECT_EQ(atc_model_sequence_data(m, 0, 2), nullptr);
  EXPECT_EQ(atc_model_sequence_length(m, 1), 0u);
  atc_model_free(m);
  std::remove(path.c_str());
}

TEST(RuntimeSequences, CraftedSequenceStepsAreRefused) {
  std::vector<uint8_t> om1 = buildGrowingSequence(true);
  auto edit = [&](const std::function<void(nlohmann::json&)>& f) { return editPlan(om1, f); };
  expectError(edit([](nlohmann::json& j) { stepOf(j, "seq_insert")["control"] = "seq_pop"; }),
              "unknown control step seq_pop");
  expectError(edit([](nlohmann::json& j) { stepOf(j, "seq_insert")["args"].erase(2); }), "describes other arguments");
  expectError(edit([](nlohmann::json& j) {
                auto& s = stepOf(j, "seq_insert");
                s["args"].erase(2);
                s["tensors"].erase(2);
              }),
              "4 are required");
  expectError(edit([](nlohmann::json& j) { stepOf(j, "seq_insert")["tensors"][1]["dims"] = {4096}; }),
              "larger than its buffer");
  expectError(edit([](nlohmann::json& j) { stepOf(j, "seq_insert")["tensors"][1]["shape_at"] = 4; }),
              "actual dims do not lie");
  expectError(edit([](nlohmann::json& j) { stepOf(j, "seq_insert")["tensors"][1]["run"] = true; }),
              "outside a run-sized buffer");
  expectError(edit([](nlohmann::json& j) { stepOf(j, "seq_insert")["tensors"][2]["dims"] = {2}; }),
              "position that is not one");
  expectError(edit([](nlohmann::json& j) { stepOf(j, "seq_length")["tensors"][0]["dtype"] = "float32"; }),
              "not one int64");
  expectError(edit([](nlohmann::json& j) {  // the new handle written into the weights
                for (size_t id = 0; id < j["buffers"].size(); ++id)
                  if (j["buffers"][id]["mem"] == "weights") stepOf(j, "seq_make")["args"][0] = id;
              }),
              "not one int64 in the arena");
  expectError(edit([](nlohmann::json& j) {
                j["outputs"][1]["sequence"] = true;
                j["outputs"][1]["dtype"] = "int32";
              }),
              "a sequence output needs one int64 handle");
  expectError(edit([](nlohmann::json& j) {
                j["outputs"][1]["sequence"] = true;
                j["outputs"][1]["shape"] = {1};
              }),
              "a sequence output needs one int64 handle");
  expectError(edit([](nlohmann::json& j) { stepOf(j, "seq_concat")["sizes"] = nlohmann::json::array(); }),
              "uses a run-sized buffer no earlier step sized");
  expectError(edit([](nlohmann::json& j) { stepOf(j, "seq_at")["sizes"] = {2}; }), "no run-sized buffer");
  expectError(edit([](nlohmann::json& j) { stepOf(j, "seq_at")["tensors"][2]["dims"] = {4096}; }),
              "an output larger than its buffer");
  expectError(edit([](nlohmann::json& j) { stepOf(j, "seq_at")["args"].erase(1); }), "describes other arguments");
  // a static output whose dims the run's tensors do not have: the run fails, naming both
  auto m = rt::Model::loadFromMemory(om1.data(), om1.size(), 1);
  std::vector<uint8_t> bad = edit([](nlohmann::json& j) { stepOf(j, "seq_at")["tensors"][2]["dims"] = {2}; });
  auto mb = rt::Model::loadFromMemory(bad.data(), bad.size(), 1);
  const float x[3] = {1, 2, 3};
  int64_t trips = 2, pos = 0, n = 0;
  try {
    mb->run({&trips, x, &pos}, {nullptr, &n, nullptr, nullptr});
    ADD_FAILURE() << "a [3] tensor went into a [2] output";
  } catch (const rt::RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("float32 tensor of shape [3] this run, where the model reads float32 [2]"),
              std::string::npos)
        << e.what();
  }
}
