// Tests of the ONNX frontend (frontends/onnx): models are built with the ONNX protobuf API
// and written to a temporary folder.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "frontends/onnx/onnx_importer.h"
#include "support/diagnostics.h"
#include "ir/op_registry.h"

namespace fs = std::filesystem;
using namespace atc;

namespace {

class OnnxImporterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("atc_onnx_test_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    model_.set_ir_version(8);
    auto* op = model_.add_opset_import();
    op->set_domain("");
    op->set_version(13);
    model_.mutable_graph()->set_name("g");
  }
  void TearDown() override { fs::remove_all(dir_); }

  onnx::GraphProto* graph() { return model_.mutable_graph(); }

  onnx::ValueInfoProto* addInput(const std::string& name, int elem,
                                 const std::vector<int64_t>& dims, bool withShape = true) {
    auto* in = graph()->add_input();
    in->set_name(name);
    auto* tt = in->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    if (withShape) {
      auto* sh = tt->mutable_shape();
      for (int64_t d : dims) {
        auto* dim = sh->add_dim();
        if (d >= 0) dim->set_dim_value(d);
        else dim->set_dim_param("N");
      }
    }
    return in;
  }
  void addOutput(const std::string& name) {
    auto* o = graph()->add_output();
    o->set_name(name);
    o->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  }
  onnx::NodeProto* addNode(const std::string& type, const std::vector<std::string>& ins,
                           const std::vector<std::string>& outs, const std::string& name = "",
                           const std::string& domain = "") {
    auto* n = graph()->add_node();
    n->set_op_type(type);
    if (!name.empty()) n->set_name(name);
    if (!domain.empty()) n->set_domain(domain);
    for (auto& i : ins) n->add_input(i);
    for (auto& o : outs) n->add_output(o);
    return n;
  }
  onnx::TensorProto* addFloatInit(const std::string& name, const std::vector<int64_t>& dims,
                                  const std::vector<float>& vals) {
    auto* t = graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) t->add_dims(d);
    t->set_raw_data(std::string((const char*)vals.data(), vals.size() * 4));
    return t;
  }

  std::string save() {
    std::string p = (dir_ / "model.onnx").string();
    std::ofstream f(p, std::ios::binary);
    model_.SerializeToOstream(&f);
    return p;
  }
  std::unique_ptr<Graph> import(ImportOptions o = ImportOptions()) {
    o.model = save();
    return importOnnx(o);
  }
  // Runs the import and returns the error code ("" if none); the message goes to *msg.
  std::string importError(ImportOptions o = ImportOptions(), std::string* msg = nullptr) {
    try {
      import(o);
    } catch (const AtcError& e) {
      if (msg) *msg = e.message();
      return e.code();
    }
    return "";
  }

  fs::path dir_;
  onnx::ModelProto model_;
};

bool haveOp(const char* t) { return OpRegistry::instance().find(t) != nullptr; }

