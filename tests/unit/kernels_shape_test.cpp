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

// Found by fuzz_onnx (UBSan): Reshape multiplied the target dims unchecked (72 * INT64_MAX,
// signed overflow); now an error that says so.
TEST(ShapeOps, ReshapeTargetWhoseSizeOverflowsIsAnError) {
  auto x = iotaF({72});
  try {
    runOp("Reshape", {x, ints({72, INT64_MAX})});
    ADD_FAILURE() << "accepted";
  } catch (const atc::AtcError& e) {
    EXPECT_NE(std::string(e.what()).find("overflows"), std::string::npos) << e.what();
  }
}

// Found by fuzz_onnx (UBSan): Split and Concat of scalars indexed the empty shape at axis 0
// (normalizeAxis accepts axis 0 for rank 0). Now errors.
TEST(ShapeOps, SplitAndConcatOfScalarsAreErrors) {
  auto scalar = makeIntTensor({5}, DType::I64, true);
  ASSERT_EQ(scalar->type.rank(), 0);
  EXPECT_THROW(inferOp("Split", {scalar}), atc::AtcError);
  EXPECT_THROW(inferOp("Concat", {scalar, scalar}, {{"axis", int64_t(0)}}), atc::AtcError);
  // The same for Gather (fuzz_onnx, UBSan: iterator past the empty data shape).
  EXPECT_THROW(inferOp("Gather", {scalar, makeIntTensor({0}, DType::I64, true)}), atc::AtcError);
}

