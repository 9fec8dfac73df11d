// Data-movement ops run natively (evalNodeNative) against references computed here.
#include <cmath>

#include "kernels/codegen/host_cpu.h"
#include "kernels/lib/native_registry.h"
#include "tests/unit/dm_test_util.h"

using namespace atc;
using namespace dmtest;

namespace {

// Reference transpose of a float tensor.
std::vector<float> refTranspose(const Tensor& x, const std::vector<int64_t>& perm) {
  const Shape& s = x.type.shape;
  Shape o;
  for (auto p : perm) o.push_back(s[(size_t)p]);
  std::vector<float> r;
  forEachIndex(o, [&](const std::vector<int64_t>& oi) {
    std::vector<int64_t> ii(s.size());
    for (size_t d = 0; d < perm.size(); ++d) ii[(size_t)perm[d]] = oi[d];
    r.push_back(x.as<float>()[offsetOf(ii, s)]);
  });
  return r;
}

}  // namespace

TEST(DataMove, ReshapeZeroAndMinusOne) {
  auto x = iotaF({2, 3, 4});
  auto y = runOp("Reshape", {x, ints({0, -1})});
  EXPECT_EQ(y->type.str(), "float32[2,12]");
  for (int i = 0; i < 24; ++i) EXPECT_EQ(y->as<float>()[i], (float)i);
  EXPECT_EQ(inferOp("Reshape", {x, ints({-1, 0, 2})}).str(), "float32[4,3,2]");
  EXPECT_EQ(inferOp("Reshape", {x}, {{"shape", std::vector<int64_t>{4, 6}}}, 1).str(), "float32[4,6]");
  // allowzero: 0 is a real zero dim.
  auto e = tensorOf(DType::F32, {0, 3});
  EXPECT_EQ(inferOp("Reshape", {e, ints({3, 0})}, {{"allowzero", int64_t(1)}}).str(), "float32[3,0]");
  EXPECT_THROW(inferOp("Reshape", {x, ints({5, -1})}), AtcError);
  EXPECT_THROW(inferOp("Reshape", {x, ints({-1, -1})}), AtcError);
}

// A shape fed at run time makes the output run-sized (docs/dynamic-shapes.md); its length must
// be static.
TEST(DataMove, ReshapeWithARunTimeShapeIsRunSized) {
  Graph g;
  Value* x = g.newConstant("x", iotaF({2, 3}));
  Value* s = g.newValue("s", TensorType(DType::I64, {2}));
  Value* y = g.newValue("y");
  inferNode(g, *g.addNode("Reshape", "r", {x, s}, {y}));
  EXPECT_TRUE(isRunSized(y));
  EXPECT_EQ(y->type.str(), "float32[?,?]");
  Value* s2 = g.newValue("s2", TensorType(DType::I64, {-1}));
  Node* n = g.addNode("Reshape", "r2", {x, s2}, {g.newValue("y2")});
  try {
    inferNode(g, *n);
    FAIL() << "expected an error";
  } catch (const AtcError& e) {
    EXPECT_NE(std::string(e.what()).find("needs a static shape"), std::string::npos) << e.what();
  }
}

TEST(DataMove, FlattenSqueezeUnsqueeze) {
  auto x = iotaF({2, 1, 3, 1});
  EXPECT_EQ(inferOp("Flatten", {x}).str(), "float32[2,3]");
  EXPECT_EQ(inferOp("Flatten", {x}, {{"axis", int64_t(0)}}).str(), "float32[1,6]");
  EXPECT_EQ(inferOp("Flatten", {x}, {{"axis", int64_t(-1)}}).str(), "float32[6,1]");
  EXPECT_EQ(inferOp("Squeeze", {x}).str(), "float32[2,3]");
  EXPECT_EQ(inferOp("Squeeze", {x, ints({-1})}).str(), "float32[2,1,3]");
  EXPECT_EQ(inferOp("Squeeze", {x}, {{"axes", std::vector<int64_t>{1}}}, 11).str(), "float32[2,3,1]");
  EXPECT_THROW(inferOp("Squeeze", {x, ints({0})}), AtcError);
  EXPECT_EQ(inferOp("Unsqueeze", {x, ints({0, -1})}).str(), "float32[1,2,1,3,1,1]");
  EXPECT_EQ(inferOp("Unsqueeze", {x}, {{"axes", std::vector<int64_t>{2}}}, 11).str(), "float32[2,1,1,3,1]");
  auto y = runOp("Unsqueeze", {x, ints({1})});
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y->as<float>()[i], (float)i);
  EXPECT_TRUE(OpRegistry::instance().find("Reshape")->aliasesInput0);
  EXPECT_TRUE(OpRegistry::instance().find("Squeeze")->aliasesInput0);
}

