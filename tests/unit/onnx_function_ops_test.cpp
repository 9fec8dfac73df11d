// GroupNormalization (opsets 18 and 21) and Swish (24), imported as the ops of their ONNX
// definitions (frontends/onnx/onnx_function_ops.cpp): outputs against a direct reference,
// through buildOm and the runtime, and the refusals.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "backend/om_builder.h"
#include "frontends/onnx/onnx_importer.h"
#include "ir/op_registry.h"
#include "kernels/codegen/host_cpu.h"
#include "runtime/atc_runtime.h"
#include "support/diagnostics.h"

namespace fs = std::filesystem;
using namespace atc;

namespace {

void addInput(onnx::GraphProto* g, const std::string& name, const std::vector<int64_t>& dims) {
  auto* in = g->add_input();
  in->set_name(name);
  auto* tt = in->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

void addInit(onnx::GraphProto* g, const std::string& name, const std::vector<float>& v) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims((int64_t)v.size());
  for (float x : v) t->add_float_data(x);
}

// x [2, 4, 3] -> op -> y; GroupNormalization gets scale and bias initializers.
std::string model(const std::string& op, int64_t opset, int64_t groups, const std::vector<float>& scale,
                  const std::vector<float>& bias, float attr, const std::string& tag) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(opset);
  auto* g = m.mutable_graph();
  g->set_name("g");
  addInput(g, "x", {2, 4, 3});
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(op + "_node");
  n->add_input("x");
  if (op == "GroupNormalization") {
    addInit(g, "scale", scale);
    addInit(g, "bias", bias);
    n->add_input("scale");
    n->add_input("bias");
    auto* a = n->add_attribute();
    a->set_name("num_groups");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(groups);
  }
  auto* a = n->add_attribute();
  a->set_name(op == "Swish" ? "alpha" : "epsilon");
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(attr);
  n->add_output("y");
  g->add_output()->set_name("y");
  fs::path p = fs::temp_directory_path() / ("atc_fnops_" + std::to_string(::getpid()) + "_" + tag + ".onnx");
  std::ofstream(p, std::ios::binary) << m.SerializeAsString();
  return p.string();
}

std::vector<float> runModel(const std::string& path, const std::vector<float>& x) {
  ImportOptions o;
  o.model = path;
  std::unique_ptr<Graph> g;
  try {
    g = importOnnx(o);
  } catch (...) {
    fs::remove(path);
    throw;
  }
  fs::remove(path);
  inferGraph(*g);
  std::vector<uint8_t> om = buildOm(*g, BackendOptions(), loadHostTargetProfile("native"));
  auto m = rt::Model::loadFromMemory(om.data(), om.size(), 1);
  std::vector<float> y(x.size());
  m->run({x.data()}, {y.data()});
  return y;
}

std::vector<float> input() {
  std::vector<float> x(24);
  for (int i = 0; i < 24; ++i) x[i] = std::sin(0.7f * (float)i) * (1.0f + (float)(i % 5));
  return x;
}

// Reference: per (n, group) mean and variance over the group's channels x 3 elements, then
// scale/bias per channel (perChannel) or per group.
std::vector<float> groupNormRef(const std::vector<float>& x, int64_t G, const std::vector<float>& s,
                                const std::vector<float>& b, float eps, bool perChannel) {
  std::vector<float> y(x.size());
  const int64_t C = 4, L = 3, per = C / G * L;
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t g = 0; g < G; ++g) {
      const float* xs = x.data() + (n * C + g * (C / G)) * L;
      double mean = 0, var = 0;
      for (int64_t i = 0; i < per; ++i) mean += xs[i];
      mean /= (double)per;
      for (int64_t i = 0; i < per; ++i) var += (xs[i] - mean) * (xs[i] - mean);
      var /= (double)per;
      for (int64_t i = 0; i < per; ++i) {
        const int64_t c = g * (C / G) + i / L, k = perChannel ? c : g;
        y[(n * C + g * (C / G)) * L + i] = (float)((xs[i] - mean) / std::sqrt(var + eps) * s[k] + b[k]);
      }
    }
  return y;
}

void expectNear(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4f * (1.0f + std::fabs(want[i]))) << i;
}

}  // namespace

TEST(OnnxFunctionOps, GroupNormalization21ScalesPerChannel) {
  const std::vector<float> s = {1.5f, -0.5f, 2.0f, 0.25f}, b = {0.1f, 0.2f, -0.3f, 0.4f};
  expectNear(runModel(model("GroupNormalization", 21, 2, s, b, 0.01f, "gn21"), input()),
             groupNormRef(input(), 2, s, b, 0.01f, true));
}

TEST(OnnxFunctionOps, GroupNormalization18ScalesPerGroup) {
  const std::vector<float> s = {1.5f, -0.5f}, b = {0.1f, 0.2f};
  expectNear(runModel(model("GroupNormalization", 18, 2, s, b, 1e-5f, "gn18"), input()),
             groupNormRef(input(), 2, s, b, 1e-5f, false));
}

TEST(OnnxFunctionOps, SwishWithAlpha) {
  const std::vector<float> x = input();
  std::vector<float> want(x.size());
  for (size_t i = 0; i < x.size(); ++i) want[i] = x[i] / (1.0f + std::exp(-0.5f * x[i]));
  expectNear(runModel(model("Swish", 24, 0, {}, {}, 0.5f, "swish"), x), want);
}

TEST(OnnxFunctionOps, GroupNormalizationRefusals) {
  try {
    runModel(model("GroupNormalization", 21, 3, {1, 1, 1, 1}, {0, 0, 0, 0}, 1e-5f, "gn_bad"), input());
    FAIL() << "3 groups of 4 channels imported";
  } catch (const AtcError& e) {
    EXPECT_EQ(e.code(), "E19999");
    EXPECT_NE(std::string(e.what()).find("does not divide the 4 channels"), std::string::npos) << e.what();
  }
}