// The root cause: normalizeAxis let axis 0 (and -1) through for a rank-0 input. Every op with an
// axis now refuses a scalar input with "has no axes" instead of indexing an empty shape.
TEST(ShapeOps, AxisOfAScalarIsAnError) {
  auto f = makeIntTensor({5}, DType::I64, true);
  auto expectNoAxes = [](const std::function<void()>& fn, const char* what) {
    try {
      fn();
      ADD_FAILURE() << what << " accepted an axis of a scalar";
    } catch (const atc::AtcError& e) {
      EXPECT_NE(std::string(e.what()).find("no axes"), std::string::npos) << what << ": " << e.what();
    }
  };
  expectNoAxes([&] { inferOp("ArgMax", {f}, {{"axis", int64_t(0)}}); }, "ArgMax");
  expectNoAxes([&] { inferOp("ArgMin", {f}, {{"axis", int64_t(-1)}}); }, "ArgMin");
  expectNoAxes([&] { inferOp("CumSum", {f, makeIntTensor({0}, DType::I64, true)}); }, "CumSum");
  expectNoAxes([&] { inferOp("CumProd", {f, makeIntTensor({0}, DType::I64, true)}); }, "CumProd");
  expectNoAxes([&] { inferOp("ReduceSum", {f, makeIntTensor({0}, DType::I64, false)}); }, "ReduceSum");
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

// Scales fed at run time make the output run-sized (resize_rt); they must hold one value per axis.
TEST(Resize, RunTimeScalesMakeTheOutputRunSized) {
  Graph g;
  Value* x = g.newConstant("x", iotaF({1, 1, 2, 2}));
  Value* s = g.newValue("s", TensorType(DType::F32, {4}));
  Value* y = g.newValue("y");
  inferNode(g, *g.addNode("Resize", "r", {x, nullptr, s}, {y}));
  EXPECT_TRUE(isRunSized(y));
  EXPECT_EQ(y->type.rank(), 4);
  Value* s3 = g.newValue("s3", TensorType(DType::F32, {3}));
  Node* n = g.addNode("Resize", "r3", {x, nullptr, s3}, {g.newValue("y3")});
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
  DType dt;
  switch (p.data_type()) {
    case onnx::TensorProto::FLOAT: dt = DType::F32; break;
    case onnx::TensorProto::DOUBLE: dt = DType::F64; break;
    case onnx::TensorProto::FLOAT16: dt = DType::F16; break;
    case onnx::TensorProto::INT64: dt = DType::I64; break;
    case onnx::TensorProto::INT32: dt = DType::I32; break;
    case onnx::TensorProto::INT8: dt = DType::I8; break;
    case onnx::TensorProto::UINT8: dt = DType::U8; break;
    case onnx::TensorProto::BOOL: dt = DType::Bool; break;
    default: return nullptr;
  }
  auto t = std::make_shared<Tensor>(TensorType(dt, s));
  if (!p.raw_data().empty()) {
    std::memcpy(t->data.data(), p.raw_data().data(), std::min(t->data.size(), p.raw_data().size()));
  } else {
    for (int64_t i = 0; i < t->type.numel(); ++i) {
      switch (dt) {
        case DType::F32: t->as<float>()[i] = p.float_data((int)i); break;
        case DType::F64: t->as<double>()[i] = p.double_data((int)i); break;
        case DType::I64: t->as<int64_t>()[i] = p.int64_data((int)i); break;
        case DType::I32: t->as<int32_t>()[i] = p.int32_data((int)i); break;
        case DType::F16: t->as<uint16_t>()[i] = (uint16_t)p.int32_data((int)i); break;
        case DType::I8: t->as<int8_t>()[i] = (int8_t)p.int32_data((int)i); break;
        default: t->as<uint8_t>()[i] = (uint8_t)p.int32_data((int)i); break;
      }
    }
  }
  return t;
}

// Runs the ONNX node test `name`: its main node (the last one that is not a Constant) with
// the test's inputs as constants; every output is compared with the reference.
void runConformance(const std::string& name) {
  std::string dir = std::string(kOnnxNodeTests) + name + "/";
  onnx::ModelProto m;
  if (!readProto(dir + "model.onnx", &m)) GTEST_SKIP() << "no " << dir;
  int64_t opset = 0;
  for (auto& o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  const onnx::NodeProto* node = nullptr;
  for (auto& n : m.graph().node())
    if (n.op_type() != "Constant") node = &n;
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
    else if (a.type() == onnx::AttributeProto::INTS)
      attrs[a.name()] = std::vector<int64_t>(a.ints().begin(), a.ints().end());
    else if (a.type() == onnx::AttributeProto::FLOATS)
      attrs[a.name()] = std::vector<double>(a.floats().begin(), a.floats().end());
    else if (a.type() == onnx::AttributeProto::TENSOR) attrs[a.name()] = fromProto(a.t());
  }
  OneNode o(node->op_type(), ins, node->output_size(), attrs, opset);
  auto got = o.run();
  for (int k = 0; k < m.graph().output_size(); ++k) {
    onnx::TensorProto want;
    ASSERT_TRUE(readProto(dir + "test_data_set_0/output_" + std::to_string(k) + ".pb", &want));
    TensorPtr w = fromProto(want);
    TensorPtr y = got.at((size_t)k);
    ASSERT_EQ(y->type.str(), w->type.str()) << name << " output " << k;
    for (int64_t i = 0; i < w->type.numel(); ++i)
      ASSERT_NEAR(y->floatAt(i), w->floatAt(i), 1e-4 + 1e-4 * std::fabs(w->floatAt(i))) << name << " at " << i;
  }
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

// ONNX node tests of the other data-movement and shape ops.
class DataMoveConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(DataMoveConformance, MatchesOnnxReference) { runConformance(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Onnx, DataMoveConformance,
    ::testing::Values(
        "test_concat_1d_axis_0", "test_concat_1d_axis_negative_1", "test_concat_2d_axis_0", "test_concat_2d_axis_1",
        "test_concat_2d_axis_negative_1", "test_concat_2d_axis_negative_2", "test_concat_3d_axis_0",
        "test_concat_3d_axis_1", "test_concat_3d_axis_2", "test_concat_3d_axis_negative_1",
        "test_concat_3d_axis_negative_2", "test_concat_3d_axis_negative_3", "test_constant_pad",
        "test_constantofshape_float_ones", "test_constantofshape_int_shape_zero", "test_constantofshape_int_zeros",
        "test_cumsum_1d", "test_cumsum_1d_exclusive", "test_cumsum_1d_reverse", "test_cumsum_1d_reverse_exclusive",
        "test_cumsum_2d_axis_0", "test_cumsum_2d_axis_1", "test_cumsum_2d_negative_axis", "test_depthtospace_crd_mode",
        "test_depthtospace_crd_mode_example", "test_depthtospace_dcr_mode", "test_depthtospace_example",
        "test_dropout_default", "test_dropout_default_mask", "test_dropout_default_mask_ratio",
        "test_dropout_default_old", "test_dropout_default_ratio", "test_edge_pad", "test_expand_dim_changed",
        "test_expand_dim_unchanged", "test_eyelike_populate_off_main_diagonal", "test_eyelike_with_dtype",
        "test_eyelike_without_dtype", "test_flatten_axis0", "test_flatten_axis1", "test_flatten_axis2",
        "test_flatten_axis3", "test_flatten_default_axis", "test_flatten_negative_axis1", "test_flatten_negative_axis2",
        "test_flatten_negative_axis3", "test_flatten_negative_axis4", "test_gather_0", "test_gather_1",
        "test_gather_2d_indices", "test_gather_elements_0", "test_gather_elements_1",
        "test_gather_elements_negative_indices", "test_gather_negative_indices", "test_gathernd_example_float32",
        "test_gathernd_example_int32", "test_gathernd_example_int32_batch_dim1", "test_identity",
        "test_onehot_negative_indices", "test_onehot_with_axis", "test_onehot_with_negative_axis",
        "test_onehot_without_axis", "test_range_float_type_positive_delta", "test_range_int32_type_negative_delta",
        "test_reflect_pad", "test_reshape_allowzero_reordered", "test_reshape_extended_dims",
        "test_reshape_negative_dim", "test_reshape_negative_extended_dims", "test_reshape_one_dim",
        "test_reshape_reduced_dims", "test_reshape_reordered_all_dims", "test_reshape_reordered_last_dims",
        "test_reshape_zero_and_negative_dim", "test_reshape_zero_dim", "test_scatter_elements_with_axis",
        "test_scatter_elements_with_duplicate_indices", "test_scatter_elements_with_negative_indices",
        "test_scatter_elements_without_axis", "test_scatter_with_axis", "test_scatter_without_axis",
        "test_scatternd", "test_scatternd_add", "test_scatternd_multiply", "test_shape", "test_shape_clip_end",
        "test_shape_clip_start", "test_shape_end_1", "test_shape_end_negative_1", "test_shape_example",
        "test_shape_start_1", "test_shape_start_1_end_2", "test_shape_start_1_end_negative_1",
        "test_shape_start_negative_1", "test_size", "test_size_example", "test_slice", "test_slice_default_axes",
        "test_slice_default_steps", "test_slice_end_out_of_bounds", "test_slice_neg", "test_slice_neg_steps",
        "test_slice_negative_axes", "test_slice_start_out_of_bounds", "test_spacetodepth", "test_spacetodepth_example",
        "test_split_equal_parts_1d", "test_split_equal_parts_2d", "test_split_equal_parts_default_axis",
        "test_split_variable_parts_1d", "test_split_variable_parts_2d", "test_split_variable_parts_default_axis",
        "test_split_zero_size_splits", "test_squeeze", "test_squeeze_negative_axes", "test_tile",
        "test_tile_precomputed", "test_transpose_all_permutations_0", "test_transpose_all_permutations_1",
        "test_transpose_all_permutations_2", "test_transpose_all_permutations_3", "test_transpose_all_permutations_4",
        "test_transpose_all_permutations_5", "test_transpose_default", "test_tril", "test_tril_neg",
        "test_tril_one_row_neg", "test_tril_out_neg", "test_tril_out_pos", "test_tril_pos", "test_tril_square",
        "test_tril_square_neg", "test_tril_zero", "test_triu", "test_triu_neg", "test_triu_one_row",
        "test_triu_out_neg_out", "test_triu_out_pos", "test_triu_pos", "test_triu_square", "test_triu_square_neg",
        "test_triu_zero", "test_unsqueeze_axis_0", "test_unsqueeze_axis_1", "test_unsqueeze_axis_2",
        "test_unsqueeze_axis_3", "test_unsqueeze_negative_axes", "test_unsqueeze_three_axes",
        "test_unsqueeze_two_axes", "test_unsqueeze_unsorted_axes"),
    [](const ::testing::TestParamInfo<std::string>& i) { return i.param.substr(5); });
