// The step descriptions of a dynamic model's plans, stored once (backend/step_descs.h,
// runtime/step_descs.h; docs/om-format.md, "Step descriptions"): a range build writes them in
// step_descs with the shapes per gear, every gear describes its steps as a static build of its
// shape does, a plan with inline descriptions (format_version 2) still loads, and the loader
// refuses crafted references.
#include <gtest/gtest.h>

#include <memory>

#include "backend/om_builder.h"
#include "kernels/codegen/host_cpu.h"
#include "runtime/atc_runtime.h"
#include "runtime/om_format.h"
#include "tests/unit/om_test_util.h"

using namespace atc;
using omtest::editPlan;
using omtest::expectError;

namespace {

// x: [n, 8] -> Relu(x * w + b) -> Sigmoid: a few kernels whose tensors all change with n.
std::unique_ptr<Graph> descGraph(int64_t n) {
  auto g = std::make_unique<Graph>();
  g->name = "descs";
  Value* x = g->newValue("x", TensorType(DType::F32, {n, 8}));
  auto wt = std::make_shared<Tensor>(TensorType(DType::F32, {8, 6}));
  for (int64_t i = 0; i < 48; ++i) wt->as<float>()[i] = (float)(i % 7 - 3) * 0.25f;
  Value* w = g->newConstant("w", wt);
  Value* m = g->newValue("m", TensorType(DType::F32, {n, 6}));
  Value* r = g->newValue("r", TensorType(DType::F32, {n, 6}));
  Value* y = g->newValue("y", TensorType(DType::F32, {n, 6}));
  g->inputs.push_back(x);
  g->addNode("MatMul", "mm", {x, w}, {m});
  g->addNode("Relu", "relu", {m}, {r});
  g->addNode("Sigmoid", "sig", {r}, {y});
  g->outputs.push_back(y);
  return g;
}

std::vector<uint8_t> buildRange(int64_t lo, int64_t hi) {
  OmBuilder b(BackendOptions(), loadHostTargetProfile("x86-64-v3"));
  nlohmann::json ranges = {{{"name", "x"}, {"min", {lo, 8}}, {"max", {hi, 8}}}};
  b.setDynamic("input_shape", "range", {{"x", {-1, 8}}}, ranges);
  for (int64_t n = lo; n <= hi; ++n) b.addGraph(*descGraph(n), {n});
  std::vector<uint8_t> out;
  b.finish(nullptr, [&out](size_t size) {
    out.assign(size, 0);
    return out.data();
  });
  return out;
}

nlohmann::json planOf(const std::vector<uint8_t>& om) {
  om::OmView v = om::parseOm(om.data(), om.size(), "descs");
  return nlohmann::json::parse(v.partString(om::kTaskInfo));
}

// Every gear's steps described as the static build of its shape describes them.
void expectDescribedAsStatic(rt::Model& m, int64_t lo, int64_t hi) {
  for (int64_t n = lo; n <= hi; ++n) {
    auto g = descGraph(n);
    std::vector<uint8_t> om = buildOm(*g, BackendOptions(), loadHostTargetProfile("x86-64-v3"));
    auto s = rt::Model::loadFromMemory(om.data(), om.size(), 1, "static");
    m.setGear(m.findGear({{n, 8}}));
    const auto& got = m.steps();
    const auto& want = s->steps();
    ASSERT_EQ(got.size(), want.size()) << "n " << n;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].index, i);
      EXPECT_EQ(got[i].node, want[i].node);
      EXPECT_EQ(got[i].type, want[i].type);
      EXPECT_EQ(got[i].kernel, want[i].kernel);
      EXPECT_EQ(got[i].flops, want[i].flops);
      ASSERT_EQ(got[i].inputs.size(), want[i].inputs.size());
      ASSERT_EQ(got[i].outputs.size(), want[i].outputs.size());
      for (int role = 0; role < 2; ++role) {
        const auto& a = role ? got[i].outputs : got[i].inputs;
        const auto& b = role ? want[i].outputs : want[i].inputs;
        for (size_t k = 0; k < a.size(); ++k) {
          EXPECT_EQ(a[k].desc.name, b[k].desc.name) << "n " << n << " step " << i;
          EXPECT_EQ(a[k].desc.dtype, b[k].desc.dtype);
          EXPECT_EQ(a[k].desc.shape, b[k].desc.shape) << "n " << n << " step " << i << " " << a[k].desc.name;
          EXPECT_EQ(a[k].desc.bytes, b[k].desc.bytes);
          EXPECT_EQ(a[k].data != nullptr, b[k].data != nullptr);
        }
      }
    }
  }
}

}  // namespace

