// conv_dwc (kernels/lib/conv_dwc.cpp): depthwise conv with 16 channels in the vector lanes, on
// both microkernel families (4 or 8 output pixels at a time): channel counts that are not a
// multiple of 16, batches, strides, dilations, asymmetric pads, bands of output rows, epilogues
// in the pixel-major tile (SiLU, Clip) and after the transpose (residual + ReLU), float16 in
// and out. Checked against a float64 reference and against conv_dw on the same inputs.
#include <gtest/gtest.h>

#include <cstdlib>

#include "support/half.h"
#include "tests/unit/cube_test_util.h"

namespace atc {
namespace {

using cubetest::ConvCase;
using cubetest::expectClose;
using cubetest::randTensor;

struct DwCase {
  ConvCase cc;
  int act;  // 0 none, 42 SiLU, 6 Clip(0, 6), 1 ReLU
  bool res, f16;
};

double applyAct(int act, double v) {
  if (act == 42) return v / (1.0 + std::exp(-v));
  if (act == 6) return std::min(6.0, std::max(0.0, v));
  if (act == 1) return v < 0 ? 0.0 : v;
  return v;
}

// Builds the node, lowers it with ATC_CONV_DWC=`dwc` and runs it; returns Y as float.
std::vector<float> runDw(const DwCase& c, const TensorPtr& xt, const TensorPtr& wt, const TensorPtr& bt,
                         const TensorPtr& rt, int rows, bool dwc) {
  const ConvCase& cc = c.cc;
  setenv("ATC_CONV_DWC", dwc ? "1" : "0", 1);
  Graph g;
  std::vector<Value*> ins = {g.newConstant("x", xt), g.newConstant("w", wt), g.newConstant("b", bt)};
  if (c.res) ins.push_back(g.newConstant("r", rt));
  Node* n = g.addNode("Conv", "conv", ins, {g.newValue("y")});
  cubetest::setConvAttrs(n, cc);
  if (c.act) n->attrs["_epi_act"] = (int64_t)c.act;
  if (c.act == 6) n->attrs["_epi_beta"] = 6.0;
  if (c.res) n->attrs["_epi_res"] = int64_t(3);
  if (c.f16) n->attrs["_out_dtype"] = (int64_t)DType::F16;
  inferNode(g, *n);
  {  // the kernel the lowering picks, on a copy of the graph
    Graph g2;
    std::vector<Value*> ins2;
    for (Value* v : ins) ins2.push_back(g2.newConstant(v->name, v->constant));
    Node* n2 = g2.addNode("Conv", "conv", ins2, {g2.newValue("y")});
    n2->attrs = n->attrs;
    inferNode(g2, *n2);
    LowerCtx ctx(g2, *n2);
    ctx.cubeRows = rows;
    EXPECT_EQ(OpRegistry::instance().find("Conv")->lower(ctx).kernel, dwc ? "conv_dwc" : "conv_dw");
  }
  auto r = evalNodeNative(g, *n, rows);
  unsetenv("ATC_CONV_DWC");
  std::vector<float> y(r[0]->type.numel());
  for (size_t i = 0; i < y.size(); ++i) y[i] = (float)r[0]->floatAt((int64_t)i);
  return y;
}

TEST(DepthwiseLanes, MatchesReferenceAndPlaneKernel) {
  const DwCase cases[] = {
      {{1, 40, 40, 40, {14, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, 42, false, false},
      {{2, 16, 16, 16, {7, 9}, {5, 5}, {1, 1}, {1, 1}, {2, 2, 2, 2}, true}, 0, false, false},
      {{1, 24, 24, 24, {28, 28}, {3, 3}, {2, 2}, {1, 1}, {0, 0, 1, 1}, true}, 6, false, true},
      {{1, 33, 33, 33, {15, 13}, {3, 3}, {2, 2}, {2, 2}, {2, 2, 1, 1}, true}, 1, true, false},
      {{1, 16, 16, 16, {30, 30}, {7, 7}, {1, 1}, {1, 1}, {3, 3, 3, 3}, true}, 42, true, true},
      {{3, 5, 5, 5, {4, 3}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, 0, false, false},
      // a left pad wider than the padded row (one input column, stride 4: PADW 9 < PW 10)
      {{1, 16, 16, 16, {3, 1}, {1, 1}, {1, 4}, {1, 1}, {0, 10, 0, 0}, true}, 0, false, false}};
  uint32_t seed = 1200;
  for (const DwCase& c : cases) {
    const ConvCase& cc = c.cc;
    SCOPED_TRACE("seed " + std::to_string(seed));
    Shape xs = {cc.N, cc.C, cc.in[0], cc.in[1]}, wsh = {cc.C, 1, cc.k[0], cc.k[1]};
    auto xt = randTensor(xs, seed++, c.f16 ? DType::F16 : DType::F32), wt = randTensor(wsh, seed++);
    auto bt = randTensor({cc.C}, seed++);
    std::vector<float> xf(xt->type.numel());
    for (size_t i = 0; i < xf.size(); ++i) xf[i] = (float)xt->floatAt((int64_t)i);
    std::vector<int64_t> out(2), pb = {cc.pads[0], cc.pads[1]};
    for (int i = 0; i < 2; ++i)
      out[i] = (cc.in[i] + cc.pads[i] + cc.pads[i + 2] - (cc.k[i] - 1) * cc.d[i] - 1) / cc.s[i] + 1;
    auto rt = randTensor({cc.N, cc.C, out[0], out[1]}, seed++);
    std::vector<float> want = cubetest::refConv(cc, xf.data(), wt->as<float>(), bt->as<float>(), out, pb);
    for (size_t i = 0; i < want.size(); ++i) {
      double v = want[i];
      if (c.res) v += rt->as<float>()[i];
      want[i] = (float)applyAct(c.act, v);
    }
    for (int rows : {6, 16}) {
      SCOPED_TRACE("rows " + std::to_string(rows));
      std::vector<float> lanes = runDw(c, xt, wt, bt, rt, rows, true);
      std::vector<float> plane = runDw(c, xt, wt, bt, rt, rows, false);
      expectClose(lanes.data(), want, c.f16 ? 2e-3 : 2e-6, "conv_dwc vs float64");
      expectClose(lanes.data(), plane, c.f16 ? 1e-3 : 1e-6, "conv_dwc vs conv_dw");
    }
  }
}

}  // namespace
}  // namespace atc