TEST(DataMove, DropoutForwardsAndMasksTrue) {
  auto x = iotaF({2, 3});
  OneNode o("Dropout", {x}, 2);
  auto r = o.run();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(r[0]->as<float>()[i], (float)i);
  EXPECT_EQ(r[1]->type.str(), "bool[2,3]");
  for (int i = 0; i < 6; ++i) EXPECT_EQ(r[1]->as<uint8_t>()[i], 1);
}

TEST(DataMove, TransposeAllPermsRank3AndBlocked) {
  auto x = iotaF({3, 4, 5});
  std::vector<std::vector<int64_t>> perms = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (auto& p : perms) {
    auto y = runOp("Transpose", {x}, {{"perm", p}});
    expectFloats(*y, refTranspose(*x, p));
  }
  // Default perm reverses; big 2-d transposes take the blocked path (non-multiple of 32).
  auto big = iotaF({2, 70, 45});
  expectFloats(*runOp("Transpose", {big}, {{"perm", std::vector<int64_t>{0, 2, 1}}}), refTranspose(*big, {0, 2, 1}));
  expectFloats(*runOp("Transpose", {big}), refTranspose(*big, {2, 1, 0}));
  auto big4 = iotaF({2, 3, 9, 40});
  expectFloats(*runOp("Transpose", {big4}, {{"perm", std::vector<int64_t>{0, 3, 1, 2}}}), refTranspose(*big4, {0, 3, 1, 2}));
  expectFloats(*runOp("Transpose", {big4}, {{"perm", std::vector<int64_t>{3, 2, 0, 1}}}), refTranspose(*big4, {3, 2, 0, 1}));
  // Other element sizes: uint8, int64.
  auto b = tensorOf(DType::U8, {37, 41});
  for (int i = 0; i < 37 * 41; ++i) b->as<uint8_t>()[i] = (uint8_t)(i * 7);
  auto yb = runOp("Transpose", {b});
  for (int i = 0; i < 37; ++i)
    for (int j = 0; j < 41; ++j) ASSERT_EQ(yb->as<uint8_t>()[j * 37 + i], b->as<uint8_t>()[i * 41 + j]);
  auto l = tensorOf(DType::I64, {5, 33});
  for (int i = 0; i < 5 * 33; ++i) l->as<int64_t>()[i] = (int64_t)i << 33;
  auto yl = runOp("Transpose", {l});
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 33; ++j) ASSERT_EQ(yl->as<int64_t>()[j * 5 + i], l->as<int64_t>()[i * 33 + j]);
  // Zero-size dims.
  EXPECT_EQ(runOp("Transpose", {tensorOf(DType::F32, {0, 3})})->type.str(), "float32[3,0]");
}

