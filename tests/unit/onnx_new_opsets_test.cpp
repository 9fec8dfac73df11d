// Opsets 18 to 28 (docs/frontend-onnx.md "Opsets"): models up to opset 23 import; newer ones
// only when their ops did not change after 23 (E19010 names the nodes otherwise); and the ops
// of opsets 18-23 added with them (Mish, BitwiseAnd/Or/Xor/Not, RMSNormalization) compute
// what ONNX defines, through buildOm and the runtime.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "backend/om_builder.h"
#include "frontends/onnx/onnx_importer.h"
#include "frontends/onnx/onnx_opset_changes.h"
#include "ir/op_registry.h"
#include "passes/pass_manager.h"
#include "kernels/codegen/host_cpu.h"
#include "runtime/atc_runtime.h"
#include "support/diagnostics.h"
#include "tests/unit/onnx_test_util.h"

namespace fs = std::filesystem;
using namespace atc;

namespace {

// A one-node model: inputs x (and y when the op is binary) of `elem` [2,3], output z.
std::string oneNodeModel(const std::string& op, int64_t opset, int elem, bool binary, const std::string& tag) {
  onnx::ModelProto m;
  auto* g = onnxtest::newGraph(m, opset);
  for (const char* name : {"x", "y"}) {
    if (std::string(name) == "y" && !binary) break;
    auto* in = g->add_input();
    in->set_name(name);
    auto* tt = in->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    tt->mutable_shape()->add_dim()->set_dim_value(2);
    tt->mutable_shape()->add_dim()->set_dim_value(3);
  }
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(op + "_node");
  n->add_input("x");
  if (binary) n->add_input("y");
  n->add_output("z");
  auto* o = g->add_output();
  o->set_name("z");
  o->mutable_type()->mutable_tensor_type()->set_elem_type(elem);
  fs::path p = fs::temp_directory_path() / ("atc_opsets_" + std::to_string(::getpid()) + "_" + tag + ".onnx");
  std::ofstream(p, std::ios::binary) << m.SerializeAsString();
  return p.string();
}

std::unique_ptr<Graph> importPath(const std::string& path) {
  ImportOptions o;
  o.model = path;
  std::unique_ptr<Graph> g;
  try {
    g = importOnnx(o);
    inferGraph(*g);  // the driver's passes do this; the tests build the imported graph directly
  } catch (...) {
    fs::remove(path);
    throw;
  }
  fs::remove(path);
  return g;
}

std::string importError(const std::string& path) {
  try {
    importPath(path);
  } catch (const AtcError& e) {
    return std::string(e.code()) + " " + e.what();
  }
  return "";
}

// Builds g for the host and runs it on the given inputs; returns output 0's bytes.
template <class T>
std::vector<T> run(Graph& g, const std::vector<std::vector<T>>& ins) {
  std::vector<uint8_t> om = buildOm(g, BackendOptions(), loadHostTargetProfile("native"));
  auto m = rt::Model::loadFromMemory(om.data(), om.size(), 1);
  std::vector<const void*> in;
  for (auto& v : ins) in.push_back(v.data());
  std::vector<T> out(m->outputs()[0].bytes / sizeof(T));
  m->run(in, {out.data()});
  return out;
}

}  // namespace

TEST(OnnxOpsets, ChangeTableFollowsOnnxOperatorSets) {
  EXPECT_EQ(onnxfe::opChangedIn("Abs", 23, 28), 0);      // unchanged since 13
  EXPECT_EQ(onnxfe::opChangedIn("Cast", 23, 25), 0);     // 24 and 25 add element types only
  EXPECT_EQ(onnxfe::opChangedIn("QuantizeLinear", 23, 25), 0);
  EXPECT_EQ(onnxfe::opChangedIn("Attention", 23, 24), 0);  // Attention-24 (nonpad_kv_seqlen) implemented
  EXPECT_EQ(onnxfe::opChangedIn("Attention", 23, 25), 0);   // Attention-25 (sliding windows) implemented
  EXPECT_EQ(onnxfe::opChangedIn("Loop", 23, 25), 0);        // 24 and 25: wider type lists only
  EXPECT_EQ(onnxfe::opChangedIn("Scan", 23, 25), 0);
  EXPECT_EQ(onnxfe::opChangedIn("If", 23, 25), 0);
  EXPECT_EQ(onnxfe::opChangedIn("SplitToSequence", 23, 24), 0);  // 24 adds bfloat16
  EXPECT_EQ(onnxfe::opChangedIn("Attention", 23, 28), 0);
  EXPECT_EQ(onnxfe::opChangedIn("Celu", 23, 28), 0);        // 28 adds float16 and bfloat16
  EXPECT_EQ(onnxfe::opChangedIn("LinearAttention", 23, 28), 27);
  EXPECT_EQ(onnxfe::opChangedIn("Range", 23, 27), 0);  // 27's stash_type: atc computes in double
  EXPECT_EQ(onnxfe::opChangedIn("ReduceMax", 17, 20), 18);
}

