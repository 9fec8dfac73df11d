// The channel-major path of the conv kernel (CV_OCM, kernels/lib/conv_ocm.h): forced on with
// ATC_CONV_OCM=1 so every case runs it whatever the lowering's heuristic would pick, against
// the naive reference; the lowering's choice itself; and its epilogue (residual, activation,
// float16 in and out) against the pixel-major path.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "support/half.h"
#include "tests/unit/cube_test_util.h"

using namespace atc;
using namespace atc::cubetest;

namespace {

// Sets ATC_CONV_OCM for the scope of a test.
struct OcmSwitch {
  explicit OcmSwitch(const char* v) { setenv("ATC_CONV_OCM", v, 1); }
  ~OcmSwitch() { unsetenv("ATC_CONV_OCM"); }
};

KernelCall lowerConvNode(Graph& g, Node& n, int rows) {
  inferNode(g, n);
  LowerCtx ctx(g, n);
  ctx.cubeRows = rows;
  return OpRegistry::instance().find("Conv")->lower(ctx);
}

// A conv node on constants of the given shapes (3x3 pad 1 or 1x1 unpadded by kernel size).
Node* convNode(Graph& g, const Shape& xs, const Shape& ws, int64_t stride = 1) {
  auto xt = randTensor(xs, 1), wt = randTensor(ws, 2);
  Node* n = g.addNode("Conv", "conv", {g.newConstant("x", xt), g.newConstant("w", wt)}, {g.newValue("y")});
  const int64_t p = ws[2] / 2;
  n->attrs["pads"] = std::vector<int64_t>{p, p, p, p};
  n->attrs["strides"] = std::vector<int64_t>{stride, stride};
  return n;
}

}  // namespace

// Every geometry through the channel-major path: ragged pixel tiles (49 = 8 x 6 + 1), output
// channels not a multiple of 64, K blocks, batches, groups, row blocks of the band, strided
// windows (phase planes), strided and plain 1x1 convs read in place, pixel blocks, 1-D.
TEST(CubeConvOcm, Geometries) {
  for (const char* width : {"64", "32", "16"}) {
  SCOPED_TRACE(std::string("panel width ") + width);
  // 16-channel panels: the 256-bit family's (6-row targets), whatever ATC_CONV_OCM names.
  const bool w16 = std::string(width) == "16";
  const int rows = w16 ? 6 : 16;
  OcmSwitch on(w16 ? "1" : width);
  const ConvCase cases[] = {
      {1, 64, 64, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true},
      {2, 70, 100, 1, {9, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true},
      {1, 40, 130, 1, {14, 14}, {1, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0}, false},
      {1, 300, 72, 1, {20, 21}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, true},
      {2, 16, 128, 2, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true},
      {1, 8, 24, 1, {56, 56}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, false},
      {1, 3, 64, 1, {30, 30}, {7, 7}, {2, 2}, {1, 1}, {3, 3, 3, 3}, true},
      {1, 6, 8, 1, {19, 23}, {3, 3}, {1, 1}, {3, 2}, {3, 2, 3, 2}, true},
      {1, 12, 20, 1, {9}, {3}, {1}, {1}, {1, 1}, true},
      {1, 2, 3, 1, {1, 1}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true},
      {1, 20, 70, 1, {6, 5}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 1, 1}, true},   // 1x1, end pads: the band
      {1, 20, 70, 1, {7, 9}, {1, 1}, {2, 2}, {1, 1}, {0, 0, 1, 1}, true},   // strided, end pads: im2col
  };
  uint32_t seed = 300;
  for (const ConvCase& cc : cases) {
    SCOPED_TRACE("case seed " + std::to_string(seed));
    runConvCaseRows(cc, seed++, rows);
  }
  // The cases above did take the path, with the forced panel width.
  const int64_t nv = w16 ? 1 : std::string(width) == "64" ? 4 : 2;
  Graph g;
  Node* n = convNode(g, {1, 64, 7, 7}, {100, 64, 3, 3});
  KernelCall call = lowerConvNode(g, *n, rows);
  EXPECT_EQ(call.params[CV_OCM], nv);
  EXPECT_EQ(call.params[CV_BAND], 1);
  Graph g2;
  Node* n2 = convNode(g2, {1, 40, 14, 14}, {130, 40, 1, 1}, 2);
  KernelCall call2 = lowerConvNode(g2, *n2, rows);
  EXPECT_EQ(call2.params[CV_OCM], nv);
  EXPECT_EQ(call2.params[CV_BAND], 0);
  }
}