TEST(StepDescs, RangeGearsShareDescriptionsAndDescribeTheirShapes) {
  std::vector<uint8_t> om = buildRange(1, 5);
  nlohmann::json plan = planOf(om);
  EXPECT_EQ(plan.at("format_version"), 3);
  ASSERT_TRUE(plan.at("step_descs").is_array());
  const size_t steps = plan.at("gears")[0].at("steps").size();
  EXPECT_EQ(plan.at("step_descs").size(), steps);  // the same nodes in all 5 gears: once each
  for (auto& g : plan.at("gears"))
    for (auto& s : g.at("steps")) {
      EXPECT_FALSE(s.contains("in") || s.contains("out") || s.contains("node")) << s.dump();
      EXPECT_TRUE(s.contains("desc") && s.contains("in_shapes") && s.contains("out_shapes")) << s.dump();
    }
  auto m = rt::Model::loadFromMemory(om.data(), om.size(), 1, "descs");
  expectDescribedAsStatic(*m, 1, 5);
}

TEST(StepDescs, InlineDescriptionsOfFormatTwoStillLoad) {
  std::vector<uint8_t> om = editPlan(buildRange(2, 4), [](nlohmann::json& j) {
    for (auto& g : j["gears"])
      for (auto& s : g["steps"]) {
        nlohmann::json d = j["step_descs"][s["desc"].get<size_t>()];
        for (const char* role : {"in", "out"}) {
          auto& shapes = s[role[0] == 'i' ? "in_shapes" : "out_shapes"];
          for (size_t k = 0; k < shapes.size(); ++k)
            if (!d[role][k].is_null()) d[role][k]["shape"] = shapes[k];
        }
        for (auto& kv : d.items()) s[kv.key()] = kv.value();
        s.erase("desc");
        s.erase("in_shapes");
        s.erase("out_shapes");
      }
    j.erase("step_descs");
    j["format_version"] = 2;
  });
  auto m = rt::Model::loadFromMemory(om.data(), om.size(), 1, "descs");
  expectDescribedAsStatic(*m, 2, 4);
}

TEST(StepDescs, LoaderRefusesCraftedReferences) {
  std::vector<uint8_t> om = buildRange(1, 3);
  auto step0 = [](nlohmann::json& j) -> nlohmann::json& { return j["gears"][1]["steps"][0]; };
  expectError(editPlan(om, [&](nlohmann::json& j) { step0(j)["desc"] = j["step_descs"].size(); }),
              "names no entry of step_descs");
  expectError(editPlan(om, [&](nlohmann::json& j) { step0(j)["desc"] = -1; }), "names no entry of step_descs");
  expectError(editPlan(om, [&](nlohmann::json& j) { step0(j).erase("desc"); }), "names no entry of step_descs");
  expectError(editPlan(om, [&](nlohmann::json& j) { step0(j)["in_shapes"].erase(0); }),
              "input shapes do not match");
  expectError(editPlan(om, [&](nlohmann::json& j) { step0(j)["out_shapes"].push_back({1}); }),
              "output shapes do not match");
  expectError(editPlan(om, [&](nlohmann::json& j) { step0(j)["in_shapes"][0] = nullptr; }),
              "a shape for an absent tensor, or none for a present one");
  expectError(editPlan(om, [&](nlohmann::json& j) { step0(j)["in_shapes"][0] = "x"; }),
              "a shape that is not a list of integers");
  expectError(editPlan(om, [&](nlohmann::json& j) { step0(j)["out_shapes"][0][0] = 1.5; }),
              "a shape that is not a list of integers");
  // Model::check (no memory, no kernels) refuses what a load refuses
  std::vector<uint8_t> bad = editPlan(om, [&](nlohmann::json& j) { step0(j)["in_shapes"][0] = {"x"}; });
  try {
    rt::Model::check(bad.data(), bad.size(), rt::LoadOptions(), "m.om");
    ADD_FAILURE() << "Model::check accepted a shape of strings";
  } catch (const rt::RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("a shape that is not a list of integers"), std::string::npos) << e.what();
  }
  expectError(editPlan(om, [](nlohmann::json& j) { j.erase("step_descs"); }),
              "format_version 3 goes with step_descs");
  expectError(editPlan(om, [](nlohmann::json& j) { j["format_version"] = 2; }),
              "format_version 3 goes with step_descs");
  expectError(editPlan(om, [](nlohmann::json& j) { j["step_descs"] = 7; }), "step_descs is not an array");
  expectError(editPlan(om, [](nlohmann::json& j) { j["step_descs"][0]["in"][0]["name"] = 5; }), "m.om");
  // a static plan has its descriptions inline
  auto g = descGraph(2);
  std::vector<uint8_t> st = buildOm(*g, BackendOptions(), loadHostTargetProfile("x86-64-v3"));
  expectError(editPlan(st, [](nlohmann::json& j) { j["step_descs"] = nlohmann::json::array(); }),
              "step_descs is not an array of a dynamic model's step descriptions");
}