TEST(DataMove, ConcatNegativeAxisAndEmptyInput) {
  auto a = iotaF({2, 2, 3}), b = iotaF({2, 1, 3}, 100), e = tensorOf(DType::F32, {2, 0, 3});
  auto y = runOp("Concat", {a, e, b}, {{"axis", int64_t(-2)}});
  EXPECT_EQ(y->type.str(), "float32[2,3,3]");
  std::vector<float> want;
  for (int n = 0; n < 2; ++n) {
    for (int i = 0; i < 6; ++i) want.push_back((float)(n * 6 + i));
    for (int i = 0; i < 3; ++i) want.push_back(100.f + (float)(n * 3 + i));
  }
  expectFloats(*y, want);
  auto i0 = ints({1, 2}), i1 = ints({3});
  auto yi = runOp("Concat", {i0, i1}, {{"axis", int64_t(0)}});
  EXPECT_EQ(yi->toInts(), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_THROW(inferOp("Concat", {a, iotaF({3, 1, 3})}, {{"axis", int64_t(1)}}), AtcError);
}

TEST(DataMove, SplitForms) {
  auto x = iotaF({2, 5});
  {
    OneNode o("Split", {x, ints({2, 3})}, 2, {{"axis", int64_t(-1)}});
    auto r = o.run();
    EXPECT_EQ(r[0]->type.str(), "float32[2,2]");
    expectFloats(*r[0], {0, 1, 5, 6});
    expectFloats(*r[1], {2, 3, 4, 7, 8, 9});
  }
  {
    OneNode o("Split", {x}, 2, {{"axis", int64_t(1)}, {"split", std::vector<int64_t>{4, 1}}}, 11);
    auto r = o.run();
    expectFloats(*r[1], {4, 9});
  }
  {
    OneNode o("Split", {iotaF({6})}, 3);
    auto r = o.run();
    expectFloats(*r[2], {4, 5});
  }
  {
    OneNode o("Split", {iotaF({5})}, 3, {{"num_outputs", int64_t(3)}}, 18);
    auto r = o.run();
    expectFloats(*r[0], {0, 1});
    expectFloats(*r[2], {4});
  }
}

TEST(DataMove, SliceStepsClampingNegative) {
  auto x = iotaF({4, 5});
  // Reference via explicit python-like semantics.
  auto y = runOp("Slice", {x, ints({1, 0}), ints({1000, -1}), ints({0, 1}), ints({2, 2})});
  EXPECT_EQ(y->type.str(), "float32[2,2]");
  expectFloats(*y, {5, 7, 15, 17});
  // Negative steps: reverse a dim fully (ends = INT64_MIN style).
  auto r = runOp("Slice", {x, ints({-1}), ints({INT64_MIN}), ints({1}), ints({-1})});
  EXPECT_EQ(r->type.str(), "float32[4,5]");
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) EXPECT_EQ(r->as<float>()[i * 5 + j], (float)(i * 5 + 4 - j));
  auto r2 = runOp("Slice", {x, ints({3, 4}), ints({0, 0}), ints({0, -1}), ints({-2, -3})});
  expectFloats(*r2, {19, 16, 9, 6});
  // Empty result and opset-1 attributes.
  EXPECT_EQ(inferOp("Slice", {x, ints({3}), ints({1}), ints({0})}).str(), "float32[0,5]");
  auto a = runOp("Slice", {x}, {{"starts", std::vector<int64_t>{1}}, {"ends", std::vector<int64_t>{2}},
                               {"axes", std::vector<int64_t>{1}}}, 1);
  expectFloats(*a, {1, 6, 11, 16});
  EXPECT_EQ(runOp("Slice", {x, ints({1}), ints({1}), ints({0})})->type.numel(), 0);
}

TEST(DataMove, GatherNegativeIndicesAndAxes) {
  auto x = iotaF({3, 4});
  auto y = runOp("Gather", {x, ints({-1, 0})}, {{"axis", int64_t(0)}});
  EXPECT_EQ(y->type.str(), "float32[2,4]");
  expectFloats(*y, {8, 9, 10, 11, 0, 1, 2, 3});
  auto idx = tensorFrom<int32_t>(DType::I32, {2, 2}, {3, -3, 0, 2});
  auto z = runOp("Gather", {x, idx}, {{"axis", int64_t(-1)}});
  EXPECT_EQ(z->type.str(), "float32[3,2,2]");
  expectFloats(*z, {3, 1, 0, 2, 7, 5, 4, 6, 11, 9, 8, 10});
  // Scalar index removes the axis (shape arithmetic: Shape -> Gather).
  auto s = runOp("Gather", {ints({7, 8, 9}), makeIntTensor({1}, DType::I64, true)});
  EXPECT_EQ(s->type.str(), "int64[]");
  EXPECT_EQ(s->intAt(0), 8);
}

TEST(DataMove, GatherElementsAndND) {
  auto x = iotaF({3, 3});
  auto ge = runOp("GatherElements", {x, tensorFrom<int64_t>(DType::I64, {2, 3}, {1, 2, 0, 2, 0, -1})},
                  {{"axis", int64_t(0)}});
  expectFloats(*ge, {3, 7, 2, 6, 1, 8});
  auto ge1 = runOp("GatherElements", {x, tensorFrom<int64_t>(DType::I64, {3, 1}, {2, 0, 1})},
                   {{"axis", int64_t(1)}});
  expectFloats(*ge1, {2, 3, 7});
  auto d = iotaF({2, 2, 2});
  auto nd = runOp("GatherND", {d, tensorFrom<int64_t>(DType::I64, {2, 2}, {0, 1, 1, 0})});
  EXPECT_EQ(nd->type.str(), "float32[2,2]");
  expectFloats(*nd, {2, 3, 4, 5});
  auto nb = runOp("GatherND", {d, tensorFrom<int64_t>(DType::I64, {2, 1}, {1, 0})}, {{"batch_dims", int64_t(1)}});
  EXPECT_EQ(nb->type.str(), "float32[2,2]");
  expectFloats(*nb, {2, 3, 4, 5});
}