// The lowering's own choice: channel-major for the small maps of the 512-bit family where
// 16-pixel tiles waste lanes; on the 256-bit family for band convs and 1x1 convs with K > 512
// (measured, ops/cube/conv.cpp); never for non-constant weights.
TEST(CubeConvOcm, LoweringChoice) {
  unsetenv("ATC_CONV_OCM");
  // CV_OCM the lowering picks for a conv on constants of these shapes.
  auto ocmOf = [](const Shape& xs, const Shape& ws, int rows) {
    Graph g;
    Node* n = convNode(g, xs, ws);
    return lowerConvNode(g, *n, rows).params[CV_OCM];
  };
  EXPECT_EQ(ocmOf({1, 512, 7, 7}, {512, 512, 3, 3}, 16), 4);
  EXPECT_EQ(ocmOf({1, 1024, 14, 14}, {256, 1024, 1, 1}, 16), 4);
  EXPECT_EQ(ocmOf({1, 128, 28, 28}, {32, 128, 3, 3}, 16), 2);  // DenseNet's 32-channel 3x3 convs
  EXPECT_EQ(ocmOf({1, 512, 7, 7}, {512, 512, 3, 3}, 6), 1);
  EXPECT_EQ(ocmOf({1, 64, 56, 56}, {64, 64, 3, 3}, 6), 1);
  EXPECT_EQ(ocmOf({1, 960, 7, 7}, {160, 960, 1, 1}, 6), 1);
  EXPECT_EQ(ocmOf({1, 512, 7, 7}, {2048, 512, 1, 1}, 6), 0);
  EXPECT_EQ(ocmOf({1, 64, 56, 56}, {256, 64, 1, 1}, 6), 0);
  EXPECT_EQ(ocmOf({1, 3, 224, 224}, {32, 3, 3, 3}, 6), 0);  // K = 27
  {
    Graph g;
    auto wt = randTensor({64, 64, 3, 3}, 2);
    Value* w = g.newValue("w");
    w->type = wt->type;
    Node* n = g.addNode("Conv", "conv", {g.newConstant("x", randTensor({1, 64, 7, 7}, 1)), w}, {g.newValue("y")});
    n->attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
    EXPECT_EQ(lowerConvNode(g, *n, 16).params[CV_OCM], 0);
    EXPECT_EQ(lowerConvNode(g, *n, 6).params[CV_OCM], 0);
  }
}

// Fused residual + activation and float16 input / output on the channel-major path: equal to
// the pixel-major path's result (both accumulate in float32, in different orders). 3x3 windows
// read the band; 1x1 convs on a float16 input convert their pixels per K block (stride 1 and 2).
TEST(CubeConvOcm, EpilogueAndFloat16) {
  struct Geo { int64_t k, stride, pad; };
  for (int rows : {16, 6})
  for (const Geo& geo : {Geo{3, 1, 1}, Geo{1, 1, 0}, Geo{1, 2, 0}}) {
    const int64_t OHW = (7 + 2 * geo.pad - geo.k) / geo.stride + 1, OWW = (9 + 2 * geo.pad - geo.k) / geo.stride + 1;
    auto xt = randTensor({1, 300, 7, 9}, 11), xh = randTensor({1, 300, 7, 9}, 11, DType::F16);
    auto wt = randTensor({80, 300, geo.k, geo.k}, 12), bt = randTensor({80}, 13), rt = randTensor({1, 80, OHW, OWW}, 14);
    for (int half = 0; half < 2; ++half)
      for (int code : {1 /* relu */, 42 /* silu */}) {
        SCOPED_TRACE("rows " + std::to_string(rows) + " k " + std::to_string(geo.k) + " stride " + std::to_string(geo.stride) + " half " +
                     std::to_string(half) + " act " + std::to_string(code));
        std::vector<float> outs[2];
        for (int ocm = 0; ocm < 2; ++ocm) {
          OcmSwitch sw(ocm ? "1" : "0");
          Graph g;
          std::vector<Value*> ins = {g.newConstant("x", half ? xh : xt), g.newConstant("w", wt),
                                     g.newConstant("b", bt), g.newConstant("r", rt)};
          Node* n = g.addNode("Conv", "conv", ins, {g.newValue("y")});
          n->attrs["pads"] = std::vector<int64_t>{geo.pad, geo.pad, geo.pad, geo.pad};
          n->attrs["strides"] = std::vector<int64_t>{geo.stride, geo.stride};
          n->attrs["_epi_act"] = (int64_t)code;
          n->attrs["_epi_res"] = int64_t(3);
          if (half) n->attrs["_out_dtype"] = (int64_t)DType::F16;
          inferNode(g, *n);
          auto r = evalNodeNative(g, *n, rows);
          const int64_t cnt = r[0]->type.numel();
          outs[ocm].resize(cnt);
          for (int64_t i = 0; i < cnt; ++i)
            outs[ocm][i] = half ? halfToFloat(r[0]->as<uint16_t>()[i]) : r[0]->as<float>()[i];
          LowerCtx ctx(g, *n);
          ctx.cubeRows = rows;
          EXPECT_EQ(OpRegistry::instance().find("Conv")->lower(ctx).params[CV_OCM] != 0, ocm != 0);
        }
        expectClose(outs[1].data(), outs[0], half ? 2e-3 : 2e-5, "channel-major vs pixel-major");
      }
  }
}
