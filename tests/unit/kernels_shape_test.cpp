// Shape ops (Shape, Size, ConstantOfShape, Range) and Resize / Upsample, run natively.
// Resize is also checked against every ONNX conformance case in libonnx-testdata.
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <fstream>

#include "tests/unit/dm_test_util.h"

using namespace atc;
using namespace dmtest;

TEST(ShapeOps, ShapeSizeAreConstantsAfterInfer) {
  auto x = iotaF({2, 3, 4});
  OneNode o("Shape", {x});
  inferNode(o.g, *o.node);
  ASSERT_TRUE(o.node->outputs[0]->isConstant());
  EXPECT_EQ(o.node->outputs[0]->constant->toInts(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(o.run1()->toInts(), (std::vector<int64_t>{2, 3, 4}));
  auto s = runOp("Shape", {x}, {{"start", int64_t(-2)}});
  EXPECT_EQ(s->toInts(), (std::vector<int64_t>{3, 4}));
  s = runOp("Shape", {x}, {{"start", int64_t(1)}, {"end", int64_t(-1)}});
  EXPECT_EQ(s->toInts(), (std::vector<int64_t>{3}));
  OneNode z("Size", {x});
  auto r = z.run1();
  EXPECT_EQ(r->type.str(), "int64[]");
  EXPECT_EQ(r->intAt(0), 24);
  EXPECT_TRUE(z.node->outputs[0]->isConstant());
}

TEST(ShapeOps, ConstantOfShape) {
  auto y = runOp("ConstantOfShape", {ints({2, 3})});
  EXPECT_EQ(y->type.str(), "float32[2,3]");
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y->as<float>()[i], 0.f);
  auto v = makeIntTensor({7}, DType::I64);
  auto yi = runOp("ConstantOfShape", {ints({3})}, {{"value", v}});
  EXPECT_EQ(yi->toInts(), (std::vector<int64_t>{7, 7, 7}));
  auto h = std::make_shared<Tensor>(TensorType(DType::F16, {1}));
  h->as<uint16_t>()[0] = floatToHalf(1.5f);
  auto yh = runOp("ConstantOfShape", {ints({2, 0})}, {{"value", TensorPtr(h)}});
  EXPECT_EQ(yh->type.str(), "float16[2,0]");
  auto y1 = runOp("ConstantOfShape", {ints({4})}, {{"value", TensorPtr(h)}});
  for (int i = 0; i < 4; ++i) EXPECT_EQ(halfToFloat(y1->as<uint16_t>()[i]), 1.5f);
}

TEST(ShapeOps, Range) {
  auto sc = [](int64_t v) { return makeIntTensor({v}, DType::I64, true); };
  EXPECT_EQ(runOp("Range", {sc(1), sc(10), sc(3)})->toInts(), (std::vector<int64_t>{1, 4, 7}));
  EXPECT_EQ(runOp("Range", {sc(10), sc(4), sc(-2)})->toInts(), (std::vector<int64_t>{10, 8, 6}));
  EXPECT_EQ(runOp("Range", {sc(3), sc(3), sc(1)})->type.str(), "int64[0]");
  auto f = [](float v) { return tensorFrom<float>(DType::F32, {}, {v}); };
  auto r = runOp("Range", {f(0.5f), f(2.0f), f(0.5f)});
  expectFloats(*r, {0.5f, 1.0f, 1.5f});
  auto i32 = [](int32_t v) { return tensorFrom<int32_t>(DType::I32, {}, {v}); };
  auto ri = runOp("Range", {i32(-3), i32(3), i32(2)});
  EXPECT_EQ(ri->type.str(), "int32[3]");
  EXPECT_EQ(ri->toInts(), (std::vector<int64_t>{-3, -1, 1}));
}

// Shape arithmetic chain as a constant folder sees it: Shape -> Gather -> Concat -> Reshape.
TEST(ShapeOps, ShapeArithmeticChain) {
  auto x = iotaF({2, 3, 4});
  auto shp = runOp("Shape", {x});
  auto g0 = runOp("Gather", {shp, makeIntTensor({0}, DType::I64, true)});
  auto u = runOp("Unsqueeze", {g0, ints({0})});
  auto cat = runOp("Concat", {u, ints({-1})}, {{"axis", int64_t(0)}});
  EXPECT_EQ(cat->toInts(), (std::vector<int64_t>{2, -1}));
  EXPECT_EQ(runOp("Reshape", {x, cat})->type.str(), "float32[2,12]");
}

TEST(Resize, NearestAndLinearBasics) {
  auto x = iotaF({1, 1, 2, 2}, 1);  // 1 2 / 3 4
  auto y = runOp("Resize", {x, nullptr, tensorFrom<float>(DType::F32, {4}, {1, 1, 2, 3})});
  EXPECT_EQ(y->type.str(), "float32[1,1,4,6]");
  expectFloats(*y, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4});
  auto l = runOp("Resize", {x, nullptr, tensorFrom<float>(DType::F32, {4}, {1, 1, 2, 2})},
                 {{"mode", std::string("linear")}});
  expectFloats(*l, {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f, 3.75f, 4}, 1e-5f);
  // Upsample opset 7 (attribute) and 9 (input), asymmetric + floor.
  auto u7 = runOp("Upsample", {x}, {{"scales", std::vector<double>{1, 1, 2, 2}}}, 7);
  expectFloats(*u7, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  auto u9 = runOp("Upsample", {x, tensorFrom<float>(DType::F32, {4}, {1, 1, 2, 2})},
                  {{"mode", std::string("linear")}}, 9);
  expectFloats(*u9, {1, 1.5f, 2, 2, 2, 2.5f, 3, 3, 3, 3.5f, 4, 4, 3, 3.5f, 4, 4}, 1e-5f);
  // Resize-10: X, scales.
  auto r10 = runOp("Resize", {x, tensorFrom<float>(DType::F32, {4}, {1, 1, 1, 2})}, {}, 10);
  expectFloats(*r10, {1, 1, 2, 2, 3, 3, 4, 4});
  // uint8 nearest moves bytes; sizes input.
  auto b = tensorFrom<uint8_t>(DType::U8, {2, 2}, {10, 20, 30, 40});
  auto yb = runOp("Resize", {b, nullptr, nullptr, ints({4, 4})}, {{"nearest_mode", std::string("floor")}});
  EXPECT_EQ(yb->as<uint8_t>()[5], 10);
  EXPECT_EQ(yb->as<uint8_t>()[15], 40);
}

TEST(Resize, NonConstantScalesAreRejected) {
  Graph g;
  Value* x = g.newConstant("x", iotaF({1, 1, 2, 2}));
  Value* s = g.newValue("s", TensorType(DType::F32, {4}));
  Node* n = g.addNode("Resize", "r", {x, nullptr, s}, {g.newValue("y")});
  EXPECT_THROW(inferNode(g, *n), AtcError);
}

// ---- ONNX conformance data -------------------------------------------------------------

namespace {

const char* kOnnxNodeTests = "/usr/share/libonnx-testdata/data/node/";

bool readProto(const std::string& path, google::protobuf::MessageLite* m) {
  std::ifstream f(path, std::ios::binary);
  return f && m->ParseFromIstream(&f);
}

TensorPtr fromProto(const onnx::TensorProto& p) {
  Shape s(p.dims().begin(), p.dims().end());
  if (p.data_type() == onnx::TensorProto::FLOAT) {
    auto t = std::make_shared<Tensor>(TensorType(DType::F32, s));
    if (!p.raw_data().empty()) std::memcpy(t->data.data(), p.raw_data().data(), t->data.size());
    else for (int i = 0; i < p.float_data_size(); ++i) t->as<float>()[i] = p.float_data(i);
    return t;
  }
  if (p.data_type() == onnx::TensorProto::INT64) {
    auto t = std::make_shared<Tensor>(TensorType(DType::I64, s));
    if (!p.raw_data().empty()) std::memcpy(t->data.data(), p.raw_data().data(), t->data.size());
    else for (int i = 0; i < p.int64_data_size(); ++i) t->as<int64_t>()[i] = p.int64_data(i);
    return t;
  }
  return nullptr;
}

void runConformance(const std::string& name) {
  std::string dir = std::string(kOnnxNodeTests) + name + "/";
  onnx::ModelProto m;
  if (!readProto(dir + "model.onnx", &m)) GTEST_SKIP() << "no " << dir;
  int64_t opset = 0;
  for (auto& o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  const onnx::NodeProto* node = nullptr;
  for (auto& n : m.graph().node())
    if (n.op_type() == "Resize" || n.op_type() == "Upsample") node = &n;
  ASSERT_NE(node, nullptr);
  std::map<std::string, TensorPtr> feeds;
  for (int i = 0; i < m.graph().input_size(); ++i) {
    onnx::TensorProto t;
    ASSERT_TRUE(readProto(dir + "test_data_set_0/input_" + std::to_string(i) + ".pb", &t));
    feeds[m.graph().input(i).name()] = fromProto(t);
  }
  for (auto& init : m.graph().initializer()) feeds[init.name()] = fromProto(init);
  for (auto& cn : m.graph().node())
    if (cn.op_type() == "Constant")
      for (auto& a : cn.attribute())
        if (a.name() == "value") feeds[cn.output(0)] = fromProto(a.t());
  std::vector<TensorPtr> ins;
  for (auto& in : node->input()) ins.push_back(in.empty() ? nullptr : feeds.at(in));
  std::map<std::string, AttrValue> attrs;
  for (auto& a : node->attribute()) {
    if (a.type() == onnx::AttributeProto::INT) attrs[a.name()] = (int64_t)a.i();
    else if (a.type() == onnx::AttributeProto::FLOAT) attrs[a.name()] = (double)a.f();
    else if (a.type() == onnx::AttributeProto::STRING) attrs[a.name()] = a.s();
    else if (a.type() == onnx::AttributeProto::FLOATS)
      attrs[a.name()] = std::vector<double>(a.floats().begin(), a.floats().end());
  }
  onnx::TensorProto want;
  ASSERT_TRUE(readProto(dir + "test_data_set_0/output_0.pb", &want));
  TensorPtr w = fromProto(want);
  TensorPtr y = runOp(node->op_type(), ins, attrs, opset);
  ASSERT_EQ(y->type.str(), w->type.str()) << name;
  for (int64_t i = 0; i < w->type.numel(); ++i)
    ASSERT_NEAR(y->floatAt(i), w->floatAt(i), 1e-4 + 1e-4 * std::fabs(w->floatAt(i))) << name << " at " << i;
}

}  // namespace

class ResizeConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(ResizeConformance, MatchesOnnxReference) { runConformance(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Onnx, ResizeConformance,
    ::testing::Values(
        "test_resize_downsample_scales_cubic", "test_resize_downsample_scales_cubic_A_n0p5_exclude_outside",
        "test_resize_downsample_scales_cubic_align_corners", "test_resize_downsample_scales_linear",
        "test_resize_downsample_scales_linear_align_corners", "test_resize_downsample_scales_nearest",
        "test_resize_downsample_sizes_cubic", "test_resize_downsample_sizes_linear_pytorch_half_pixel",
        "test_resize_downsample_sizes_nearest", "test_resize_downsample_sizes_nearest_tf_half_pixel_for_nn",
        "test_resize_tf_crop_and_resize", "test_resize_upsample_scales_cubic",
        "test_resize_upsample_scales_cubic_A_n0p5_exclude_outside", "test_resize_upsample_scales_cubic_align_corners",
        "test_resize_upsample_scales_cubic_asymmetric", "test_resize_upsample_scales_linear",
        "test_resize_upsample_scales_linear_align_corners", "test_resize_upsample_scales_nearest",
        "test_resize_upsample_sizes_cubic", "test_resize_upsample_sizes_nearest",
        "test_resize_upsample_sizes_nearest_ceil_half_pixel", "test_resize_upsample_sizes_nearest_floor_align_corners",
        "test_resize_upsample_sizes_nearest_round_prefer_ceil_asymmetric", "test_upsample_nearest"),
    [](const ::testing::TestParamInfo<std::string>& i) { return i.param.substr(5); });