TEST_F(OnnxImporterTest, ImportsInputsInitializersConstantsAndNodes) {
  addInput("x", onnx::TensorProto::FLOAT, {1, 3});
  addFloatInit("w", {3}, {1.f, 2.f, 3.f});
  auto* c = addNode("Constant", {}, {"k"}, "const_k");
  auto* a = c->add_attribute();
  a->set_name("value_ints");
  a->set_type(onnx::AttributeProto::INTS);
  a->add_ints(4);
  a->add_ints(5);
  auto* id = addNode("Identity", {"x"}, {"y"});
  auto* at = id->add_attribute();
  at->set_name("some_float");
  at->set_type(onnx::AttributeProto::FLOAT);
  at->set_f(0.5f);
  auto* as = id->add_attribute();
  as->set_name("some_strings");
  as->set_type(onnx::AttributeProto::STRINGS);
  as->add_strings("a");
  as->add_strings("b");
  addNode("Identity", {"w"}, {"w2"}, "copy_w");
  addOutput("y");
  addOutput("w2");
  addOutput("k");

  auto g = import();
  EXPECT_EQ(g->opsetVersion, 13);
  ASSERT_EQ(g->inputs.size(), 1u);
  EXPECT_EQ(g->inputs[0]->name, "x");
  EXPECT_EQ(g->inputs[0]->type, TensorType(DType::F32, {1, 3}));
  ASSERT_EQ(g->outputs.size(), 3u);
  EXPECT_EQ(g->outputs[0]->name, "y");
  EXPECT_EQ(g->outputs[1]->name, "w2");
  ASSERT_TRUE(g->outputs[2]->isConstant());
  EXPECT_EQ(g->outputs[2]->constant->toInts(), (std::vector<int64_t>{4, 5}));
  Value* w = g->findValue("w");
  ASSERT_TRUE(w && w->isConstant());
  EXPECT_EQ(w->constant->floatAt(2), 3.0);
  ASSERT_EQ(g->nodes().size(), 2u);  // the Constant became a value
  Node* n0 = g->nodes().front().get();
  EXPECT_EQ(n0->name, "Identity_1");  // generated: <OpType>_<index>
  EXPECT_EQ(n0->attrFloat("some_float", 0), 0.5);
  EXPECT_EQ(std::get<std::vector<std::string>>(n0->attrs.at("some_strings")),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(g->findNode("copy_w")->inputs[0], w);
}

TEST_F(OnnxImporterTest, TypedTensorFieldsAndDtypes) {
  addInput("x", onnx::TensorProto::FLOAT, {2});
  auto* t16 = graph()->add_initializer();
  t16->set_name("h");
  t16->set_data_type(onnx::TensorProto::FLOAT16);
  t16->add_dims(2);
  t16->add_int32_data(floatToHalf(1.5f));
  t16->add_int32_data(floatToHalf(-2.0f));
  auto* tb = graph()->add_initializer();
  tb->set_name("b");
  tb->set_data_type(onnx::TensorProto::BOOL);
  tb->add_dims(3);
  tb->add_int32_data(1);
  tb->add_int32_data(0);
  tb->add_int32_data(1);
  auto* tu = graph()->add_initializer();
  tu->set_name("u");
  tu->set_data_type(onnx::TensorProto::UINT32);
  tu->add_uint64_data(4000000000u);
  auto* ti = graph()->add_initializer();
  ti->set_name("i8");
  ti->set_data_type(onnx::TensorProto::INT8);
  ti->add_dims(1);
  ti->add_int32_data(-7);
  addNode("Identity", {"x"}, {"y"});
  addOutput("y");
  auto g = import();
  auto h = g->findValue("h")->constant;
  EXPECT_EQ(h->type, TensorType(DType::F16, {2}));
  EXPECT_EQ(halfToFloat(h->as<uint16_t>()[1]), -2.0f);
  auto b = g->findValue("b")->constant;
  EXPECT_EQ(b->type.dtype, DType::Bool);
  EXPECT_EQ(b->intAt(0), 1);
  EXPECT_EQ(b->intAt(1), 0);
  auto u = g->findValue("u")->constant;
  EXPECT_EQ(u->type, TensorType(DType::U32, {}));
  EXPECT_EQ(u->as<uint32_t>()[0], 4000000000u);
  EXPECT_EQ(g->findValue("i8")->constant->intAt(0), -7);
}

TEST_F(OnnxImporterTest, WrongRawDataSizeIsALoadError) {
  addInput("x", onnx::TensorProto::FLOAT, {2});
  addFloatInit("w", {4}, {1.f, 2.f});
  addNode("Identity", {"x"}, {"y"});
  addOutput("y");
  EXPECT_EQ(importError(), "E10041");
}

TEST_F(OnnxImporterTest, InitializerListedAsInputIsAConstant) {
  addInput("x", onnx::TensorProto::FLOAT, {2});
  addInput("w", onnx::TensorProto::FLOAT, {2});
  addFloatInit("w", {2}, {1.f, 2.f});
  addNode("Identity", {"w"}, {"y"});
  addOutput("y");
  auto g = import();
  ASSERT_EQ(g->inputs.size(), 1u);
  EXPECT_EQ(g->inputs[0]->name, "x");
  EXPECT_TRUE(g->findValue("w")->isConstant());
}

TEST_F(OnnxImporterTest, ListsEveryUnsupportedOp) {
  addInput("x", onnx::TensorProto::FLOAT, {2});
  addNode("NoSuchOpB", {"x"}, {"a"}, "b1");
  addNode("NoSuchOpA", {"a"}, {"b"});
  addNode("NoSuchOpB", {"b"}, {"c"}, "b2");
  addNode("Baz", {"c"}, {"d"}, "ms", "com.example");
  addNode("Identity", {"d"}, {"y"});
  addOutput("y");
  std::string msg;
  EXPECT_EQ(importError(ImportOptions(), &msg), "E19010");
  EXPECT_NE(msg.find("[b1, NoSuchOpB]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[NoSuchOpA_1, NoSuchOpA]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[b2, NoSuchOpB]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unsupported op types: NoSuchOpA, NoSuchOpB, com.example::Baz"),
            std::string::npos)
      << msg;
}

TEST_F(OnnxImporterTest, GraphAttributesAndStringConstantsAreUnsupported) {
  addInput("x", onnx::TensorProto::FLOAT, {2});
  auto* c = addNode("Constant", {}, {"s"}, "str");
  auto* a = c->add_attribute();
  a->set_name("value_string");
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s("hello");
  auto* n = addNode("Identity", {"x"}, {"y"}, "with_graph");
  auto* ga = n->add_attribute();
  ga->set_name("body");
  ga->set_type(onnx::AttributeProto::GRAPH);
  ga->mutable_g()->set_name("sub");
  addOutput("y");
  std::string msg;
  EXPECT_EQ(importError(ImportOptions(), &msg), "E19010");
  EXPECT_NE(msg.find("[str, Constant]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[with_graph, Identity]"), std::string::npos) << msg;
}

TEST_F(OnnxImporterTest, InputShapeOverridesSymbolicDims) {
  addInput("x", onnx::TensorProto::FLOAT, {-1, 3});
  addNode("Identity", {"x"}, {"y"});
  addOutput("y");
  std::string msg;
  EXPECT_EQ(importError(ImportOptions(), &msg), "E10002");
  EXPECT_NE(msg.find("[x]"), std::string::npos) << msg;

  ImportOptions o;
  o.inputShapes["x"] = {4, 3};
  auto g = import(o);
  EXPECT_EQ(g->inputs[0]->type, TensorType(DType::F32, {4, 3}));

  ImportOptions bad;
  bad.inputShapes["nope"] = {4, 3};
  EXPECT_EQ(importError(bad, &msg), "E10016");
  EXPECT_NE(msg.find("nope"), std::string::npos);

  ImportOptions rank;
  rank.inputShapes["x"] = {4, 3, 2};
  EXPECT_EQ(importError(rank), "E10002");

  ImportOptions stillDynamic;
  stillDynamic.inputShapes["x"] = {-1, 3};
  EXPECT_EQ(importError(stillDynamic), "E10002");
}

TEST_F(OnnxImporterTest, InputShapeGivesRankToShapelessInput) {
  addInput("x", onnx::TensorProto::FLOAT, {}, /*withShape=*/false);
  addNode("Identity", {"x"}, {"y"});
  addOutput("y");
  EXPECT_EQ(importError(), "E10002");
  ImportOptions o;
  o.inputShapes["x"] = {2, 2};
  EXPECT_EQ(import(o)->inputs[0]->type, TensorType(DType::F32, {2, 2}));
}

TEST_F(OnnxImporterTest, OutNodesByNodeNameAndTensorName) {
  addInput("x", onnx::TensorProto::FLOAT, {2});
  addNode("Identity", {"x"}, {"a"}, "first");
  addNode("Identity", {"a"}, {"b"}, "second");
  addOutput("b");
  ImportOptions o;
  o.outNodeList = {{"second", 0}, {"a", -1}, {"first", 0}};
  auto g = import(o);
  ASSERT_EQ(g->outputs.size(), 3u);
  EXPECT_EQ(g->outputs[0]->name, "b");
  EXPECT_EQ(g->outputs[1]->name, "a");
  EXPECT_EQ(g->outputs[2]->name, "a");

  ImportOptions missing;
  missing.outNodeList = {{"third", 0}};
  std::string msg;
  EXPECT_EQ(importError(missing, &msg), "E10016");
  EXPECT_NE(msg.find("third"), std::string::npos);
  ImportOptions badIndex;
  badIndex.outNodeList = {{"first", 3}};
  EXPECT_EQ(importError(badIndex), "E10016");
  ImportOptions badTensor;
  badTensor.outNodeList = {{"zz", -1}};
  EXPECT_EQ(importError(badTensor), "E10016");
}

TEST_F(OnnxImporterTest, ExternalDataInsideTheModelFolder) {
  addInput("x", onnx::TensorProto::FLOAT, {2});
  std::vector<float> w = {0.f, 0.f, 7.f, 8.f, 9.f};
  fs::create_directories(dir_ / "weights");
  {
    std::ofstream f(dir_ / "weights" / "w.bin", std::ios::binary);
    f.write((const char*)w.data(), w.size() * 4);
  }
  auto* t = graph()->add_initializer();
  t->set_name("w");
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(3);
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* kv = t->add_external_data();
  kv->set_key("location");
  kv->set_value("weights/w.bin");
  kv = t->add_external_data();
  kv->set_key("offset");
  kv->set_value("8");
  kv = t->add_external_data();
  kv->set_key("length");
  kv->set_value("12");
  addNode("Identity", {"w"}, {"y"});
  addOutput("y");
  auto g = import();
  auto c = g->findValue("w")->constant;
  EXPECT_EQ(c->floatAt(0), 7.0);
  EXPECT_EQ(c->floatAt(2), 9.0);

  // Truncated: asks for more bytes than the file has.
  t->mutable_external_data(2)->set_value("16");
  EXPECT_EQ(importError(), "E10041");
}

TEST_F(OnnxImporterTest, ExternalDataMayNotLeaveTheModelFolder) {
  addInput("x", onnx::TensorProto::FLOAT, {2});
  fs::create_directories(dir_ / "m");
  fs::path outside = dir_ / "secret.bin";
  {
    std::ofstream f(outside, std::ios::binary);
    float v[2] = {1.f, 2.f};
    f.write((const char*)v, 8);
  }
  auto* t = graph()->add_initializer();
  t->set_name("w");
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(2);
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* kv = t->add_external_data();
  kv->set_key("location");
  addNode("Identity", {"w"}, {"y"});
  addOutput("y");
  auto tryLocation = [&](const std::string& loc) {
    kv->set_value(loc);
    std::string p = (dir_ / "m" / "model.onnx").string();
    {
      std::ofstream f(p, std::ios::binary);
      model_.SerializeToOstream(&f);
    }
    ImportOptions o;
    o.model = p;
    try {
      importOnnx(o);
    } catch (const AtcError& e) {
      return e.code() + " " + e.message();
    }
    return std::string("ok");
  };
  EXPECT_EQ(tryLocation("../secret.bin").substr(0, 6), "E10041");
  EXPECT_EQ(tryLocation(outside.string()).substr(0, 6), "E10041");
  fs::create_symlink(outside, dir_ / "m" / "link.bin");
  std::string r = tryLocation("link.bin");
  EXPECT_EQ(r.substr(0, 6), "E10041");
  EXPECT_NE(r.find("outside"), std::string::npos) << r;
  fs::copy_file(outside, dir_ / "m" / "inside.bin");
  EXPECT_EQ(tryLocation("inside.bin"), "ok");
}

TEST_F(OnnxImporterTest, CorruptTruncatedAndMissingFiles) {
  ImportOptions o;
  o.model = (dir_ / "missing.onnx").string();
  try {
    importOnnx(o);
    FAIL();
  } catch (const AtcError& e) {
    EXPECT_EQ(e.code(), "E10041");
    EXPECT_NE(e.message().find("missing.onnx"), std::string::npos);
  }
  o.model = (dir_ / "garbage.onnx").string();
  {
    std::ofstream f(o.model);
    f << "this is not a protobuf at all \xff\xff\xff\xff";
  }
  EXPECT_THROW(importOnnx(o), AtcError);

  addInput("x", onnx::TensorProto::FLOAT, {2});
  addFloatInit("w", {64}, std::vector<float>(64, 1.f));
  addNode("Identity", {"x"}, {"y"});
  addOutput("y");
  std::string full = model_.SerializeAsString();
  o.model = (dir_ / "truncated.onnx").string();
  {
    std::ofstream f(o.model, std::ios::binary);
    f.write(full.data(), full.size() / 2);
  }
  try {
    importOnnx(o);
    FAIL();
  } catch (const AtcError& e) {
    EXPECT_EQ(e.code(), "E10041");
  }
}

TEST_F(OnnxImporterTest, OpsetOutOfRange) {
  addInput("x", onnx::TensorProto::FLOAT, {2});
  addNode("Identity", {"x"}, {"y"});
  addOutput("y");
  model_.mutable_opset_import(0)->set_version(29);  // past the newest opset atc knows (28)
  std::string msg;
  EXPECT_EQ(importError(ImportOptions(), &msg), "E10041");
  EXPECT_NE(msg.find("opset 29"), std::string::npos) << msg;
  // Identity-24 and -25 only add element types: a model of opset 25 using it imports (the
  // refusal of an op that changed for real: onnx_new_opsets_test.cpp, Celu in 28).
  model_.mutable_opset_import(0)->set_version(25);
  EXPECT_EQ(importError(ImportOptions(), &msg), "") << msg;
}

TEST_F(OnnxImporterTest, OldOpsetIsUpgradedTo7) {
  addInput("x", onnx::TensorProto::FLOAT, {2});
  addNode("Identity", {"x"}, {"y"}, "id");
  addOutput("y");
  model_.set_ir_version(3);
  model_.mutable_opset_import(0)->set_version(6);
  auto g = import();
  EXPECT_EQ(g->opsetVersion, 7);
  ASSERT_NE(g->findNode("id"), nullptr);  // node names survive the conversion
}

// Found by fuzz_onnx: the ONNX version converter (run for opsets below 7) crashed in
// libonnx's graphProtoToGraph on a graph output that nothing produces.
TEST_F(OnnxImporterTest, OldOpsetWithAnUndefinedOutputIsALoadError) {
  addInput("x", onnx::TensorProto::FLOAT, {2});
  addNode("Relu", {"x"}, {"y"});
  addOutput("not_produced");
  model_.set_ir_version(3);
  model_.mutable_opset_import(0)->set_version(1);
  std::string msg;
  EXPECT_EQ(importError(ImportOptions(), &msg), "E10041");
  EXPECT_NE(msg.find("[not_produced] is not produced"), std::string::npos) << msg;
}

// Found by fuzz_onnx: the version converter's broadcast adapter read a second input that a
// Div of opset 6 did not have (SIGSEGV in libonnx). The converter runs in a child process, and
// such a node is now refused before it (whether the read crashed varied from run to run).
TEST_F(OnnxImporterTest, OldOpsetGraphThatCrashesTheConverterIsALoadError) {
  addInput("x", onnx::TensorProto::FLOAT, {4});
  addNode("Div", {"x"}, {"z"});
  addOutput("z");
  model_.set_ir_version(3);
  model_.mutable_opset_import(0)->set_version(6);
  std::string msg;
  EXPECT_EQ(importError(ImportOptions(), &msg), "E10041");
  EXPECT_NE(msg.find("version converter"), std::string::npos) << msg;
}

TEST_F(OnnxImporterTest, UnknownInputIsALoadError) {
  addInput("x", onnx::TensorProto::FLOAT, {2});
  addNode("Identity", {"nowhere"}, {"y"});
  addOutput("y");
  EXPECT_EQ(importError(), "E10041");
}

TEST_F(OnnxImporterTest, NodesAreTopologicallySorted) {
  addInput("x", onnx::TensorProto::FLOAT, {2});
  addNode("Identity", {"a"}, {"y"}, "late");
  addNode("Identity", {"x"}, {"a"}, "early");
  addOutput("y");
  auto g = import();
  EXPECT_EQ(g->nodes().front()->name, "early");
}

TEST_F(OnnxImporterTest, OptionalInputsBecomeNull) {
  if (!haveOp("Clip")) GTEST_SKIP() << "Clip not registered yet";
  addInput("x", onnx::TensorProto::FLOAT, {2});
  addFloatInit("hi", {}, {6.f});
  addNode("Clip", {"x", "", "hi"}, {"y"}, "clip");
  addOutput("y");
  auto g = import();
  Node* n = g->findNode("clip");
  ASSERT_EQ(n->inputs.size(), 3u);
  EXPECT_EQ(n->inputs[1], nullptr);
  EXPECT_TRUE(n->inputs[2]->isConstant());
}

}  // namespace
