// The bfloat16 dot-product tiles (kernels/lib/cube_ukbf.h, TargetProfile::bf16Dot): MatMul with
// bfloat16 A and B on the 6x64 pair tiles (GM_BF16DP), run with vdpbf16ps where the host has
// AVX512-BF16 and as float32 FMAs everywhere, against float64 references on the bfloat16 values.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/unit/cube_test_util.h"

namespace atc {
namespace {

using cubetest::expectClose;
using cubetest::randTensor;

std::shared_ptr<Tensor> toBf16(const Tensor& t) {
  auto r = std::make_shared<Tensor>(TensorType(DType::BF16, t.type.shape));
  for (int64_t i = 0; i < t.type.numel(); ++i) r->as<uint16_t>()[i] = floatToBf16(t.as<float>()[i]);
  return r;
}

// AMX-BF16 and the permission to use it (the kernels ask Linux for it themselves).
bool hostHasAmxBf16() {
#if defined(__x86_64__)
  unsigned a, b, c, d;
  __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(7), "c"(0));
  return (d >> 22 & 1) && (d >> 24 & 1);
#else
  return false;
#endif
}

bool hostHasBf16Dot() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx512bf16");
#else
  return false;
#endif
}

// A 2-D conv case's bfloat16 (or float16) X and W and float32 bias (seeds taken from `seed` in that
// order), its output sizes and the float64 reference on the rounded values.
struct Bf16Conv {
  Shape xs;
  std::shared_ptr<Tensor> xt, wt, bt;
  std::vector<int64_t> out;
  std::vector<float> want;
};

std::shared_ptr<Tensor> toF16(const Tensor& t) {
  auto r = std::make_shared<Tensor>(TensorType(DType::F16, t.type.shape));
  for (int64_t i = 0; i < t.type.numel(); ++i) r->as<uint16_t>()[i] = floatToHalf(t.as<float>()[i]);
  return r;
}

Bf16Conv bf16Conv(const cubetest::ConvCase& cc, uint32_t& seed, DType dt = DType::BF16) {
  Bf16Conv d;
  d.xs = {cc.N, cc.C};
  Shape wsh = {cc.OC, cc.C / cc.G};
  d.xs.insert(d.xs.end(), cc.in.begin(), cc.in.end());
  wsh.insert(wsh.end(), cc.k.begin(), cc.k.end());
  const bool h = dt == DType::F16;
  d.xt = h ? toF16(*randTensor(d.xs, seed++)) : toBf16(*randTensor(d.xs, seed++));
  d.wt = h ? toF16(*randTensor(wsh, seed++)) : toBf16(*randTensor(wsh, seed++));
  d.bt = randTensor({cc.OC}, seed++);
  std::vector<float> xf(d.xt->type.numel()), wf(d.wt->type.numel());
  auto val = [h](uint16_t v) { return h ? halfToFloat(v) : bf16ToFloat(v); };
  for (size_t i = 0; i < xf.size(); ++i) xf[i] = val(d.xt->as<uint16_t>()[i]);
  for (size_t i = 0; i < wf.size(); ++i) wf[i] = val(d.wt->as<uint16_t>()[i]);
  std::vector<int64_t> pb = {cc.pads[0], cc.pads[1]};
  d.out.assign(2, 0);
  for (int i = 0; i < 2; ++i)
    d.out[i] = (cc.in[i] + cc.pads[i] + cc.pads[i + 2] - (cc.k[i] - 1) * cc.d[i] - 1) / cc.s[i] + 1;
  d.want = cubetest::refConv(cc, xf.data(), wf.data(), cc.bias ? d.bt->as<float>() : nullptr, d.out, pb);
  return d;
}

