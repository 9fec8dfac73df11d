// Winograd F(4x4, 3x3) (ConvWinogradPass, ops/cube/winograd.cpp, kernels/lib/conv_wino.cpp):
// its accuracy against a float64 reference next to the direct convolution's, on ragged maps
// (output sizes not multiples of 4), pads 0 to 2, a batch, ragged channel counts (64- and
// 32-channel weight panels), bias, ReLU and a residual, and float16 input and output; and which
// Convs the pass takes.
#include <gtest/gtest.h>

#include <cstdlib>

#include "passes/pass_registry.h"
#include "target/target_profile.h"
#include "tests/unit/cube_test_util.h"

namespace atc {
namespace {

using cubetest::ConvCase;
using cubetest::randTensor;

struct WinoRun {
  std::vector<float> y;
  bool winograd = false;
};

// Builds Conv(x, w, b) [+ residual, ReLU] and runs it natively after ConvWinogradPass (forced:
// the size rules are tested separately) or without it; float16 X / Y when f16.
WinoRun runConv(const ConvCase& cc, uint32_t seed, bool wino, bool relu, bool res, bool f16, int rows = 16) {
  Graph g;
  Shape xs = {cc.N, cc.C, cc.in[0], cc.in[1]}, ws = {cc.OC, cc.C, 3, 3};
  auto xt = randTensor(xs, seed, f16 ? DType::F16 : DType::F32), wt = randTensor(ws, seed + 1);
  auto bt = randTensor({cc.OC}, seed + 2);
  std::vector<Value*> ins = {g.newConstant("x", xt), g.newConstant("w", wt), g.newConstant("b", bt)};
  int64_t OH = cc.in[0] + cc.pads[0] + cc.pads[2] - 2, OW = cc.in[1] + cc.pads[1] + cc.pads[3] - 2;
  if (res) ins.push_back(g.newConstant("r", randTensor({cc.N, cc.OC, OH, OW}, seed + 3)));
  Value* y = g.newValue("y");
  Node* n = g.addNode("Conv", "conv", ins, {y});
  n->attrs["kernel_shape"] = std::vector<int64_t>{3, 3};
  n->attrs["pads"] = cc.pads;
  if (relu) n->attrs["_epi_act"] = int64_t(1);
  if (res) n->attrs["_epi_res"] = int64_t(3);
  if (f16) n->attrs["_out_dtype"] = (int64_t)DType::F16;
  inferNode(g, *n);
  WinoRun r;
  if (wino) {
    PassOptions opts;
    TargetProfile t;
    t.vectorBits = rows == 16 ? 512 : 256;
    PassContext ctx(opts, &t);
    setenv("ATC_CONV_WINOGRAD", "1", 1);
    r.winograd = runConvWinogradPass(g, ctx);
    unsetenv("ATC_CONV_WINOGRAD");
  }
  for (auto& up : g.nodes()) {
    EXPECT_EQ(up->attrInt("panel", 0), up->type != "Conv" && up->type != "WinogradInput" && rows == 6 ? 16 : 0);
    auto out = evalNodeNative(g, *up, rows);
    up->outputs[0]->constant = out[0];
  }
  const Tensor& yt = *y->constant;
  r.y.resize(yt.type.numel());
  for (size_t i = 0; i < r.y.size(); ++i) r.y[i] = f16 ? halfToFloat(yt.as<uint16_t>()[i]) : yt.as<float>()[i];
  return r;
}

// The float64 reference of runConv (same seeds).
std::vector<float> reference(const ConvCase& cc, uint32_t seed, bool relu, bool res, bool f16) {
  Shape xs = {cc.N, cc.C, cc.in[0], cc.in[1]}, ws = {cc.OC, cc.C, 3, 3};
  auto xt = randTensor(xs, seed, f16 ? DType::F16 : DType::F32), wt = randTensor(ws, seed + 1);
  auto bt = randTensor({cc.OC}, seed + 2);
  std::vector<float> x(xt->type.numel());
  for (size_t i = 0; i < x.size(); ++i) x[i] = f16 ? halfToFloat(xt->as<uint16_t>()[i]) : xt->as<float>()[i];
  std::vector<int64_t> out = {cc.in[0] + cc.pads[0] + cc.pads[2] - 2, cc.in[1] + cc.pads[1] + cc.pads[3] - 2};
  std::vector<float> y = cubetest::refConv(cc, x.data(), wt->as<float>(), bt->as<float>(), out, {cc.pads[0], cc.pads[1]});
  if (res) {
    auto rt = randTensor({cc.N, cc.OC, out[0], out[1]}, seed + 3);
    for (size_t i = 0; i < y.size(); ++i) y[i] += rt->as<float>()[i];
  }
  if (relu)
    for (float& v : y) v = v < 0 ? 0 : v;
  return y;
}

double maxRelErr(const std::vector<float>& got, const std::vector<float>& want) {
  double e = 0;
  for (size_t i = 0; i < want.size(); ++i) e = std::max(e, std::fabs((double)got[i] - want[i]) / (1.0 + std::fabs(want[i])));
  return e;
}

TEST(Winograd, AccuracyAgainstTheDirectConv) {
  struct C { ConvCase cc; bool relu, res, f16; };
  const C cases[] = {
      {{1, 64, 64, 1, {56, 56}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, true, false, false},
      {{2, 33, 70, 1, {13, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 0, 2, 1}, true}, false, true, false},
      {{1, 256, 128, 1, {14, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, true, true, false},
      {{1, 16, 96, 1, {9, 30}, {3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}, true}, false, false, false},
      {{1, 48, 64, 1, {17, 17}, {3, 3}, {1, 1}, {1, 1}, {2, 2, 2, 2}, true}, true, false, true},
      {{1, 128, 32, 1, {28, 28}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, true, true, false},
      {{2, 40, 24, 1, {7, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, false}, false, false, false}};
  for (int rows : {16, 6}) {  // 512-bit panels (64 / 32 channels), 256-bit ones (16)
  uint32_t seed = 1200;
  for (const C& c : cases) {
    SCOPED_TRACE("rows " + std::to_string(rows) + " seed " + std::to_string(seed));
    const std::vector<float> want = reference(c.cc, seed, c.relu, c.res, c.f16);
    const WinoRun direct = runConv(c.cc, seed, false, c.relu, c.res, c.f16, rows);
    const WinoRun wino = runConv(c.cc, seed, true, c.relu, c.res, c.f16, rows);
    ASSERT_TRUE(wino.winograd);
    ASSERT_EQ(wino.y.size(), want.size());
    const double ed = maxRelErr(direct.y, want), ew = maxRelErr(wino.y, want);
    std::printf("[   INFO   ] C=%lld OC=%lld map %lldx%lld: max error (relative to 1 + |y|) direct %.2e, Winograd %.2e\n",
                (long long)c.cc.C, (long long)c.cc.OC, (long long)c.cc.in[0], (long long)c.cc.in[1], ed, ew);
    // float32: measured 4-5x the direct convolution's error (1.4e-5 to 1.4e-4 here, uniform
    // [-1, 1] data, sums of 144 to 2304 products); float16 output: both are the store's rounding.
    if (c.f16) EXPECT_LE(ew, 1e-3);
    else EXPECT_LE(ew, 6.0 * ed + 1e-6);
  }
  }
}

// The pass takes stride-1 3x3 convs with enough channels and tiles (on 256-bit targets with
// 16-channel panels), in the default implementation mode, and keeps the rest direct.
TEST(Winograd, PassChoosesWhereItPays) {
  struct C { int64_t C, OC, H; std::vector<int64_t> strides; std::string mode; int rows; bool want; };
  const C cases[] = {{64, 64, 56, {1, 1}, "", 16, true},
                     {64, 64, 56, {1, 1}, "high_precision", 16, false},
                     {64, 64, 56, {1, 1}, "", 6, true},
                     {64, 40, 56, {1, 1}, "", 6, true},  // 16-channel panels pad 40 to 48 only
                     {512, 512, 7, {1, 1}, "", 6, false},
                     {64, 64, 56, {2, 2}, "", 16, false},
                     {16, 64, 56, {1, 1}, "", 16, false},
                     {64, 32, 56, {1, 1}, "", 16, true},
                     {64, 20, 56, {1, 1}, "", 16, false},
                     {64, 40, 56, {1, 1}, "", 16, false},
                     {512, 512, 7, {1, 1}, "", 16, false},
                     {256, 256, 14, {1, 1}, "high_performance", 16, true}};
  for (const C& c : cases) {
    Graph g;
    Value* x = g.newValue("x", TensorType(DType::F32, {1, c.C, c.H, c.H}));
    g.inputs.push_back(x);
    Value* y = g.newValue("y");
    Node* n = g.addNode("Conv", "conv", {x, g.newConstant("w", randTensor({c.OC, c.C, 3, 3}, 5))}, {y});
    g.outputs.push_back(y);
    n->attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
    n->attrs["strides"] = c.strides;
    if (!c.mode.empty()) n->attrs["_impl_mode"] = c.mode;
    inferNode(g, *n);
    PassOptions opts;
    TargetProfile t;
    t.vectorBits = c.rows == 16 ? 512 : 256;
    PassContext ctx(opts, &t);
    EXPECT_EQ(runConvWinogradPass(g, ctx), c.want) << c.C << "->" << c.OC << " on " << c.H << "x" << c.H << " " << c.mode;
    for (auto& up : g.nodes())  // the 256-bit targets' 16-channel panels, recorded on the gemm
      if (up->type == "WinogradGemm") EXPECT_EQ(up->attrInt("panel", 0), c.rows == 16 ? 0 : 16);
  }
}

}  // namespace
}  // namespace atc
