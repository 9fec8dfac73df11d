// buildOm + runtime: Identity graphs end to end, constant and pass-through outputs, memory
// plan reuse, and clear errors for truncated or corrupted files.
#include <gtest/gtest.h>

#include <cstring>

#include "kernels/codegen/host_cpu.h"
#include "backend/om_builder.h"
#include "backend/plan_memory.h"
#include "ir/op_registry.h"
#include "runtime/atc_runtime.h"
#include "runtime/om_format.h"

using namespace atc;

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
  auto expectError = [](const std::vector<uint8_t>& bytes, const std::string& needle) {
    try {
      rt::Model::loadFromMemory(bytes.data(), bytes.size(), 1, "m.om");
      ADD_FAILURE() << "expected an error containing " << needle;
    } catch (const rt::RuntimeError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
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