TEST(DataMove, ScatterNDAndElements) {
  auto d = iotaF({4, 2});
  auto upd = tensorFrom<float>(DType::F32, {2, 2}, {-1, -2, -3, -4});
  auto y = runOp("ScatterND", {d, tensorFrom<int64_t>(DType::I64, {2, 1}, {3, -4}), upd});
  expectFloats(*y, {-3, -4, 2, 3, 4, 5, -1, -2});
  auto ya = runOp("ScatterND", {d, tensorFrom<int64_t>(DType::I64, {2, 1}, {1, 1}), upd},
                  {{"reduction", std::string("add")}});
  expectFloats(*ya, {0, 1, 2 - 1 - 3, 3 - 2 - 4, 4, 5, 6, 7});
  auto se = runOp("ScatterElements", {iotaF({2, 3}), tensorFrom<int64_t>(DType::I64, {1, 2}, {2, 0}),
                                      tensorFrom<float>(DType::F32, {1, 2}, {10, 20})},
                  {{"axis", int64_t(1)}});
  expectFloats(*se, {20, 1, 10, 3, 4, 5});
}

TEST(DataMove, PadModes) {
  auto x = iotaF({2, 3});
  auto c = runOp("Pad", {x, ints({1, 0, 0, 2}), tensorFrom<float>(DType::F32, {}, {9.f})});
  EXPECT_EQ(c->type.str(), "float32[3,5]");
  expectFloats(*c, {9, 9, 9, 9, 9, 0, 1, 2, 9, 9, 3, 4, 5, 9, 9});
  auto r = runOp("Pad", {x, ints({0, 2, 0, 2})}, {{"mode", std::string("reflect")}});
  expectFloats(*r, {2, 1, 0, 1, 2, 1, 0, 5, 4, 3, 4, 5, 4, 3});
  auto e = runOp("Pad", {x, ints({1, 1, 1, 1})}, {{"mode", std::string("edge")}});
  expectFloats(*e, {0, 0, 1, 2, 2, 0, 0, 1, 2, 2, 3, 3, 4, 5, 5, 3, 3, 4, 5, 5});
  // Opset-2 attribute form and negative (cropping) pads.
  auto a = runOp("Pad", {x}, {{"pads", std::vector<int64_t>{0, -1, 0, 1}}, {"value", 7.0}}, 2);
  expectFloats(*a, {1, 2, 7, 4, 5, 7});
  // Axes input (opset 18) and int64 data.
  auto l = runOp("Pad", {ints({1, 2}), ints({2, 0}), makeIntTensor({-5}, DType::I64, true)});
  EXPECT_EQ(l->toInts(), (std::vector<int64_t>{-5, -5, 1, 2}));
}

// Pad's constant_value fed at run time (a graph input; the attention function bodies pad with a
// computed value): lowered, the kernel reads the value from its buffer.
TEST(DataMove, PadValueAtRunTime) {
  Graph g;
  g.opsetVersion = 18;
  auto x = iotaF({2, 2});
  Value* v = g.newValue("v", TensorType(DType::F32, {}));
  Node* n = g.addNode("Pad", "pad", {g.newConstant("x", x), g.newConstant("p", ints({0, 1, 1, 0})), v},
                      {g.newValue("y")});
  inferNode(g, *n);
  EXPECT_EQ(n->outputs[0]->type.str(), "float32[3,3]");
  LowerCtx ctx(g, *n);
  KernelCall call = OpRegistry::instance().find("Pad")->lower(ctx);
  for (float val : {-2.5f, 7.0f}) {
    std::vector<float> out(9, 0.0f);
    std::vector<void*> bufs = {(void*)x->data.data(), nullptr, &val, out.data()};
    runNativeKernel(*findNativeKernel(call.kernel.c_str()), call.params.data(), bufs.data());
    EXPECT_EQ(out, (std::vector<float>{val, 0, 1, val, 2, 3, val, val, val}));
  }
  // A value of another dtype than X is refused.
  Node* m = g.addNode("Pad", "pad2", {g.newConstant("x2", x), g.newConstant("p2", ints({0, 1, 1, 0})),
                                      g.newValue("w", TensorType(DType::F16, {}))},
                      {g.newValue("y2")});
  EXPECT_THROW(inferNode(g, *m), AtcError);
}

TEST(DataMove, ExpandTile) {
  auto x = iotaF({3, 1});
  auto y = runOp("Expand", {x, ints({2, 1, 4})});
  EXPECT_EQ(y->type.str(), "float32[2,3,4]");
  std::vector<float> want;
  for (int n = 0; n < 2; ++n)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) want.push_back((float)i);
  expectFloats(*y, want);
  EXPECT_EQ(inferOp("Expand", {x, ints({1})}).str(), "float32[3,1]");
  auto t = runOp("Tile", {iotaF({2, 2}), ints({2, 3})});
  EXPECT_EQ(t->type.str(), "float32[4,6]");
  std::vector<float> tw;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) tw.push_back((float)((i % 2) * 2 + j % 2));
  expectFloats(*t, tw);
}

