// The cube microkernel families (kernels/lib/cube_gemm.h) compiled through LLVM for the target
// profiles that select them: x86-64-v3 (6 rows, 256-bit) and x86-64-v4 (16 rows, 512-bit).
// Each family's specialised conv and gemm kernels run here when the host can execute them
// (skipped, with the reason, when it cannot) and must match the native kernel library.
// The native runs of both families on any host are in kernels_cube_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>

#include "ir/op_registry.h"
#include "kernels/codegen/codegen.h"
#include "kernels/codegen/host_cpu.h"
#include "kernels/lib/cube_params.h"
#include "ops/native_eval.h"
#include "runtime/atc_rt_abi.h"
#include "runtime/so_loader.h"
#include "runtime/thread_pool.h"
#include "support/diagnostics.h"

using namespace atc;

namespace {

std::shared_ptr<Tensor> randT(const Shape& s, uint32_t seed) {
  auto t = std::make_shared<Tensor>(TensorType(DType::F32, s));
  std::mt19937 r(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int64_t i = 0; i < t->type.numel(); ++i) t->as<float>()[i] = u(r);
  return t;
}

bool hostRuns(const char* soc, std::string* why) {
  __builtin_cpu_init();
  if (std::string(soc) == "x86-64-v4" && !__builtin_cpu_supports("avx512f")) {
    *why = "this CPU lacks AVX-512F: the 16-row (512-bit) family was compiled, not run";
    return false;
  }
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    *why = "this CPU lacks AVX2/FMA";
    return false;
  }
  return true;
}

// Lowers node n of g for `soc` (the lowering packs its constant operands for that family),
// compiles the kernel with LLVM, runs it with 2 threads and compares with `want`.
// Inputs that are not constants read their data from `raw` (by input index).
void compileRunCompare(const char* soc, Graph& g, Node& n, const std::vector<float>& want,
                       const std::vector<void*>& raw = {}) {
  TargetProfile t = loadHostTargetProfile(soc);
  LowerCtx ctx(g, n);
  ctx.cubeRows = t.cubeRows();
  KernelCall call = OpRegistry::instance().find(n.type)->lower(ctx);
  const int64_t mr = call.kernel == "gemm" ? call.params[GM_MR] : call.params[CV_MR];
  EXPECT_EQ(mr, std::string(soc) == "x86-64-v4" ? 16 : 6) << soc;
  std::vector<uint8_t> so = compileKernels(t, {{call.kernel, call.params, "k0"}}, CodegenOptions());
  std::string why;
  if (!hostRuns(soc, &why)) GTEST_SKIP() << soc << ": " << why;
  rt::SharedObject obj(so.data(), so.size());
  auto fn = (AtcKernelEntry)obj.symbol("k0");
  std::vector<float> y(want.size(), NAN);
  std::vector<uint8_t> ws((size_t)call.workspaceBytes + 64);
  std::vector<void*> bufs;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    Value* in = n.inputs[i];
    bufs.push_back(!in ? nullptr : in->isConstant() ? (void*)in->constant->data.data() : raw.at(i));
  }
  bufs.push_back(y.data());
  bufs.push_back(ws.data());
  rt::ThreadPool pool(2);
  fn(bufs.data(), pool.rt());
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i)
    worst = std::max(worst, (double)std::fabs(y[i] - want[i]) / (1.0 + std::fabs(want[i])));
  EXPECT_LT(worst, 1e-4) << soc << " " << n.type;
}

// A conv (band path or im2col, by its shape) on `soc`, against the native 6-row kernels.
void convOn(const char* soc, Shape xs, Shape ws, std::vector<int64_t> strides, std::vector<int64_t> pads,
            bool bias, uint32_t seed) {
  SCOPED_TRACE(soc);
  auto make = [&](Graph& g) {
    std::vector<Value*> ins = {g.newConstant("x", randT(xs, seed)), g.newConstant("w", randT(ws, seed + 1))};
    if (bias) ins.push_back(g.newConstant("b", randT({ws[0]}, seed + 2)));
    Node* n = g.addNode("Conv", "conv", ins, {g.newValue("y")});
    n->attrs["strides"] = strides;
    n->attrs["pads"] = pads;
    inferNode(g, *n);
    return n;
  };
  Graph gr;
  Node* nr = make(gr);
  auto ref = evalNodeNative(gr, *nr);
  std::vector<float> want(ref[0]->as<float>(), ref[0]->as<float>() + ref[0]->type.numel());
  // Both the pixel-major and the channel-major path (ATC_CONV_OCM: 0 never, 1 wherever it applies).
  for (const char* ocm : {"0", "1"}) {
    SCOPED_TRACE(std::string("ATC_CONV_OCM=") + ocm);
    setenv("ATC_CONV_OCM", ocm, 1);
    Graph gt;
    compileRunCompare(soc, gt, *make(gt), want);
    unsetenv("ATC_CONV_OCM");
  }
}

// MatMul with constant operands (A and B packed at compile time) and with A an activation
// (read in place by the microkernel, a ragged last panel packed at run time).
void matmulOn(const char* soc, int64_t M, int64_t K, int64_t N, uint32_t seed) {
  SCOPED_TRACE(soc);
  auto at = randT({M, K}, seed), bt = randT({K, N}, seed + 1);
  Graph gr;
  Node* nr = gr.addNode("MatMul", "mm", {gr.newConstant("a", at), gr.newConstant("b", bt)}, {gr.newValue("y")});
  inferNode(gr, *nr);
  auto ref = evalNodeNative(gr, *nr);
  std::vector<float> want(ref[0]->as<float>(), ref[0]->as<float>() + ref[0]->type.numel());
  for (bool constA : {true, false}) {
    Graph g;
    Value* a = constA ? g.newConstant("a", std::make_shared<Tensor>(*at)) : g.newValue("a", at->type);
    Node* n = g.addNode("MatMul", "mm", {a, g.newConstant("b", std::make_shared<Tensor>(*bt))}, {g.newValue("y")});
    inferNode(g, *n);
    compileRunCompare(soc, g, *n, want, {at->data.data(), nullptr});
  }
}

}  // namespace

TEST(CubeIsa, ConvBandStride1) {
  for (const char* soc : {"x86-64-v3", "x86-64-v4"})
    convOn(soc, {1, 24, 20, 19}, {40, 24, 3, 3}, {1, 1}, {1, 1, 1, 1}, true, 1);
}

TEST(CubeIsa, ConvBandStrided) {
  for (const char* soc : {"x86-64-v3", "x86-64-v4"})
    convOn(soc, {1, 3, 33, 35}, {21, 3, 7, 7}, {2, 2}, {3, 3, 3, 3}, false, 2);
}

TEST(CubeIsa, ConvIm2col1x1KBlocked) {
  for (const char* soc : {"x86-64-v3", "x86-64-v4"})
    convOn(soc, {1, 600, 7, 7}, {70, 600, 1, 1}, {1, 1}, {0, 0, 0, 0}, true, 3);
}

TEST(CubeIsa, MatMulRaggedAndBlocked) {
  for (const char* soc : {"x86-64-v3", "x86-64-v4"}) {
    matmulOn(soc, 37, 600, 53, 4);
    matmulOn(soc, 128, 64, 96, 5);
  }
}