TEST(OnnxOpsets, NewerOpsetsImportWhenTheirOpsAreUnchanged) {
  EXPECT_EQ(importError(oneNodeModel("Abs", 23, onnx::TensorProto::FLOAT, false, "abs23")), "");
  EXPECT_EQ(importError(oneNodeModel("Abs", 28, onnx::TensorProto::FLOAT, false, "abs28")), "");
  EXPECT_EQ(importError(oneNodeModel("Celu", 28, onnx::TensorProto::FLOAT, false, "celu28")), "");
  // SplitToSequence-24 adds bfloat16 only; Swish is new in 24 and expanded to its function body.
  // (Every op that changed in 24 to 28 is now implemented: opChangedIn above still marks the
  // ones that compute differently.)
  EXPECT_EQ(importError(oneNodeModel("SplitToSequence", 24, onnx::TensorProto::FLOAT, false, "sts24")), "");
  EXPECT_EQ(importError(oneNodeModel("Swish", 24, onnx::TensorProto::FLOAT, false, "swish24")), "");
  std::string e;
  e = importError(oneNodeModel("Abs", 29, onnx::TensorProto::FLOAT, false, "abs29"));
  EXPECT_NE(e.find("E10041"), std::string::npos) << e;
}

// Attention-25's sliding window: Q, K, V [1, 1, 4, 2]; query i attends keys j with
// i - left <= j <= i + right (-1: unbounded), composed with is_causal.
TEST(OnnxOpsets, AttentionSlidingWindow) {
  const int S = 4, D = 2;
  std::vector<float> q(S * D), k(S * D), v(S * D);
  for (int i = 0; i < S * D; ++i) {
    q[i] = std::sin(0.9f * (float)i);
    k[i] = std::cos(0.4f * (float)i);
    v[i] = 0.5f * (float)i - 1.0f;
  }
  struct Case {
    int64_t left, right, causal;
  } cases[] = {{1, 0, 0}, {-1, 1, 0}, {2, 1, 1}};
  for (const Case& c : cases) {
    onnx::ModelProto m;
    auto* g = onnxtest::newGraph(m, 25);
    for (const char* name : {"Q", "K", "V"}) {
      auto* tt = g->add_input();
      tt->set_name(name);
      auto* t = tt->mutable_type()->mutable_tensor_type();
      t->set_elem_type(onnx::TensorProto::FLOAT);
      for (int64_t d : {1, 1, S, D}) t->mutable_shape()->add_dim()->set_dim_value(d);
    }
    auto* n = g->add_node();
    n->set_op_type("Attention");
    n->set_name("attn");
    for (const char* name : {"Q", "K", "V"}) n->add_input(name);
    n->add_output("Y");
    for (auto [name, val] : {std::pair<const char*, int64_t>{"left_window_size", c.left},
                             {"right_window_size", c.right}, {"is_causal", c.causal}}) {
      auto* a = n->add_attribute();
      a->set_name(name);
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(val);
    }
    g->add_output()->set_name("Y");
    fs::path p = fs::temp_directory_path() / ("atc_opsets_" + std::to_string(::getpid()) + "_attn25.onnx");
    std::ofstream(p, std::ios::binary) << m.SerializeAsString();
    ImportOptions o;
    o.model = p.string();
    auto gr = importOnnx(o);
    fs::remove(p);
    PassOptions po;
    PassManager pm(po);  // the driver's pipeline: the bias's shape arithmetic folds to constants
    pm.addDefaultPipeline();
    pm.run(*gr);
    std::vector<float> y = run<float>(*gr, {q, k, v});
    for (int i = 0; i < S; ++i) {
      std::vector<float> w(S, 0.0f);
      float mx = -INFINITY, sum = 0;
      for (int j = 0; j < S; ++j) {
        const bool ok = (c.left < 0 || i - j <= c.left) && (c.right < 0 || j - i <= c.right) && (!c.causal || j <= i);
        if (!ok) continue;
        w[j] = (q[i * D] * k[j * D] + q[i * D + 1] * k[j * D + 1]) / std::sqrt((float)D);
        mx = std::max(mx, w[j]);
      }
      for (int j = 0; j < S; ++j) {
        const bool ok = (c.left < 0 || i - j <= c.left) && (c.right < 0 || j - i <= c.right) && (!c.causal || j <= i);
        w[j] = ok ? std::exp(w[j] - mx) : 0.0f;
        sum += w[j];
      }
      for (int d = 0; d < D; ++d) {
        float want = 0;
        for (int j = 0; j < S; ++j) want += w[j] / sum * v[j * D + d];
        EXPECT_NEAR(y[i * D + d], want, 1e-5f) << "left " << c.left << " right " << c.right << " causal " << c.causal
                                                << " row " << i;
      }
    }
  }
}