TEST(DataMove, DepthToSpaceSpaceToDepth) {
  auto x = iotaF({1, 8, 2, 3});
  for (std::string mode : {"DCR", "CRD"}) {
    auto y = runOp("DepthToSpace", {x}, {{"blocksize", int64_t(2)}, {"mode", mode}});
    EXPECT_EQ(y->type.str(), "float32[1,2,4,6]");
    forEachIndex({1, 2, 4, 6}, [&](const std::vector<int64_t>& o) {
      int64_t c = o[1], h = o[2] / 2, bh = o[2] % 2, w = o[3] / 2, bw = o[3] % 2;
      int64_t ic = mode == "DCR" ? (bh * 2 + bw) * 2 + c : c * 4 + bh * 2 + bw;
      EXPECT_EQ(y->as<float>()[offsetOf(o, {1, 2, 4, 6})], x->as<float>()[offsetOf({0, ic, h, w}, {1, 8, 2, 3})]);
    });
    if (mode == "DCR") {
      auto back = runOp("SpaceToDepth", {y}, {{"blocksize", int64_t(2)}});
      expectFloats(*back, std::vector<float>(x->as<float>(), x->as<float>() + 48));
    }
  }
}

TEST(DataMove, TriluEyeLikeCumSumOneHot) {
  auto x = iotaF({2, 3, 3}, 1);
  auto up = runOp("Trilu", {x});
  expectFloats(*up, {1, 2, 3, 0, 5, 6, 0, 0, 9, 10, 11, 12, 0, 14, 15, 0, 0, 18});
  auto lo = runOp("Trilu", {iotaF({3, 4}, 1), makeIntTensor({-1}, DType::I64, true)}, {{"upper", int64_t(0)}});
  expectFloats(*lo, {0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0});
  auto up2 = runOp("Trilu", {iotaF({2, 3}, 1), makeIntTensor({5}, DType::I64, true)});
  expectFloats(*up2, {0, 0, 0, 0, 0, 0});
  auto eye = runOp("EyeLike", {tensorOf(DType::I32, {3, 4})}, {{"k", int64_t(1)}, {"dtype", int64_t(1)}});
  EXPECT_EQ(eye->type.str(), "float32[3,4]");
  expectFloats(*eye, {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
  auto cs = runOp("CumSum", {iotaF({2, 3}, 1), makeIntTensor({1}, DType::I64, true)});
  expectFloats(*cs, {1, 3, 6, 4, 9, 15});
  auto cse = runOp("CumSum", {iotaF({2, 3}, 1), makeIntTensor({-2}, DType::I32, true)},
                   {{"exclusive", int64_t(1)}, {"reverse", int64_t(1)}});
  expectFloats(*cse, {4, 5, 6, 0, 0, 0});
  auto oh = runOp("OneHot", {ints({1, -1, 5}), makeIntTensor({3}, DType::I64, true),
                             tensorFrom<float>(DType::F32, {2}, {0, 7})});
  EXPECT_EQ(oh->type.str(), "float32[3,3]");
  expectFloats(*oh, {0, 7, 0, 0, 0, 7, 0, 0, 0});
  auto oh0 = runOp("OneHot", {ints({0, 2}), makeIntTensor({3}, DType::I64, true),
                              tensorFrom<int64_t>(DType::I64, {2}, {-1, 1})}, {{"axis", int64_t(0)}});
  EXPECT_EQ(oh0->toInts(), (std::vector<int64_t>{1, -1, -1, -1, -1, 1}));
}

// Input 1 is not a constant: the kernel reads it at run time (Trilu's k, CumSum's and
// CumProd's axis). Lowers the node and runs its native kernel on buffers.
TensorPtr runWithRuntimeInput1(const std::string& type, const TensorPtr& x, const TensorPtr& scalar,
                               std::map<std::string, AttrValue> attrs = {}) {
  OneNode o(type, {x, scalar}, 1, std::move(attrs));
  Value* rt = o.g.newValue("scalar_input");
  rt->type = scalar->type;
  o.node->inputs[1] = rt;
  inferNode(o.g, *o.node);
  LowerCtx ctx(o.g, *o.node);
  KernelCall call = OpRegistry::instance().find(type)->lower(ctx);
  auto out = std::make_shared<Tensor>(o.node->outputs[0]->type);
  std::vector<void*> bufs = {const_cast<uint8_t*>(x->data.data()), const_cast<uint8_t*>(scalar->data.data()),
                             out->data.data()};
  runNativeKernel(*findNativeKernel(call.kernel.c_str()), call.params.data(), bufs.data());
  return out;
}

TEST(DataMove, RunTimeScalarOperands) {
  // Trilu with k read at run time, beyond the matrix included (clamped: all kept / all dropped).
  auto lo = runWithRuntimeInput1("Trilu", iotaF({3, 4}, 1), makeIntTensor({-1}, DType::I64, true), {{"upper", int64_t(0)}});
  expectFloats(*lo, {0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0});
  auto all = runWithRuntimeInput1("Trilu", iotaF({2, 3}, 1), makeIntTensor({INT64_MIN}, DType::I64, true));
  expectFloats(*all, {1, 2, 3, 4, 5, 6});
  auto none = runWithRuntimeInput1("Trilu", iotaF({2, 3}, 1), makeIntTensor({INT64_MAX}, DType::I64, true));
  expectFloats(*none, {0, 0, 0, 0, 0, 0});
  // CumSum / CumProd along a run-time axis (int64 and int32, negative), exclusive and reverse.
  auto cs = runWithRuntimeInput1("CumSum", iotaF({2, 3}, 1), makeIntTensor({1}, DType::I64, true));
  expectFloats(*cs, {1, 3, 6, 4, 9, 15});
  auto cse = runWithRuntimeInput1("CumSum", iotaF({2, 3}, 1), makeIntTensor({-2}, DType::I32, true),
                                  {{"exclusive", int64_t(1)}, {"reverse", int64_t(1)}});
  expectFloats(*cse, {4, 5, 6, 0, 0, 0});
  auto cp = runWithRuntimeInput1("CumProd", iotaF({2, 3}, 1), makeIntTensor({0}, DType::I32, true));
  expectFloats(*cp, {1, 2, 3, 4, 10, 18});
  auto cpe = runWithRuntimeInput1("CumProd", iotaF({2, 3}, 1), makeIntTensor({-1}, DType::I64, true),
                                  {{"exclusive", int64_t(1)}, {"reverse", int64_t(1)}});
  expectFloats(*cpe, {6, 3, 1, 30, 6, 1});
  // An axis outside [-rank, rank) is clamped (kernels cannot raise errors): 7 -> the last axis.
  auto clamped = runWithRuntimeInput1("CumSum", iotaF({2, 3}, 1), makeIntTensor({7}, DType::I64, true));
  expectFloats(*clamped, {1, 3, 6, 4, 9, 15});
  // A scalar input has no axis to take at run time either.
  EXPECT_THROW(runWithRuntimeInput1("CumSum", makeIntTensor({5}, DType::I64, true), makeIntTensor({0}, DType::I64, true)),
               AtcError);
  // A constant axis: the same as CumSum with products.
  auto cpc = runOp("CumProd", {tensorFrom<int64_t>(DType::I64, {4}, {2, -3, 4, 5}), makeIntTensor({0}, DType::I64, true)});
  EXPECT_EQ(cpc->toInts(), (std::vector<int64_t>{2, -6, -24, -120}));
}

TEST(DataMove, RoiAlign) {
  // X = 4y + x on a 4x4 map is linear, so every bilinear sample is exact.
  auto x = iotaF({1, 1, 4, 4});
  auto rois = [](std::vector<float> v) { return tensorFrom<float>(DType::F32, {(int64_t)v.size() / 4, 4}, v); };
  auto idx = [](std::vector<int64_t> v) { return tensorFrom<int64_t>(DType::I64, {(int64_t)v.size()}, v); };
  std::map<std::string, AttrValue> a = {{"output_height", int64_t(2)}, {"output_width", int64_t(2)},
                                        {"sampling_ratio", int64_t(1)}};
  // half_pixel: samples at 0.5 and 2.5 in both dims.
  auto avg = runOp("RoiAlign", {x, rois({0, 0, 4, 4}), idx({0})}, a, 22);
  expectFloats(*avg, {2.5f, 4.5f, 10.5f, 12.5f}, 1e-6f);
  // max: the largest weighted tap (0.25 * 5 at the first sample).
  auto mx = a;
  mx["mode"] = std::string("max");
  auto m = runOp("RoiAlign", {x, rois({0, 0, 4, 4}), idx({0})}, mx, 22);
  EXPECT_NEAR(m->floatAt(0), 1.25f, 1e-6f);
  // Hostile rois: NaN gives an empty grid (0), a huge one is capped and finishes, a batch
  // index out of range is clamped (the same as index 0 here).
  auto bad = runOp("RoiAlign", {x, rois({NAN, 0, 4, 4, 0, 0, 1e30f, 1e30f, 0, 0, 4, 4}), idx({0, 0, 7})}, a, 22);
  ASSERT_EQ(bad->type.str(), "float32[3,1,2,2]");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(bad->floatAt(i), 0.0f);
  for (int i = 4; i < 8; ++i) EXPECT_TRUE(std::isfinite(bad->floatAt(i)));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(bad->floatAt(8 + i), avg->floatAt(i));
  // Bad attributes and types are refused at compile time.
  auto neg = a;
  neg["output_height"] = int64_t(0);
  EXPECT_THROW(runOp("RoiAlign", {x, rois({0, 0, 4, 4}), idx({0})}, neg, 22), AtcError);
  EXPECT_THROW(runOp("RoiAlign", {x, rois({0, 0, 4, 4}), ints({0, 0})}, a, 22), AtcError);
}

TEST(DataMove, Det) {
  // det [[1, 2], [3, 4]] = -2; a 3x3 that needs a row swap; a singular one; float64.
  auto d2 = runOp("Det", {tensorFrom<float>(DType::F32, {2, 2}, {1, 2, 3, 4})}, {}, 22);
  EXPECT_EQ(d2->type.str(), "float32[]");
  EXPECT_NEAR(d2->floatAt(0), -2.0f, 1e-6f);
  auto d3 = runOp("Det", {tensorFrom<float>(DType::F32, {2, 3, 3}, {0, 2, 1, 1, 0, 0, 0, 1, 3,  //
                                                                     1, 2, 3, 2, 4, 6, 0, 1, 5})},
                  {}, 22);
  EXPECT_EQ(d3->type.str(), "float32[2]");
  EXPECT_NEAR(d3->floatAt(0), -5.0f, 1e-5f);  // 0*(0-0) - 2*(3-0) + 1*(1-0)
  EXPECT_EQ(d3->floatAt(1), 0.0f);
  auto d64 = runOp("Det", {tensorFrom<double>(DType::F64, {1, 2, 2}, {1e150, 0, 0, 1e150})}, {}, 22);
  EXPECT_NEAR(d64->floatAt(0) / 1e300, 1.0, 1e-12);
  auto nan = runOp("Det", {tensorFrom<float>(DType::F32, {2, 2}, {1, 2, 3, NAN})}, {}, 22);
  EXPECT_TRUE(std::isnan(nan->floatAt(0)));
  EXPECT_THROW(runOp("Det", {iotaF({2, 3})}, {}, 22), AtcError);
  EXPECT_THROW(runOp("Det", {ints({1, 2, 3, 4})}, {}, 22), AtcError);
}

// ---- The same kernels specialised by the code generator (params baked in, O3, target
// CPU) and run on the runtime's thread pool must give the native results byte for byte.
#include <cmath>

#include "kernels/codegen/codegen.h"
#include "runtime/atc_rt_abi.h"
#include "runtime/so_loader.h"
#include "runtime/thread_pool.h"

TEST(DataMoveCodegen, MatchesNative) {
  std::vector<std::unique_ptr<OneNode>> cases;
  auto add = [&](const std::string& type, std::vector<TensorPtr> ins, std::map<std::string, AttrValue> attrs = {},
                 int nout = 1) {
    cases.push_back(std::make_unique<OneNode>(type, ins, nout, std::move(attrs)));
  };
  auto big = iotaF({3, 67, 45});
  add("Transpose", {big}, {{"perm", std::vector<int64_t>{0, 2, 1}}});
  add("Transpose", {iotaF({2, 3, 4, 5})}, {{"perm", std::vector<int64_t>{3, 1, 0, 2}}});
  add("Slice", {iotaF({6, 7}), ints({5, 1}), ints({0, 100}), ints({0, 1}), ints({-2, 3})});
  add("Reshape", {iotaF({4, 6}), ints({3, -1})});
  add("Concat", {iotaF({2, 3}), iotaF({2, 200000}, 5)}, {{"axis", int64_t(1)}});
  add("Split", {iotaF({4, 6}), ints({1, 5})}, {{"axis", int64_t(1)}}, 2);
  add("Gather", {iotaF({5, 8}), ints({4, -5, 2})}, {{"axis", int64_t(0)}});
  add("GatherElements", {iotaF({3, 4}), tensorFrom<int64_t>(DType::I64, {3, 2}, {3, 0, -1, 1, 2, 2})}, {{"axis", int64_t(1)}});
  add("GatherND", {iotaF({2, 3, 4}), tensorFrom<int64_t>(DType::I64, {2, 2}, {1, 2, 0, -1})});
  add("ScatterND", {iotaF({4, 3}), tensorFrom<int64_t>(DType::I64, {1, 1}, {2}), iotaF({1, 3}, 50)});
  add("Pad", {iotaF({3, 5}), ints({1, 2, 2, 3})}, {{"mode", std::string("reflect")}});
  add("Pad", {iotaF({3, 5}), ints({1, 2, 2, 3}), tensorFrom<float>(DType::F32, {}, {-1.f})});
  add("Expand", {iotaF({3, 1}), ints({2, 3, 70})});
  add("Tile", {iotaF({2, 3}), ints({3, 2})});
  add("DepthToSpace", {iotaF({1, 8, 3, 5})}, {{"blocksize", int64_t(2)}, {"mode", std::string("CRD")}});
  add("Resize", {iotaF({1, 2, 5, 7}), nullptr, tensorFrom<float>(DType::F32, {4}, {1, 1, 1.5f, 2.3f})},
      {{"mode", std::string("cubic")}});
  add("Resize", {iotaF({1, 2, 5, 7}), nullptr, nullptr, ints({1, 2, 9, 4})},
      {{"mode", std::string("linear")}, {"coordinate_transformation_mode", std::string("align_corners")}});
  add("Resize", {iotaF({1, 2, 5, 7}), nullptr, tensorFrom<float>(DType::F32, {4}, {1, 1, 2, 2})});
  add("ConstantOfShape", {ints({3, 4})}, {{"value", makeIntTensor({9}, DType::I64)}});
  add("Range", {makeIntTensor({2}, DType::I64, true), makeIntTensor({40}, DType::I64, true), makeIntTensor({3}, DType::I64, true)});
  add("Shape", {iotaF({2, 3})});
  add("Dropout", {iotaF({2, 3})}, {}, 2);
  add("Trilu", {iotaF({2, 4, 4})});
  add("CumSum", {iotaF({3, 4}), makeIntTensor({0}, DType::I64, true)});
  add("OneHot", {ints({0, 3}), makeIntTensor({4}, DType::I64, true), tensorFrom<float>(DType::F32, {2}, {0, 1})});
  add("EyeLike", {iotaF({3, 3})});

  std::vector<KernelInstance> ki;
  std::vector<std::vector<TensorPtr>> want;
  for (size_t i = 0; i < cases.size(); ++i) {
    Node& n = *cases[i]->node;
    want.push_back(cases[i]->run());
    LowerCtx ctx(cases[i]->g, n);
    KernelCall kc = OpRegistry::instance().find(n.type)->lower(ctx);
    ki.push_back({kc.kernel, kc.params, "k" + std::to_string(i)});
  }
  std::vector<uint8_t> so = compileKernels(loadHostTargetProfile("native"), ki, CodegenOptions());
  rt::SharedObject obj(so.data(), so.size());
  rt::ThreadPool pool(2);
  for (size_t i = 0; i < cases.size(); ++i) {
    Node& n = *cases[i]->node;
    std::vector<void*> bufs;
    for (auto* v : n.inputs) bufs.push_back(v ? const_cast<uint8_t*>(v->constant->data.data()) : nullptr);
    std::vector<std::vector<uint8_t>> outs;
    for (auto* o : n.outputs) outs.emplace_back((size_t)o->type.byteSize() + 1, 0xAB);
    for (auto& o : outs) bufs.push_back(o.data());
    auto fn = (AtcKernelEntry)obj.symbol(ki[i].symbol);
    fn(bufs.data(), pool.rt());
    for (size_t k = 0; k < outs.size(); ++k) {
      ASSERT_EQ(outs[k].back(), 0xAB) << n.type << " wrote past its output";
      outs[k].pop_back();
      if (n.type == "Resize" || n.type == "CumSum") {
        // Arithmetic kernels: the specialised code may contract to FMA (ulp differences).
        ASSERT_EQ(outs[k].size(), want[i][k]->data.size());
        const float* got = reinterpret_cast<const float*>(outs[k].data());
        for (int64_t e = 0; e < want[i][k]->type.numel(); ++e)
          ASSERT_NEAR(got[e], want[i][k]->as<float>()[e], 1e-5 * (1 + std::fabs(got[e]))) << n.type << " case " << i;
      } else {
        EXPECT_EQ(outs[k], want[i][k]->data) << n.type << " case " << i << " output " << k;
      }
    }
  }
}