// Ragged rows and columns, K even (A's pairs read in place) and odd (pairs copied, the last one
// padded), K blocks (600 > 256), batches folded into M with odd row offsets, a bias with ReLU,
// a residual, float32 and bfloat16 Y.
TEST(Bf16Dot, MatMulPairTiles) {
  struct C { Shape a; int64_t N; bool bias, relu, res, bf16Y; };
  const C cases[] = {{{37, 600}, 200, true, true, false, false},
                     {{100, 768}, 192, true, false, false, true},
                     {{48, 64}, 64, false, false, false, false},
                     {{6, 16}, 64, false, false, false, true},
                     {{50, 129}, 130, true, false, true, false},
                     {{2, 3, 17, 19}, 70, false, true, false, true},
                     {{3, 5, 7}, 64, true, false, false, false},
                     // K blocks of 174, 174, 172: the AMX tail (K pairs % 16) changes between
                     // K blocks, so the tiles' configuration is reloaded inside one task
                     // (cube_amx_config); with 48 rows the row count never forces a reload,
                     // with 40 the ragged last tile does between panels
                     {{48, 520}, 130, false, false, false, false},
                     {{40, 520}, 130, true, false, false, false}};
  uint32_t seed = 900;
  if (!hostHasBf16Dot()) std::printf("[   INFO   ] host without AVX512-BF16: the float32 form only\n");
  if (!hostHasAmxBf16()) std::printf("[   INFO   ] host without AMX-BF16: the AMX flag runs the vector tiles\n");
  for (const C& cc : cases) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const int64_t K = cc.a.back(), N = cc.N;
    int64_t M = 1;
    for (size_t i = 0; i + 1 < cc.a.size(); ++i) M *= cc.a[i];
    auto at = toBf16(*randTensor(cc.a, seed++)), bt = toBf16(*randTensor({K, N}, seed++));
    auto ct = randTensor({N}, seed++);
    Shape ys = cc.a;
    ys.back() = N;
    auto rt = randTensor(ys, seed++);
    const std::vector<float> want = cubetest::refGemm(
        M, N, K, [&](int64_t m, int64_t k) { return bf16ToFloat(at->as<uint16_t>()[m * K + k]); },
        [&](int64_t k, int64_t j) { return bf16ToFloat(bt->as<uint16_t>()[k * N + j]); },
        cc.bias ? ct->as<float>() : nullptr, cc.res ? rt->as<float>() : nullptr, cc.relu);
    Graph g;
    std::vector<Value*> ins = {g.newValue("a", TensorType(DType::BF16, cc.a)), g.newConstant("b", bt)};
    ins.push_back(cc.bias ? g.newConstant("c", ct) : nullptr);
    if (cc.res) ins.push_back(g.newValue("r", TensorType(DType::F32, ys)));
    Node* n = g.addNode("MatMul", "mm", ins, {g.newValue("y")});
    if (cc.relu) n->attrs["_epi_act"] = int64_t(1);
    if (cc.res) n->attrs["_epi_res"] = int64_t(3);
    n->attrs["_out_dtype"] = (int64_t)(cc.bf16Y ? DType::BF16 : DType::F32);
    inferNode(g, *n);
    // Without the target's bfloat16 dot products: the float32-converting 6x64 tiles.
    {
      Graph g2;
      std::vector<Value*> ins2 = {g2.newValue("a", TensorType(DType::BF16, cc.a)), g2.newConstant("b", bt)};
      Node* n2 = g2.addNode("MatMul", "mm", ins2, {g2.newValue("y")});
      inferNode(g2, *n2);
      LowerCtx ctx2(g2, *n2);
      ctx2.cubeRows = 16;
      EXPECT_EQ(OpRegistry::instance().find("MatMul")->lower(ctx2).params[GM_BF16DP], 0);
    }
    LowerCtx ctx(g, *n);
    ctx.cubeRows = 16;
    ctx.bf16Dot = true;
    KernelCall call = OpRegistry::instance().find("MatMul")->lower(ctx);
    ASSERT_EQ(call.params[GM_WIDE], 1);
    ASSERT_EQ(call.params[GM_BF16DP], 1);
    ASSERT_EQ(n->inputs[1]->type.dtype, DType::BF16);  // packed as bfloat16 pairs
    {  // an AMX target: the same packing, flag 3
      Graph g3;
      std::vector<Value*> ins3 = {g3.newValue("a", TensorType(DType::BF16, cc.a)), g3.newConstant("b", bt)};
      Node* n3 = g3.addNode("MatMul", "mm", ins3, {g3.newValue("y")});
      inferNode(g3, *n3);
      LowerCtx ctx3(g3, *n3);
      ctx3.cubeRows = 16;
      ctx3.bf16Dot = ctx3.bf16Amx = true;
      KernelCall c3 = OpRegistry::instance().find("MatMul")->lower(ctx3);
      EXPECT_EQ(c3.params[GM_BF16DP], 3);
      EXPECT_EQ(n3->inputs[1]->constant->data, n->inputs[1]->constant->data);
    }
    for (int64_t flag : {int64_t(1), int64_t(2), int64_t(3)}) {
      SCOPED_TRACE(flag == 1 ? "vdpbf16ps (where the host has it)" : flag == 2 ? "float32 form" : "AMX tiles (where the host has them)");
      std::vector<int64_t> P = call.params;
      P[GM_BF16DP] = flag;
      std::vector<uint8_t> y(M * N * (cc.bf16Y ? 2 : 4));
      std::vector<uint8_t> ws(call.workspaceBytes + 64);
      std::vector<void*> bufs = {at->data.data(), const_cast<uint8_t*>(n->inputs[1]->constant->data.data()),
                                 cc.bias ? ct->data.data() : nullptr};
      if (cc.res) bufs.push_back(rt->data.data());
      bufs.push_back(y.data());
      bufs.push_back(ws.data());
      ASSERT_EQ((int64_t)bufs.size() - 2, P[GM_YIDX]);
      runNativeKernel(*findNativeKernel("gemm"), P.data(), bufs.data());
      std::vector<float> got(M * N);
      for (int64_t i = 0; i < M * N; ++i)
        got[i] = cc.bf16Y ? bf16ToFloat(((uint16_t*)y.data())[i]) : ((float*)y.data())[i];
      expectClose(got.data(), want, cc.bf16Y ? 8e-3 : 1e-4, "bfloat16 pair tiles");
    }
  }
}

