// GroupNormalization (opsets 18 and 21) and Swish (24), imported as the ops of their ONNX
// definitions (frontends/onnx/onnx_function_ops.cpp): outputs against a direct reference,
// through buildOm and the runtime, and the refusals.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "backend/om_builder.h"
#include "frontends/onnx/onnx_importer.h"
#include "ir/op_registry.h"
#include "kernels/codegen/host_cpu.h"
#include "runtime/atc_runtime.h"
#include "support/diagnostics.h"
#include "tests/unit/onnx_test_util.h"

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

void addIntAttr(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void addStrAttr(onnx::NodeProto* n, const std::string& name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

// Writes m to a temporary file named after `tag`; returns its path.
std::string save(const onnx::ModelProto& m, const std::string& tag) {
  fs::path p = fs::temp_directory_path() / (tag + "_" + std::to_string(::getpid()) + ".onnx");
  std::ofstream(p, std::ios::binary) << m.SerializeAsString();
  return p.string();
}

// x [2, 4, 3] -> op -> y; GroupNormalization gets scale and bias initializers.
std::string model(const std::string& op, int64_t opset, int64_t groups, const std::vector<float>& scale,
                  const std::vector<float>& bias, float attr, const std::string& tag) {
  onnx::ModelProto m;
  onnx::GraphProto* g = onnxtest::newGraph(m, opset);
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
  return save(m, "atc_fnops_" + tag);
}

// Imports the model at path (removing the file), builds it for the host and runs it on a (and b
// when not empty); returns output 0 of outSize floats.
std::vector<float> runModel2(const std::string& path, const std::vector<float>& a, const std::vector<float>& b,
                             size_t outSize) {
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
  std::vector<float> y(outSize);
  std::vector<const void*> in = {a.data()};
  if (!b.empty()) in.push_back(b.data());
  m->run(in, {y.data()});
  return y;
}

std::vector<float> runModel(const std::string& path, const std::vector<float>& x) {
  return runModel2(path, x, {}, x.size());
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

namespace {

// Two float inputs a, b of `dims` -> op(a, b) -> y (SwiGLU, TensorScatter without write_indices);
// `ints` / `strs`: attributes.
std::string twoInputModel(const std::string& op, int64_t opset, const std::vector<int64_t>& da,
                          const std::vector<int64_t>& db, const std::map<std::string, int64_t>& ints,
                          const std::map<std::string, std::string>& strs, const std::string& tag) {
  onnx::ModelProto m;
  onnx::GraphProto* g = onnxtest::newGraph(m, opset);
  addInput(g, "a", da);
  addInput(g, "b", db);
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(op + "_node");
  n->add_input("a");
  n->add_input("b");
  for (auto& [k, v] : ints) addIntAttr(n, k, v);
  for (auto& [k, v] : strs) addStrAttr(n, k, v);
  n->add_output("y");
  g->add_output()->set_name("y");
  return save(m, "atc_fnops_" + tag);
}

std::vector<float> steps(size_t n, float k) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = k * (float)i - 1.0f;
  return v;
}

}  // namespace

TEST(OnnxFunctionOps, SwiGLU) {
  const std::vector<float> a = input(), b = steps(24, 0.25f);
  std::vector<float> want(a.size());
  for (size_t i = 0; i < a.size(); ++i) want[i] = a[i] / (1.0f + std::exp(-a[i])) * b[i];
  expectNear(runModel2(twoInputModel("SwiGLU", 28, {2, 4, 3}, {2, 4, 3}, {}, {}, "swiglu"), a, b, 24), want);
}

// Without write_indices every sample writes from position 0: update rows [2, 2, 3] land in rows
// 0-1 of the [2, 4, 3] cache along axis 1, the other rows keep the cache.
TEST(OnnxFunctionOps, TensorScatterWritesTheUpdateIntoTheCache) {
  const std::vector<float> cache = input(), upd = steps(12, 1.0f);
  std::vector<float> want = cache;
  for (int b = 0; b < 2; ++b)
    for (int s = 0; s < 2; ++s)
      for (int d = 0; d < 3; ++d) want[(b * 4 + s) * 3 + d] = upd[(b * 2 + s) * 3 + d];
  expectNear(runModel2(twoInputModel("TensorScatter", 24, {2, 4, 3}, {2, 2, 3}, {{"axis", 1}}, {}, "tscatter"), cache,
                       upd, 24),
             want);
  for (auto [axis, mode] : {std::pair<int64_t, std::string>{0, "linear"}, {1, "ring"}}) {
    try {
      runModel2(twoInputModel("TensorScatter", 24, {2, 4, 3}, {2, 2, 3}, {{"axis", axis}}, {{"mode", mode}}, "tsbad"),
                cache, upd, 24);
      FAIL() << "TensorScatter axis " << axis << " mode " << mode << " imported";
    } catch (const AtcError& e) {
      EXPECT_EQ(e.code(), "E19999") << e.what();
      EXPECT_NE(std::string(e.what()).find("TensorScatter"), std::string::npos) << e.what();
    }
  }
}

// Depthwise causal conv of x [2, 4, 3] with w [4, 1, 3] and no past state: two zeros padded
// on the left of each row.
TEST(OnnxFunctionOps, CausalConvWithState) {
  const std::vector<float> x = input(), w = steps(12, 0.2f);
  std::vector<float> want(24, 0.0f);
  for (int b = 0; b < 2; ++b)
    for (int c = 0; c < 4; ++c)
      for (int l = 0; l < 3; ++l)
        for (int j = 0; j < 3; ++j) {
          const int src = l + j - 2;  // position in x of padded position l + j
          if (src >= 0) want[(b * 4 + c) * 3 + l] += w[c * 3 + j] * x[(b * 4 + c) * 3 + src];
        }
  expectNear(runModel2(twoInputModel("CausalConvWithState", 27, {2, 4, 3}, {4, 1, 3}, {}, {}, "causalconv"), x, w, 24),
             want);
  try {
    runModel2(twoInputModel("CausalConvWithState", 27, {2, 4, 3}, {4, 1, 3}, {}, {{"activation", "gelu"}}, "ccbad"), x,
              w, 24);
    FAIL() << "activation gelu imported";
  } catch (const AtcError& e) {
    EXPECT_EQ(e.code(), "E19999");
    EXPECT_NE(std::string(e.what()).find("activation must be none, silu or swish"), std::string::npos) << e.what();
  }
}

// LinearAttention refusals: an unknown update rule, a gated rule without decay, head counts that
// do not divide, an undeclared sequence length (the recurrence is unrolled over it).
TEST(OnnxFunctionOps, LinearAttentionRefusals) {
  struct Case {
    std::string rule;
    int64_t qh, kvh, seq;
    const char* want;
  } cases[] = {{"bogus", 2, 2, 3, "update_rule must be"},
               {"gated", 2, 2, 3, "needs decay"},
               {"linear", 3, 2, 3, "multiple of kv_num_heads"},
               {"linear", 2, 2, 0, "declared 3-D with known dims"}};
  for (const Case& c : cases) {
    onnx::ModelProto m;
    onnx::GraphProto* g = onnxtest::newGraph(m, 27);
    for (const char* in : {"q", "k", "v"}) addInput(g, in, {1, c.seq, 8});
    auto* n = g->add_node();
    n->set_op_type("LinearAttention");
    n->set_name("la");
    for (const char* in : {"q", "k", "v"}) n->add_input(in);
    n->add_output("y");
    addStrAttr(n, "update_rule", c.rule);
    addIntAttr(n, "q_num_heads", c.qh);
    addIntAttr(n, "kv_num_heads", c.kvh);
    g->add_output()->set_name("y");
    if (c.seq == 0) {  // a symbolic sequence length
      auto* shape = g->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
      shape->mutable_dim(1)->set_dim_param("T");
    }
    try {
      runModel(save(m, "atc_linattn"), input());
      ADD_FAILURE() << c.rule << ": imported";
    } catch (const AtcError& e) {
      EXPECT_EQ(e.code(), "E19999") << e.what();
      EXPECT_NE(std::string(e.what()).find(c.want), std::string::npos) << e.what();
    }
  }
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

namespace {

// Einsum(eq) of float32 inputs a [da] and (when db is not empty) b [db].
std::string einsumModel(const std::string& eq, const std::vector<int64_t>& da, const std::vector<int64_t>& db,
                        const std::string& tag) {
  onnx::ModelProto m;
  onnx::GraphProto* g = onnxtest::newGraph(m, 17);
  addInput(g, "a", da);
  auto* n = g->add_node();
  n->set_op_type("Einsum");
  n->add_input("a");
  if (!db.empty()) {
    addInput(g, "b", db);
    n->add_input("b");
  }
  addStrAttr(n, "equation", eq);
  n->add_output("y");
  g->add_output()->set_name("y");
  return save(m, "atc_einsum_" + tag);
}


std::vector<float> ramp(size_t n, float k) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::cos(k * (float)i) + 0.1f * (float)(i % 3);
  return v;
}

}  // namespace

TEST(OnnxFunctionOps, EinsumBatchMatMulAndImplicitEllipsis) {
  // bij,bjk->bik with [2,3,4] x [2,4,5]; then "...ij,jk" (implicit output "...ik") with a
  // shared [4,5] right operand.
  const std::vector<float> a = ramp(24, 0.3f), b = ramp(40, 0.7f), w = ramp(20, 0.9f);
  std::vector<float> want(30), want2(30);
  for (int bb = 0; bb < 2; ++bb)
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 5; ++k) {
        float s = 0, s2 = 0;
        for (int j = 0; j < 4; ++j) {
          s += a[(bb * 3 + i) * 4 + j] * b[(bb * 4 + j) * 5 + k];
          s2 += a[(bb * 3 + i) * 4 + j] * w[j * 5 + k];
        }
        want[(bb * 3 + i) * 5 + k] = s;
        want2[(bb * 3 + i) * 5 + k] = s2;
      }
  expectNear(runModel2(einsumModel("bij, bjk -> bik", {2, 3, 4}, {2, 4, 5}, "bmm"), a, b, 30), want);
  expectNear(runModel2(einsumModel("...ij,jk", {2, 3, 4}, {4, 5}, "ell"), a, w, 30), want2);
}

TEST(OnnxFunctionOps, EinsumSumsAndTransposes) {
  // ij,ij-> (every letter contracted) and kij->jk (i summed alone, then a transpose).
  const std::vector<float> a = ramp(12, 0.4f), b = ramp(12, 1.1f), c = ramp(24, 0.2f);
  float dot = 0;
  for (int i = 0; i < 12; ++i) dot += a[i] * b[i];
  expectNear(runModel2(einsumModel("ij,ij->", {3, 4}, {3, 4}, "dot"), a, b, 1), {dot});
  std::vector<float> want(8, 0.0f);  // c [2,3,4] as k,i,j -> out [j=4][k=2]
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) want[j * 2 + k] += c[(k * 3 + i) * 4 + j];
  expectNear(runModel2(einsumModel("kij->jk", {2, 3, 4}, {}, "sumt"), c, {}, 8), want);
}