TEST(OnnxOpsets, BitwiseOpsOnIntegers) {
  std::vector<int32_t> x = {0x0F, -1, 5, 0, 1234, -77}, y = {0xF3, 6, 3, -1, 4321, 12};
  struct Case {
    const char* op;
    bool binary;
  } cases[] = {{"BitwiseAnd", true}, {"BitwiseOr", true}, {"BitwiseXor", true}, {"BitwiseNot", false}};
  for (auto& c : cases) {
    auto g = importPath(oneNodeModel(c.op, 18, onnx::TensorProto::INT32, c.binary, c.op));
    std::vector<int32_t> z = c.binary ? run<int32_t>(*g, {x, y}) : run<int32_t>(*g, {x});
    for (size_t i = 0; i < x.size(); ++i) {
      int32_t want = std::string(c.op) == "BitwiseAnd"   ? (x[i] & y[i])
                     : std::string(c.op) == "BitwiseOr"  ? (x[i] | y[i])
                     : std::string(c.op) == "BitwiseXor" ? (x[i] ^ y[i])
                                                         : ~x[i];
      EXPECT_EQ(z[i], want) << c.op << " " << i;
    }
  }
  std::string e = importError(oneNodeModel("BitwiseAnd", 18, onnx::TensorProto::FLOAT, true, "andf"));
  EXPECT_NE(e.find("needs integer inputs"), std::string::npos) << e;
  auto g = importPath(oneNodeModel("BitwiseNot", 18, onnx::TensorProto::INT8, false, "noti8"));
  EXPECT_EQ(run<int8_t>(*g, {{1, -1, 0, 127, -128, 5}})[3], (int8_t)~127);
}

TEST(OnnxOpsets, MishMatchesItsDefinition) {
  auto g = importPath(oneNodeModel("Mish", 18, onnx::TensorProto::FLOAT, false, "mish"));
  std::vector<float> x = {-20.f, -2.5f, -0.5f, 0.f, 1.5f, 30.f};
  std::vector<float> z = run<float>(*g, {x});
  for (size_t i = 0; i < x.size(); ++i) {
    double want = x[i] * std::tanh(std::log1p(std::exp((double)x[i])));
    EXPECT_NEAR(z[i], want, 1e-5 * (1 + std::fabs(want))) << x[i];
  }
}

TEST(OnnxOpsets, RmsNormalization) {
  Graph g;
  Value* x = g.newValue("x", TensorType(DType::F32, {2, 3}));
  g.inputs.push_back(x);
  auto sc = std::make_shared<Tensor>(TensorType(DType::F32, {3}));
  sc->as<float>()[0] = 1.f, sc->as<float>()[1] = 2.f, sc->as<float>()[2] = -0.5f;
  Value* y = g.newValue("y", TensorType(DType::F32, {2, 3}));
  Node* n = g.addNode("RMSNormalization", "rms", {x, g.newConstant("scale", sc)}, {y});
  n->attrs["epsilon"] = 0.25;
  g.outputs = {y};
  std::vector<float> in = {1, 2, 3, -4, 0, 4};
  std::vector<float> out = run<float>(g, {in});
  for (int r = 0; r < 2; ++r) {
    double ms = 0;
    for (int i = 0; i < 3; ++i) ms += in[r * 3 + i] * in[r * 3 + i] / 3.0;
    for (int i = 0; i < 3; ++i)
      EXPECT_NEAR(out[r * 3 + i], in[r * 3 + i] / std::sqrt(ms + 0.25) * sc->as<float>()[i], 1e-5);
  }
}