// Conv on the channel-major pair tiles (CV_BF16DP): the band (3x3 pad 1, stride 2, dilation 2,
// an odd channel count whose last pair is padded, groups) and 1x1 convs (unit stride and strided,
// K blocks of pair rows: 300 channels = 150 pairs > 128), float32 and bfloat16 Y, 64- and
// 32-channel panels.
TEST(Bf16Dot, ConvPairTiles) {
  using cubetest::ConvCase;
  struct C { ConvCase cc; bool bf16Y; };
  const C cases[] = {
      {{1, 5, 70, 1, {9, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, false},
      {{1, 64, 64, 1, {14, 14}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, false}, true},
      {{2, 12, 40, 2, {8, 9}, {3, 3}, {1, 1}, {2, 2}, {2, 2, 2, 2}, true}, false},
      {{1, 300, 96, 1, {7, 7}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, true}, true},
      {{1, 33, 128, 1, {9, 9}, {1, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0}, false}, false},
      {{1, 128, 32, 1, {14, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, false}};
  uint32_t seed = 950;
  for (const C& c : cases) {
    const ConvCase& cc = c.cc;
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Bf16Conv d = bf16Conv(cc, seed);
    Graph g;
    std::vector<Value*> ins = {g.newValue("x", TensorType(DType::BF16, d.xs)), g.newConstant("w", d.wt)};
    if (cc.bias) ins.push_back(g.newConstant("b", d.bt));
    Node* n = g.addNode("Conv", "conv", ins, {g.newValue("y")});
    cubetest::setConvAttrs(n, cc);
    n->attrs["_out_dtype"] = (int64_t)(c.bf16Y ? DType::BF16 : DType::F32);
    inferNode(g, *n);
    LowerCtx ctx(g, *n);
    ctx.cubeRows = 16;
    ctx.bf16Dot = true;
    KernelCall call = OpRegistry::instance().find("Conv")->lower(ctx);
    ASSERT_EQ(call.kernel, "conv");
    ASSERT_NE(call.params[CV_OCM], 0);
    ASSERT_EQ(call.params[CV_BF16DP], 1);
    for (int64_t flag : {int64_t(1), int64_t(2)}) {
      SCOPED_TRACE(flag == 1 ? "vdpbf16ps (where the host has it)" : "float32 form");
      std::vector<int64_t> P = call.params;
      P[CV_BF16DP] = flag;
      const int64_t ny = (int64_t)d.want.size();
      std::vector<uint8_t> y(ny * (c.bf16Y ? 2 : 4));
      std::vector<uint8_t> ws(call.workspaceBytes + 64);
      std::vector<void*> bufs = {d.xt->data.data(), const_cast<uint8_t*>(n->inputs[1]->constant->data.data())};
      if (cc.bias) bufs.push_back(d.bt->data.data());
      bufs.push_back(y.data());
      bufs.push_back(ws.data());
      runNativeKernel(*findNativeKernel("conv"), P.data(), bufs.data());
      std::vector<float> got(ny);
      for (int64_t i = 0; i < ny; ++i)
        got[i] = c.bf16Y ? bf16ToFloat(((uint16_t*)y.data())[i]) : ((float*)y.data())[i];
      expectClose(got.data(), d.want, c.bf16Y ? 8e-3 : 1e-4, "conv pair tiles");
    }
  }
}

// Conv on AMX tiles (CV_AMX, kernels/lib/conv_amx.h): 3x3 band convs (ragged output channels;
// stride 2 with 20 channel pairs padded to 32 by zero planes; groups with dilation 2, odd input
// channels; a residual with ReLU), 1x1 convs (unit stride with 150 pairs, several pixel blocks,
// strided with an odd channel count), im2col pairs for 3-channel stems (3x3, and 7x7 stride 2
// with 74 pairs), float32 and bfloat16 Y. Flag 1 runs tdpbf16ps where the host has AMX-BF16, flag
// 2 the same sums in plain code; 8 output channels keep the vector tiles. Every case runs on
// bfloat16 X and W and on float16 ones (the split form, conv_amx_split.h: two bfloat16 parts per
// value), the latter against the float16 values' float64 sums within 1e-4: without either part,
// or with a product missing, the sums would be off by float16-to-bfloat16 roundings (about 1e-2).
struct AmxConvCase {
  cubetest::ConvCase cc;
  bool lowY, res;
  int form;
};

void runAmxConvCase(const AmxConvCase& c, DType dt, uint32_t& seed) {
  const cubetest::ConvCase& cc = c.cc;
  SCOPED_TRACE(std::string(dtypeName(dt)) + " seed " + std::to_string(seed));
  const Bf16Conv d = bf16Conv(cc, seed, dt);
  std::vector<float> want = d.want;
  const Shape ys = {cc.N, cc.OC, d.out[0], d.out[1]};
  auto rt = randTensor(ys, seed++);
  if (c.res)
    for (size_t i = 0; i < want.size(); ++i) want[i] = std::max(0.0f, want[i] + rt->as<float>()[i]);
  Graph g;
  std::vector<Value*> ins = {g.newValue("x", TensorType(dt, d.xs)), g.newConstant("w", d.wt)};
  ins.push_back(cc.bias ? g.newConstant("b", d.bt) : nullptr);
  if (c.res) ins.push_back(g.newValue("r", TensorType(DType::F32, ys)));
  Node* n = g.addNode("Conv", "conv", ins, {g.newValue("y")});
  cubetest::setConvAttrs(n, cc);
  if (c.res) {
    n->attrs["_epi_act"] = int64_t(1);
    n->attrs["_epi_res"] = int64_t(3);
  }
  n->attrs["_out_dtype"] = (int64_t)(c.lowY ? dt : DType::F32);
  inferNode(g, *n);
  LowerCtx ctx(g, *n);
  ctx.cubeRows = 16;
  ctx.bf16Dot = ctx.bf16Amx = true;
  KernelCall call = OpRegistry::instance().find("Conv")->lower(ctx);
  ASSERT_EQ(call.kernel, "conv");
  ASSERT_EQ(call.params[CV_AMX], c.form ? 1 : 0);
  ASSERT_EQ(call.params[CV_AMX_COL] != 0, c.form == 2);
  if (c.form) ASSERT_EQ(call.params[CV_AMX_PARTS], dt == DType::F16 ? 2 : 1);
  const double tol = c.lowY ? (dt == DType::F16 ? 1e-3 : 8e-3) : 1e-4;
  for (int64_t flag : {int64_t(1), int64_t(2)}) {
    SCOPED_TRACE(flag == 1 ? "AMX tiles (where the host has them)" : "plain sums");
    std::vector<int64_t> P = call.params;
    if (c.form) P[CV_AMX] = flag;
    const int64_t ny = (int64_t)want.size();
    std::vector<uint8_t> y(ny * (c.lowY ? 2 : 4));
    std::vector<uint8_t> ws(call.workspaceBytes + 64, 0xff);  // NaN garbage: dropped lanes must stay dropped
    std::vector<void*> bufs = {d.xt->data.data(), const_cast<uint8_t*>(n->inputs[1]->constant->data.data()),
                               cc.bias ? d.bt->data.data() : nullptr};
    if (c.res) bufs.push_back(rt->data.data());
    bufs.push_back(y.data());
    bufs.push_back(ws.data());
    ASSERT_EQ((int64_t)bufs.size() - 2, P[CV_YIDX]);
    // One task per call, then all tasks as one range (tasks that share a pixel block fill its
    // band once; the next block's task fills again) and as two ranges.
    const NativeKernel& kern = *findNativeKernel("conv");
    const int64_t nt = kern.ntasks(P.data());
    for (int ranges : {0, 1, 2}) {
      SCOPED_TRACE("ranges " + std::to_string(ranges));
      std::fill(y.begin(), y.end(), 0);
      if (ranges == 0) runNativeKernel(kern, P.data(), bufs.data());
      for (int r = 0; r < ranges; ++r) kern.task(P.data(), bufs.data(), nt * r / ranges, nt * (r + 1) / ranges);
      std::vector<float> got(ny);
      for (int64_t i = 0; i < ny; ++i) {
        const uint16_t v = ((uint16_t*)y.data())[i];
        got[i] = !c.lowY ? ((float*)y.data())[i] : dt == DType::F16 ? halfToFloat(v) : bf16ToFloat(v);
      }
      expectClose(got.data(), want, tol, "conv AMX tiles");
    }
  }
}

TEST(Bf16Dot, ConvAmxTiles) {
  const AmxConvCase cases[] = {
      {{1, 64, 70, 1, {9, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, false, false, 1},
      {{1, 40, 32, 1, {14, 14}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, false}, true, false, 1},
      {{2, 46, 64, 2, {8, 9}, {3, 3}, {1, 1}, {2, 2}, {2, 2, 2, 2}, true}, false, false, 1},
      {{1, 64, 48, 1, {12, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, false, true, 1},
      {{1, 300, 96, 1, {7, 7}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, true}, true, false, 1},
      {{1, 32, 40, 1, {40, 40}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false}, false, true, 1},
      {{1, 33, 128, 1, {9, 9}, {1, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0}, true}, false, false, 1},
      {{1, 3, 32, 1, {16, 16}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, false, false, 2},
      {{2, 3, 40, 1, {29, 30}, {7, 7}, {2, 2}, {1, 1}, {3, 3, 3, 3}, true}, true, true, 2},
      {{1, 6, 24, 2, {10, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, false}, false, false, 0}};
  uint32_t seed = 980;
  if (!hostHasAmxBf16()) std::printf("[   INFO   ] host without AMX-BF16: flag 1 runs the plain sums too\n");
  for (DType dt : {DType::BF16, DType::F16})
    for (const AmxConvCase& c : cases) runAmxConvCase(c, dt, seed);
}

// Implementation mode high_precision keeps a float16 conv off the split form (float32 FMAs on the
// float16 values); bfloat16 convs stay on the tiles.
TEST(Bf16Dot, ConvAmxSplitHighPrecision) {
  const cubetest::ConvCase cc = {1, 64, 64, 1, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true};
  uint32_t seed = 1200;
  for (DType dt : {DType::F16, DType::BF16}) {
    const Bf16Conv d = bf16Conv(cc, seed, dt);
    Graph g;
    Node* n = g.addNode("Conv", "conv", {g.newValue("x", TensorType(dt, d.xs)), g.newConstant("w", d.wt)},
                        {g.newValue("y")});
    cubetest::setConvAttrs(n, cc);
    n->attrs["_impl_mode"] = std::string("high_precision");
    inferNode(g, *n);
    LowerCtx ctx(g, *n);
    ctx.cubeRows = 16;
    ctx.bf16Dot = ctx.bf16Amx = true;
    KernelCall call = OpRegistry::instance().find("Conv")->lower(ctx);
    EXPECT_EQ(call.params[CV_AMX], dt == DType::BF16 ? 1 : 0) << dtypeName(dt);
  }
}

}  // namespace
}  // namespace atc