TEST(OnnxFunctionOps, EinsumDiagonal) {
  // ii->i: the diagonal; ii-> (the trace) sums it.
  const std::vector<float> a = ramp(9, 0.7f);
  expectNear(runModel2(einsumModel("ii->i", {3, 3}, {}, "diag"), a, {}, 3), {a[0], a[4], a[8]});
  expectNear(runModel2(einsumModel("ii->", {3, 3}, {}, "trace"), a, {}, 1), {a[0] + a[4] + a[8]});
  try {
    runModel2(einsumModel("ii->i", {3, 4}, {}, "baddiag"), ramp(12, 1.0f), {}, 3);
    ADD_FAILURE() << "a diagonal over dims 3 and 4 imported";
  } catch (const AtcError& e) {
    EXPECT_NE(std::string(e.what()).find("repeats in one operand over dims of different sizes"), std::string::npos)
        << e.what();
  }
}

TEST(OnnxFunctionOps, EinsumRefusals) {
  for (auto [eq, why] : {std::pair<std::string, std::string>{"ij->ik", "output letter 'k' is in no operand"},
                         {"ijk->i", "has rank 2 but subscripts 'ijk'"}}) {
    try {
      runModel2(einsumModel(eq, {3, 3}, {}, "bad"), ramp(9, 1.0f), {}, 3);
      ADD_FAILURE() << eq << " imported";
    } catch (const AtcError& e) {
      EXPECT_EQ(e.code(), "E19999") << eq;
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  }
}
