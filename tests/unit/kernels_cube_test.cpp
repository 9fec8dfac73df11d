// Correctness of the cube ops (Conv, ConvTranspose, MatMul, Gemm) through their native
// kernels (atc::evalNodeNative) against naive references computed here.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include "ops/native_eval.h"
#include "support/diagnostics.h"
#include "ir/op_registry.h"
#include "kernels/lib/cube_params.h"
#include "kernels/lib/native_registry.h"
#include "tests/unit/cube_test_util.h"

using namespace atc;
using namespace atc::cubetest;

namespace {

void runConvCase(const ConvCase& cc, uint32_t seed) {
  runConvCaseRows(cc, seed, 6);
  runConvCaseRows(cc, seed, 16);
}

}  // namespace

TEST(CubeConv, Conv2DBasic) {
  runConvCase({1, 3, 8, 1, {9, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, 1);
  runConvCase({2, 4, 7, 1, {10, 9}, {3, 2}, {2, 1}, {1, 1}, {0, 1, 2, 0}, false}, 2);
  runConvCase({1, 16, 20, 1, {13, 13}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, true}, 3);  // direct
  runConvCase({1, 5, 13, 1, {7, 7}, {5, 5}, {1, 1}, {2, 2}, {4, 4, 4, 4}, true}, 4);    // dilation
  runConvCase({3, 8, 6, 1, {6, 17}, {1, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0}, true}, 5);    // strided 1x1
}

TEST(CubeConv, Conv2DGroupsAndDepthwise) {
  runConvCase({2, 8, 12, 4, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, 10);
  runConvCase({1, 12, 12, 12, {15, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, 11);  // dw
  runConvCase({2, 7, 7, 7, {16, 33}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, false}, 12);     // dw s2
  runConvCase({1, 6, 6, 6, {12, 12}, {5, 5}, {1, 2}, {2, 1}, {4, 2, 3, 1}, true}, 13);      // dw dil
  runConvCase({1, 4, 8, 4, {8, 8}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, 14);        // mult 2
  // Planes taller than one 32 KB band of padded rows (the kernel works in row bands).
  runConvCase({1, 3, 3, 3, {130, 70}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, true}, 15);     // dw s2, 2 bands
  runConvCase({1, 2, 2, 2, {150, 300}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, 16);    // dw, 8 bands
  runConvCase({1, 2, 2, 2, {61, 90}, {5, 5}, {3, 3}, {2, 2}, {4, 0, 1, 3}, false}, 17);     // dw s3 dil 2
  // Rows narrower than 16 outputs (stored 16 lanes at a time into the rows after them): 7x7,
  // 3-wide, and a stride-2 conv down to 7x7, over many planes.
  runConvCase({1, 40, 40, 40, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, 18);
  runConvCase({2, 24, 24, 24, {5, 3}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, false}, 19);
  runConvCase({1, 16, 16, 16, {13, 13}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, true}, 23);
}

TEST(CubeConv, Conv1DAnd3D) {
  runConvCase({2, 3, 5, 1, {30}, {4}, {2}, {1}, {1, 2}, true}, 20);
  runConvCase({1, 6, 6, 6, {40}, {3}, {1}, {3}, {3, 3}, true}, 21);  // depthwise 1-D
  runConvCase({1, 2, 4, 1, {5, 6, 7}, {3, 2, 3}, {1, 2, 1}, {1, 1, 2}, {1, 0, 2, 1, 1, 0}, true}, 22);
}

TEST(CubeConv, AutoPad) {
  runConvCase({1, 3, 4, 1, {10, 11}, {3, 4}, {2, 3}, {1, 1}, {}, true, "SAME_UPPER"}, 30);
  runConvCase({1, 3, 4, 1, {10, 11}, {3, 4}, {2, 3}, {1, 1}, {}, true, "SAME_LOWER"}, 31);
  runConvCase({1, 3, 4, 1, {10, 11}, {3, 4}, {2, 3}, {1, 1}, {}, false, "VALID"}, 32);
}

TEST(CubeConv, LargeBlocked) {
  // K > 512 (K blocking), many pixels (pixel blocks), M not a multiple of 6, batch 2.
  runConvCase({2, 70, 35, 1, {20, 21}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, 40);
  runConvCase({1, 128, 130, 1, {7, 7}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, 41);
  runConvCase({1, 600, 20, 1, {9, 9}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}, false}, 42);
}

// Stride-1 1-D/2-D convs take the band path (CV_BAND: no im2col); cover its row blocking,
// asymmetric and large pads, dilations, groups, K blocking, batches and the lowering's choice.
TEST(CubeConv, BandPath) {
  runConvCase({1, 16, 24, 1, {56, 56}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, 50);   // many row blocks
  runConvCase({2, 9, 13, 1, {11, 17}, {3, 5}, {1, 1}, {1, 1}, {0, 2, 2, 1}, false}, 51);   // asymmetric pads
  runConvCase({1, 4, 7, 1, {6, 5}, {3, 3}, {1, 1}, {1, 1}, {3, 0, 1, 4}, true}, 52);       // pads > kernel/2
  runConvCase({1, 6, 8, 1, {19, 23}, {3, 3}, {1, 1}, {3, 2}, {3, 2, 3, 2}, true}, 53);     // dilations
  runConvCase({2, 32, 48, 4, {14, 14}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, 54);   // groups
  runConvCase({1, 80, 18, 1, {9, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, 55);    // K = 720 > 512
  runConvCase({1, 3, 5, 1, {1, 40}, {1, 7}, {1, 1}, {1, 1}, {0, 3, 0, 3}, true}, 56);      // 1 x 7
  runConvCase({1, 3, 5, 1, {33}, {5}, {1}, {1}, {2, 2}, true}, 57);                        // 1-D
  runConvCase({1, 2, 3, 1, {1, 1}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, true}, 58);       // 1x1 image
  Graph g;
  auto xt = randTensor({1, 8, 10, 10}, 1), wt = randTensor({8, 8, 3, 3}, 2);
  Value* y = g.newValue("y");
  Node* n = g.addNode("Conv", "conv", {g.newConstant("x", xt), g.newConstant("w", wt)}, {y});
  n->attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
  inferNode(g, *n);
  LowerCtx ctx(g, *n);
  KernelCall call = OpRegistry::instance().find("Conv")->lower(ctx);
  EXPECT_EQ(call.params[CV_BAND], 1);
  n->attrs["strides"] = std::vector<int64_t>{2, 2};  // strided 3x3: the band too (phase planes)
  inferNode(g, *n);
  LowerCtx ctx2(g, *n);
  KernelCall call2 = OpRegistry::instance().find("Conv")->lower(ctx2);
  EXPECT_EQ(call2.params[CV_BAND], 1);
  EXPECT_EQ(call2.params[CV_PQ], 5 + 1);  // OW + (KW-1)*DW/SW: the grid's row pitch
  Node* n1 = g.addNode("Conv", "conv1x1", {g.newConstant("x1", xt), g.newConstant("w1", randTensor({8, 8, 1, 1}, 3))},
                       {g.newValue("y1")});
  n1->attrs["strides"] = std::vector<int64_t>{2, 2};  // strided 1x1: im2col
  inferNode(g, *n1);
  LowerCtx ctx1(g, *n1);
  EXPECT_EQ(OpRegistry::instance().find("Conv")->lower(ctx1).params[CV_BAND], 0);
  // A band that could pass 2^30 floats (its row offsets are int32) takes im2col.
  Graph g3;
  Value* xb = g3.newValue("x", TensorType(DType::F32, {1, 64, 8192, 8192}));
  Node* nb = g3.addNode("Conv", "conv", {xb, g3.newConstant("w", randTensor({4, 64, 3, 3}, 5))}, {g3.newValue("y")});
  nb->attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
  inferNode(g3, *nb);
  LowerCtx ctx3(g3, *nb);
  EXPECT_EQ(OpRegistry::instance().find("Conv")->lower(ctx3).params[CV_BAND], 0);
}

// Strided convs with a window wider than 1x1 take the band as stride phase planes (tiles span
// output rows); strided 1x1 convs keep im2col.
TEST(CubeConv, BandPathStrided) {
  runConvCase({1, 3, 16, 1, {45, 47}, {7, 7}, {2, 2}, {1, 1}, {3, 3, 3, 3}, true}, 60);    // stem 7x7 s2
  runConvCase({2, 24, 20, 1, {14, 15}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, true}, 61);   // 3x3 s2
  runConvCase({1, 5, 7, 1, {17, 19}, {3, 2}, {3, 2}, {2, 1}, {2, 0, 1, 3}, false}, 62);    // s3x2, dil, pads
  runConvCase({1, 6, 9, 1, {20, 9}, {3, 3}, {2, 1}, {1, 1}, {1, 1, 1, 1}, true}, 63);      // stride (2, 1)
  runConvCase({1, 4, 5, 1, {9, 30}, {1, 3}, {1, 3}, {1, 1}, {0, 1, 0, 1}, true}, 64);      // stride (1, 3)
  runConvCase({1, 40, 30, 2, {12, 12}, {3, 3}, {2, 2}, {1, 1}, {0, 0, 1, 1}, true}, 65);   // groups
  runConvCase({1, 3, 4, 1, {41}, {5}, {4}, {1}, {2, 1}, true}, 66);                        // 1-D s4
  runConvCase({1, 130, 40, 1, {9, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, true}, 67);    // K blocks
}

TEST(CubeConv, RejectsBadShapes) {
  Graph g;
  Value* x = g.newValue("x", TensorType(DType::F32, {1, 3, 8, 8}));
  Value* w = g.newValue("w", TensorType(DType::F32, {4, 2, 3, 3}));
  Node* n = g.addNode("Conv", "c", {x, w}, {g.newValue("y")});
  EXPECT_THROW(inferNode(g, *n), AtcError);
}

// Native timing (not the LLVM-specialised code): --gtest_also_run_disabled_tests.
TEST(CubeConv, DISABLED_BenchResNetConv) {
  Graph g;
  auto xt = randTensor({1, 128, 28, 28}, 1), wt = randTensor({128, 128, 3, 3}, 2),
       bt = randTensor({128}, 3);
  Node* n = g.addNode("Conv", "c", {g.newConstant("x", xt), g.newConstant("w", wt), g.newConstant("b", bt)},
                      {g.newValue("y")});
  n->attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
  inferNode(g, *n);
  evalNodeNative(g, *n);
  auto t0 = std::chrono::steady_clock::now();
  int iters = 20;
  for (int i = 0; i < iters; ++i) evalNodeNative(g, *n);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / iters;
  double flops = 2.0 * 128 * 128 * 9 * 28 * 28;
  std::printf("conv 128x128x3x3 @28x28: %.3f ms, %.1f GFLOP/s (1 thread, native build)\n", s * 1e3,
              flops / s * 1e-9);
}

// ---- MatMul / Gemm ----------------------------------------------------------------------
namespace {

// Runs the node natively (constant operands get packed), then again with the lowering's
// params but raw (unpacked) operands. Compares both with `want`.
// Both microkernel families (6 and 16 rows) run, packed and raw.
void runGemmNode(Graph& g, Node* n, const std::vector<std::shared_ptr<Tensor>>& ins,
                 const std::vector<float>& want, double alpha) {
  inferNode(g, *n);
  Node copy = *n;  // attributes and inputs before lowering
  auto r = evalNodeNative(g, *n);
  expectClose(r[0]->as<float>(), want, 1e-4, (n->type + " (packed)").c_str());
  for (int rows : {6, 16}) {
  SCOPED_TRACE("microkernel rows " + std::to_string(rows));
  auto fresh = [&](Graph& gx) {
    std::vector<Value*> vins;
    for (size_t i = 0; i < ins.size(); ++i)
      vins.push_back(ins[i] ? gx.newConstant("i" + std::to_string(i), ins[i]) : nullptr);
    Node* nx = gx.addNode(n->type, "n2", vins, {gx.newValue("y")});
    nx->attrs = copy.attrs;
    inferNode(gx, *nx);
    return nx;
  };
  if (rows != 6) {
    Graph g16;
    Node* n16 = fresh(g16);
    auto r16 = evalNodeNative(g16, *n16, rows);
    expectClose(r16[0]->as<float>(), want, 1e-4, (n->type + " (packed)").c_str());
  }
  Graph g2;
  Node* n2 = fresh(g2);
  LowerCtx ctx(g2, *n2);
  ctx.cubeRows = rows;
  KernelCall call = OpRegistry::instance().find(n->type)->lower(ctx);
  // Products of at most 6 rows take the 6-row family on every target (ops/cube/gemm_lowering.h).
  EXPECT_EQ(call.params[GM_MR], rows == 16 && call.params[GM_M] > 6 ? 16 : 6);
  call.params[GM_A_PACKED] = 0;
  call.params[GM_B_PACKED] = 0;
  call.params[GM_ALPHA] = paramFromDouble(alpha);
  std::vector<float> y(want.size());
  std::vector<uint8_t> ws(call.workspaceBytes + 64);
  std::vector<void*> bufs;
  for (auto& t : ins) bufs.push_back(t ? t->data.data() : nullptr);
  bufs.push_back(y.data());
  bufs.push_back(ws.data());
  runNativeKernel(*findNativeKernel("gemm"), call.params.data(), bufs.data());
  expectClose(y.data(), want, 1e-4, (n->type + " (raw)").c_str());
  }
}

// numpy matmul reference (float64 accumulation).
std::vector<float> refMatMul(const Shape& as, const float* a, const Shape& bs, const float* b,
                             Shape* outShape) {
  Shape A = as, B = bs;
  bool av = A.size() == 1, bv = B.size() == 1;
  if (av) A.insert(A.begin(), 1);
  if (bv) B.push_back(1);
  int64_t M = A[A.size() - 2], K = A.back(), N = B.back();
  size_t r = std::max(A.size(), B.size()) - 2;
  Shape batch(r, 1), ab(r, 1), bb(r, 1);
  for (size_t i = 0; i + 2 < A.size(); ++i) ab[r - (A.size() - 2) + i] = A[i];
  for (size_t i = 0; i + 2 < B.size(); ++i) bb[r - (B.size() - 2) + i] = B[i];
  for (size_t i = 0; i < r; ++i) batch[i] = std::max(ab[i], bb[i]);
  int64_t nb = numel(batch);
  std::vector<float> y(nb * M * N);
  for (int64_t bi = 0; bi < nb; ++bi) {
    int64_t rem = bi, ao = 0, bo = 0, as_ = M * K, bs_ = K * N;
    for (int64_t i = (int64_t)r - 1; i >= 0; --i) {
      int64_t idx = rem % batch[i];
      rem /= batch[i];
      ao += (ab[i] == 1 ? 0 : idx) * as_;
      bo += (bb[i] == 1 ? 0 : idx) * bs_;
      as_ *= ab[i];
      bs_ *= bb[i];
    }
    for (int64_t m = 0; m < M; ++m)
      for (int64_t j = 0; j < N; ++j) {
        double acc = 0;
        for (int64_t k = 0; k < K; ++k) acc += (double)a[ao + m * K + k] * b[bo + k * N + j];
        y[(bi * M + m) * N + j] = (float)acc;
      }
  }
  *outShape = batch;
  if (!av) outShape->push_back(M);
  if (!bv) outShape->push_back(N);
  return y;
}

void runMatMul(const Shape& as, const Shape& bs, uint32_t seed) {
  Graph g;
  auto at = randTensor(as, seed), bt = randTensor(bs, seed + 7);
  Node* n = g.addNode("MatMul", "mm", {g.newConstant("a", at), g.newConstant("b", bt)}, {g.newValue("y")});
  Shape ys;
  auto want = refMatMul(as, at->as<float>(), bs, bt->as<float>(), &ys);
  inferNode(g, *n);
  ASSERT_EQ(n->outputs[0]->type.shape, ys);
  runGemmNode(g, n, {at, bt}, want, 1.0);
}

void runGemm(int64_t M, int64_t N, int64_t K, bool tA, bool tB, double alpha, double beta,
             const Shape* cShape, uint32_t seed) {
  Graph g;
  auto at = randTensor(tA ? Shape{K, M} : Shape{M, K}, seed);
  auto bt = randTensor(tB ? Shape{N, K} : Shape{K, N}, seed + 1);
  std::shared_ptr<Tensor> ct = cShape ? randTensor(*cShape, seed + 2) : nullptr;
  std::vector<Value*> ins = {g.newConstant("a", at), g.newConstant("b", bt)};
  if (ct) ins.push_back(g.newConstant("c", ct));
  Node* n = g.addNode("Gemm", "gemm", ins, {g.newValue("y")});
  n->attrs["transA"] = int64_t(tA);
  n->attrs["transB"] = int64_t(tB);
  n->attrs["alpha"] = alpha;
  n->attrs["beta"] = beta;
  std::vector<float> want(M * N);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t j = 0; j < N; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k)
        acc += (double)at->as<float>()[tA ? k * M + m : m * K + k] *
               bt->as<float>()[tB ? j * K + k : k * N + j];
      acc *= alpha;
      if (ct) {
        const Shape& cs = *cShape;
        int64_t ci = 0;
        if (cs.size() == 2) ci = (cs[0] == 1 ? 0 : m) * cs[1] + (cs[1] == 1 ? 0 : j);
        else if (cs.size() == 1) ci = cs[0] == 1 ? 0 : j;
        acc += beta * ct->as<float>()[ci];
      }
      want[m * N + j] = (float)acc;
    }
  std::vector<std::shared_ptr<Tensor>> tins = {at, bt};
  if (ct) tins.push_back(ct);
  runGemmNode(g, n, tins, want, alpha);
}

}  // namespace

TEST(CubeMatMul, TwoD) {
  runMatMul({1, 1}, {1, 1}, 1);
  runMatMul({7, 5}, {5, 9}, 2);
  runMatMul({64, 128}, {128, 96}, 3);
  runMatMul({37, 600}, {600, 53}, 4);  // K blocking, ragged edges
  runMatMul({200, 31}, {31, 300}, 5);  // several M and N blocks
}

TEST(CubeMatMul, BatchedAndBroadcast) {
  runMatMul({2, 3, 17, 19}, {19, 23}, 10);          // batch folded into M
  runMatMul({4, 9, 12}, {4, 12, 10}, 11);           // plain batch
  runMatMul({2, 1, 5, 8}, {3, 8, 6}, 12);           // broadcast both ways
  runMatMul({6, 20}, {3, 20, 18}, 13);              // A broadcast over B's batch
  runMatMul({1, 4, 33, 16}, {1, 4, 16, 33}, 14);    // attention-like
}

TEST(CubeMatMul, Vectors) {
  runMatMul({19}, {19, 21}, 20);
  runMatMul({3, 13, 19}, {19}, 21);
  runMatMul({19}, {19}, 22);
  runMatMul({19}, {2, 19, 5}, 23);
}

TEST(CubeGemm, TransposesAlphaBetaC) {
  Shape cN = {40}, cMN = {30, 40}, c1N = {1, 40}, cM1 = {30, 1}, cS = {}, c1 = {1};
  runGemm(30, 40, 50, false, false, 1.0, 1.0, nullptr, 1);
  runGemm(30, 40, 50, true, false, 0.5, 1.0, &cN, 2);
  runGemm(30, 40, 50, false, true, 1.0, 1.0, &cN, 3);  // Linear layer
  runGemm(30, 40, 50, true, true, 2.0, 0.25, &cMN, 4);
  runGemm(30, 40, 50, false, true, 1.0, 1.5, &c1N, 5);
  runGemm(30, 40, 50, false, false, 1.0, 1.0, &cM1, 6);
  runGemm(30, 40, 50, false, false, 1.0, 2.0, &cS, 7);
  runGemm(30, 40, 50, false, false, 1.0, 1.0, &c1, 8);
  Shape c1000 = {1000};
  runGemm(1, 1000, 512, false, true, 1.0, 1.0, &c1000, 9);  // ResNet classifier shape
}

// Products of at most 4 rows with a constant B take gemm_rows (kernels/lib/matmul.cpp): B's
// panels streamed 4 at a time. Ragged column groups (N = 1000, 37, 70), M = 1..4, a column bias,
// alpha, a fused ReLU; A packed (constant, through evalNodeNative) and read in place (raw).
TEST(CubeGemm, FewRowsPackedB) {
  uint32_t seed = 90;
  for (int64_t M : {1, 2, 3, 4})
    for (int64_t N : {1000, 37, 70})
      for (int relu = 0; relu < 2; ++relu) {
        SCOPED_TRACE("M " + std::to_string(M) + " N " + std::to_string(N) + " relu " + std::to_string(relu));
        const int64_t K = M == 1 ? 300 : 19;
        auto at = randTensor({M, K}, seed++), bt = randTensor({N, K}, seed++), ct = randTensor({N}, seed++);
        std::vector<float> want(M * N);
        for (int64_t m = 0; m < M; ++m)
          for (int64_t j = 0; j < N; ++j) {
            double acc = 0;
            for (int64_t k = 0; k < K; ++k) acc += (double)at->as<float>()[m * K + k] * bt->as<float>()[j * K + k];
            acc = 0.5 * acc + ct->as<float>()[j];
            want[m * N + j] = (float)(relu && acc < 0 ? 0.0 : acc);
          }
        for (int rows : {6, 16}) {
          Graph g;
          Node* n = g.addNode("Gemm", "gemm", {g.newConstant("a", at), g.newConstant("b", bt), g.newConstant("c", ct)},
                              {g.newValue("y")});
          n->attrs["transB"] = int64_t(1);
          n->attrs["alpha"] = 0.5;
          if (relu) n->attrs["_epi_act"] = int64_t(1);
          inferNode(g, *n);
          auto r = evalNodeNative(g, *n, rows);
          expectClose(r[0]->as<float>(), want, 1e-4, "few rows, A packed");
          // A read in place: the lowering packed B (input 1 now holds its panels).
          Graph g2;
          Node* n2 = g2.addNode("Gemm", "gemm", {g2.newConstant("a", at), g2.newConstant("b", bt), g2.newConstant("c", ct)},
                                {g2.newValue("y")});
          n2->attrs = n->attrs;
          n2->attrs.erase("_cube_apacked");
          n2->attrs.erase("_cube_bpacked");
          inferNode(g2, *n2);
          LowerCtx ctx(g2, *n2);
          ctx.cubeRows = rows;
          KernelCall call = OpRegistry::instance().find("Gemm")->lower(ctx);
          ASSERT_EQ(call.params[GM_B_PACKED], 1);
          call.params[GM_A_PACKED] = 0;
          call.params[GM_ALPHA] = paramFromDouble(0.5);
          std::vector<float> y(M * N);
          std::vector<uint8_t> ws(call.workspaceBytes + 64);
          std::vector<void*> bufs = {at->data.data(), const_cast<uint8_t*>(n2->inputs[1]->constant->data.data()), ct->data.data(), y.data(),
                                     ws.data()};
          runNativeKernel(*findNativeKernel("gemm"), call.params.data(), bufs.data());
          expectClose(y.data(), want, 1e-4, "few rows, A in place");
        }
      }
}

// The 6x64 tiles of 512-bit targets (GM_WIDE, gemm_wide_task) on a non-constant A: ragged rows
// (37 = 6 x 6 + 1) and columns (200 = 3 x 64 + 8), K blocks (300 > 128), a batch folded into M, a
// column bias with a fused ReLU, a residual; against float64 references.
TEST(CubeGemm, WideTiles) {
  struct C { Shape a; int64_t N; bool bias, relu, res; };
  const C cases[] = {{{37, 300}, 200, true, true, false},
                     {{6, 16}, 64, false, false, false},
                     {{50, 129}, 130, true, false, true},
                     {{2, 3, 17, 19}, 70, false, true, false}};
  uint32_t seed = 700;
  for (const C& cc : cases) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const int64_t K = cc.a.back(), N = cc.N;
    int64_t M = 1;
    for (size_t i = 0; i + 1 < cc.a.size(); ++i) M *= cc.a[i];
    auto at = randTensor(cc.a, seed++), bt = randTensor({K, N}, seed++), ct = randTensor({N}, seed++);
    Shape ys = cc.a;
    ys.back() = N;
    auto rt = randTensor(ys, seed++);
    const std::vector<float> want = cubetest::refGemm(
        M, N, K, [&](int64_t m, int64_t k) { return at->as<float>()[m * K + k]; },
        [&](int64_t k, int64_t j) { return bt->as<float>()[k * N + j]; }, cc.bias ? ct->as<float>() : nullptr,
        cc.res ? rt->as<float>() : nullptr, cc.relu);
    Graph g;
    Value* a = g.newValue("a", TensorType(DType::F32, cc.a));
    std::vector<Value*> ins = {a, g.newConstant("b", bt)};
    ins.push_back(cc.bias ? g.newConstant("c", ct) : nullptr);
    if (cc.res) ins.push_back(g.newValue("r", TensorType(DType::F32, ys)));
    Node* n = g.addNode("MatMul", "mm", ins, {g.newValue("y")});
    if (cc.relu) n->attrs["_epi_act"] = int64_t(1);
    if (cc.res) n->attrs["_epi_res"] = int64_t(3);
    inferNode(g, *n);
    LowerCtx ctx(g, *n);
    ctx.cubeRows = 16;
    KernelCall call = OpRegistry::instance().find("MatMul")->lower(ctx);
    ASSERT_EQ(call.params[GM_WIDE], 1);
    ASSERT_EQ(call.params[GM_B_PACKED], 1);
    std::vector<float> y(M * N);
    std::vector<uint8_t> ws(call.workspaceBytes + 64);
    std::vector<void*> bufs = {at->data.data(), const_cast<uint8_t*>(n->inputs[1]->constant->data.data()),
                               cc.bias ? ct->data.data() : nullptr};
    if (cc.res) bufs.push_back(rt->data.data());
    bufs.push_back(y.data());
    bufs.push_back(ws.data());
    ASSERT_EQ((int64_t)bufs.size() - 2, call.params[GM_YIDX]);
    runNativeKernel(*findNativeKernel("gemm"), call.params.data(), bufs.data());
    expectClose(y.data(), want, 1e-4, "6x64 tiles");
    // The 256-bit family keeps its own tiles.
    LowerCtx ctx6(g, *n);
    EXPECT_EQ(OpRegistry::instance().find("MatMul")->lower(ctx6).params[GM_WIDE], 0);

    // float16 A (converted per K block) and float16 Y (fp32 block, rounded on store), as a
    // force_fp16 build runs them: against the same reference on the rounded A.
    auto ah = std::make_shared<Tensor>(TensorType(DType::F16, cc.a));
    for (int64_t i = 0; i < M * K; ++i) ah->as<uint16_t>()[i] = floatToHalf(at->as<float>()[i]);
    std::vector<float> want16(M * N);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t j = 0; j < N; ++j) {
        double acc = cc.bias ? ct->as<float>()[j] : 0.0;
        for (int64_t k = 0; k < K; ++k)
          acc += (double)halfToFloat(ah->as<uint16_t>()[m * K + k]) * bt->as<float>()[k * N + j];
        if (cc.res) acc += rt->as<float>()[m * N + j];
        // relu cases run GELU here: an activation outside registers (cube_store_dt's staged tile)
        want16[m * N + j] = (float)(cc.relu ? 0.5 * acc * (1.0 + std::erf(acc / std::sqrt(2.0))) : acc);
      }
    Graph gh;
    std::vector<Value*> insh = {gh.newValue("a", TensorType(DType::F16, cc.a)), gh.newConstant("b", bt)};
    insh.push_back(cc.bias ? gh.newConstant("c", ct) : nullptr);
    if (cc.res) insh.push_back(gh.newValue("r", TensorType(DType::F32, ys)));
    Node* nh = gh.addNode("MatMul", "mm", insh, {gh.newValue("y")});
    nh->attrs = n->attrs;
    nh->attrs.erase("_cube_bpacked");
    nh->attrs.erase("_cube_shape1");
    nh->attrs["_out_dtype"] = (int64_t)DType::F16;
    if (cc.relu) nh->attrs["_epi_act"] = int64_t(41);  // ATCK_E_GELU
    inferNode(gh, *nh);
    LowerCtx ctxh(gh, *nh);
    ctxh.cubeRows = 16;
    KernelCall callh = OpRegistry::instance().find("MatMul")->lower(ctxh);
    ASSERT_EQ(callh.params[GM_WIDE], 1);
    std::vector<uint16_t> yh(M * N);
    std::vector<uint8_t> wsh(callh.workspaceBytes + 64);
    bufs[0] = ah->data.data();
    bufs[1] = const_cast<uint8_t*>(nh->inputs[1]->constant->data.data());
    bufs[bufs.size() - 2] = yh.data();
    bufs.back() = wsh.data();
    runNativeKernel(*findNativeKernel("gemm"), callh.params.data(), bufs.data());
    std::vector<float> got(M * N);
    for (int64_t i = 0; i < M * N; ++i) got[i] = halfToFloat(yh[i]);
    expectClose(got.data(), want16, 1e-3, "6x64 tiles, float16 in and out");
  }
}

TEST(CubeMatMul, RejectsBadShapes) {
  Graph g;
  Value* a = g.newValue("a", TensorType(DType::F32, {3, 4}));
  Value* b = g.newValue("b", TensorType(DType::F32, {5, 6}));
  Node* n = g.addNode("MatMul", "m", {a, b}, {g.newValue("y")});
  EXPECT_THROW(inferNode(g, *n), AtcError);
}

// Writes the conv kernel params of ResNet-18's convolutions as a C header, for the
// standalone LLVM-specialised benchmark (docs/kernels-cube.md, "Measuring").
TEST(CubeConv, DISABLED_DumpResNet18Params) {
  struct L { int64_t c, oc, hw, k, s, p, reps; };
  std::vector<L> layers = {{3, 64, 224, 7, 2, 3, 1},    {64, 64, 56, 3, 1, 1, 4},
                           {64, 128, 56, 3, 2, 1, 1},   {128, 128, 28, 3, 1, 1, 3},
                           {64, 128, 56, 1, 2, 0, 1},   {128, 256, 28, 3, 2, 1, 1},
                           {256, 256, 14, 3, 1, 1, 3},  {128, 256, 28, 1, 2, 0, 1},
                           {256, 512, 14, 3, 2, 1, 1},  {512, 512, 7, 3, 1, 1, 3},
                           {256, 512, 14, 1, 2, 0, 1}};
  FILE* f = std::fopen("/tmp/cube_bench_params.h", "w");
  ASSERT_TRUE(f);
  std::fprintf(f, "static const int kNumLayers = %d;\n", (int)layers.size());
  std::fprintf(f, "static const int64_t kReps[] = {");
  for (auto& l : layers) std::fprintf(f, "%ld,", (long)l.reps);
  std::fprintf(f, "};\nstatic const int64_t kWs[] = {");
  std::string params;
  for (auto& l : layers) {
    Graph g;
    Value* x = g.newValue("x", TensorType(DType::F32, {1, l.c, l.hw, l.hw}));
    Value* w = g.newConstant("w", randTensor({l.oc, l.c, l.k, l.k}, 1));
    Value* b = g.newConstant("b", randTensor({l.oc}, 2));
    Node* n = g.addNode("Conv", "c", {x, w, b}, {g.newValue("y")});
    n->attrs["strides"] = std::vector<int64_t>{l.s, l.s};
    n->attrs["pads"] = std::vector<int64_t>{l.p, l.p, l.p, l.p};
    inferNode(g, *n);
    LowerCtx ctx(g, *n);
    KernelCall call = OpRegistry::instance().find("Conv")->lower(ctx);
    std::fprintf(f, "%ld,", (long)call.workspaceBytes);
    params += "{";
    for (auto p : call.params) params += std::to_string(p) + ",";
    params += "},\n";
  }
  std::fprintf(f, "};\nstatic const int64_t kP[][%d] = {\n%s};\n", (int)CV_COUNT, params.c_str());
  std::fclose(f);
}

// ---- ConvTranspose -----------------------------------------------------------------------
namespace {

struct ConvTCase {
  int64_t N, C, OC, G;
  std::vector<int64_t> in, k, s, d, pads, outPad;
  bool bias;
  std::vector<int64_t> outputShape;  // optional
  std::string autoPad = "NOTSET";
};

void runConvTCase(const ConvTCase& cc, uint32_t seed) {
  int nd = (int)cc.in.size();
  Graph g;
  Shape xs = {cc.N, cc.C};
  xs.insert(xs.end(), cc.in.begin(), cc.in.end());
  Shape wsh = {cc.C, cc.OC / cc.G};
  wsh.insert(wsh.end(), cc.k.begin(), cc.k.end());
  auto xt = randTensor(xs, seed), wt = randTensor(wsh, seed + 1), bt = randTensor({cc.OC}, seed + 2);
  std::vector<Value*> ins = {g.newConstant("x", xt), g.newConstant("w", wt)};
  if (cc.bias) ins.push_back(g.newConstant("b", bt));
  Node* n = g.addNode("ConvTranspose", "ct", ins, {g.newValue("y")});
  n->attrs["group"] = cc.G;
  n->attrs["strides"] = cc.s;
  n->attrs["dilations"] = cc.d;
  if (!cc.pads.empty()) n->attrs["pads"] = cc.pads;
  if (!cc.outPad.empty()) n->attrs["output_padding"] = cc.outPad;
  if (!cc.outputShape.empty()) n->attrs["output_shape"] = cc.outputShape;
  if (cc.autoPad != "NOTSET") n->attrs["auto_pad"] = cc.autoPad;
  inferNode(g, *n);
  std::vector<int64_t> out(nd), pb(nd);
  for (int i = 0; i < nd; ++i) {
    int64_t op = cc.outPad.empty() ? 0 : cc.outPad[i];
    int64_t full = cc.s[i] * (cc.in[i] - 1) + op + (cc.k[i] - 1) * cc.d[i] + 1;
    if (!cc.outputShape.empty() || cc.autoPad != "NOTSET") {
      out[i] = cc.outputShape.empty() ? cc.in[i] * cc.s[i] : cc.outputShape[i];
      int64_t total = full - out[i];  // negative: output_shape beyond the full extent
      int64_t half = (int64_t)std::floor(total / 2.0);  // the reference's floor division
      pb[i] = cc.autoPad == "SAME_UPPER" ? half : total - half;
    } else {
      pb[i] = cc.pads[i];
      out[i] = full - cc.pads[i] - cc.pads[i + nd];
    }
  }
  Shape ys = {cc.N, cc.OC};
  ys.insert(ys.end(), out.begin(), out.end());
  ASSERT_EQ(n->outputs[0]->type.shape, ys);
  // Scatter reference.
  std::vector<int64_t> in3(3, 1), k3(3, 1), s3(3, 1), d3(3, 1), o3(3, 1), p3(3, 0);
  for (int i = 0; i < nd; ++i) {
    in3[3 - nd + i] = cc.in[i]; k3[3 - nd + i] = cc.k[i]; s3[3 - nd + i] = cc.s[i];
    d3[3 - nd + i] = cc.d[i]; o3[3 - nd + i] = out[i]; p3[3 - nd + i] = pb[i];
  }
  int64_t Cg = cc.C / cc.G, OCg = cc.OC / cc.G, IP = in3[0] * in3[1] * in3[2],
          OP = o3[0] * o3[1] * o3[2], KS = k3[0] * k3[1] * k3[2];
  std::vector<double> y(cc.N * cc.OC * OP, 0.0);
  const float* x = xt->as<float>();
  const float* w = wt->as<float>();
  for (int64_t nn = 0; nn < cc.N; ++nn)
    for (int64_t ic = 0; ic < cc.C; ++ic) {
      int64_t gg = ic / Cg;
      for (int64_t o = 0; o < OCg; ++o)
        for (int64_t id = 0; id < in3[0]; ++id)
          for (int64_t ih = 0; ih < in3[1]; ++ih)
            for (int64_t iw = 0; iw < in3[2]; ++iw)
              for (int64_t kd = 0; kd < k3[0]; ++kd)
                for (int64_t kh = 0; kh < k3[1]; ++kh)
                  for (int64_t kw = 0; kw < k3[2]; ++kw) {
                    int64_t od = id * s3[0] - p3[0] + kd * d3[0];
                    int64_t oh = ih * s3[1] - p3[1] + kh * d3[1];
                    int64_t ow = iw * s3[2] - p3[2] + kw * d3[2];
                    if (od < 0 || od >= o3[0] || oh < 0 || oh >= o3[1] || ow < 0 || ow >= o3[2]) continue;
                    y[(nn * cc.OC + gg * OCg + o) * OP + (od * o3[1] + oh) * o3[2] + ow] +=
                        (double)x[(nn * cc.C + ic) * IP + (id * in3[1] + ih) * in3[2] + iw] *
                        w[(ic * OCg + o) * KS + (kd * k3[1] + kh) * k3[2] + kw];
                  }
    }
  std::vector<float> want(y.size());
  for (size_t i = 0; i < y.size(); ++i)
    want[i] = (float)(y[i] + (cc.bias ? bt->as<float>()[(i / OP) % cc.OC] : 0.0));
  auto r = evalNodeNative(g, *n);
  expectClose(r[0]->as<float>(), want, 1e-4, "conv_transpose");
}

}  // namespace

TEST(CubeConvTranspose, TwoD) {
  runConvTCase({1, 4, 6, 1, {5, 6}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, {1, 1}, true}, 1);
  runConvTCase({2, 6, 4, 2, {4, 5}, {4, 4}, {2, 2}, {1, 1}, {1, 1, 1, 1}, {}, false}, 2);
  runConvTCase({1, 3, 5, 1, {7, 7}, {3, 2}, {1, 3}, {2, 1}, {0, 1, 2, 0}, {0, 2}, true}, 3);
  runConvTCase({1, 8, 8, 8, {6, 6}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, {}, true}, 4);  // depthwise
  runConvTCase({1, 20, 30, 1, {9, 9}, {2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}, {}, true}, 5);
}

TEST(CubeConvTranspose, OutputShapeAutoPadAnd1D3D) {
  runConvTCase({1, 3, 4, 1, {5, 5}, {3, 3}, {2, 2}, {1, 1}, {}, {}, true, {10, 9}}, 10);
  runConvTCase({1, 3, 4, 1, {5, 5}, {3, 3}, {2, 2}, {1, 1}, {}, {}, true, {}, "SAME_UPPER"}, 11);
  runConvTCase({1, 3, 4, 1, {5, 5}, {4, 3}, {2, 2}, {1, 1}, {}, {}, true, {}, "SAME_LOWER"}, 12);
  runConvTCase({2, 4, 3, 1, {11}, {5}, {3}, {1}, {2, 1}, {}, true}, 13);
  runConvTCase({1, 2, 3, 1, {3, 4, 3}, {2, 3, 2}, {2, 1, 2}, {1, 1, 1}, {0, 1, 0, 0, 1, 1}, {}, true}, 14);
  // output_shape beyond the full extent (11 x 11 here): the pads go negative as in ONNX's
  // reference and the extra rows / columns hold the bias alone (node test convtranspose_output_shape).
  runConvTCase({1, 3, 4, 1, {5, 5}, {3, 3}, {2, 2}, {1, 1}, {}, {}, true, {12, 14}}, 15);
  runConvTCase({1, 2, 2, 1, {5, 4}, {1, 1}, {3, 3}, {1, 1}, {}, {}, true, {}, "SAME_UPPER"}, 16);
  runConvTCase({1, 2, 2, 1, {5, 4}, {1, 1}, {3, 3}, {1, 1}, {}, {}, false, {}, "SAME_LOWER"}, 17);
}

// The activations a cube epilogue computes in 8-lane registers (cube_act8: sigmoid, SiLU,
// hard-sigmoid, hard-swish, leaky ReLU) give the same values as the scalar element-wise
// definitions, on conv (band and im2col paths, ragged tiles), depthwise conv and gemm outputs.
TEST(CubeEpilogue, VectorActivationsMatchScalar) {
  struct Act { int code; double a, b; const char* name; };
  // tanh goes through the staged (MR x 16 tile) path of cube_epilogue_r, the rest in registers.
  const Act acts[] = {{7, 0, 0, "sigmoid"}, {42, 0, 0, "silu"}, {8, 0.2, 0.5, "hardsigmoid"},
                      {9, 0, 0, "hardswish"}, {2, 0.1, 0, "leakyrelu"}, {12, 0, 0, "tanh"}};
  auto scalar = [](const Act& a, float x) {
    const float s = x < 0 ? std::exp(x) / (1.0f + std::exp(x)) : 1.0f / (1.0f + std::exp(-x));
    switch (a.code) {
      case 7: return s;
      case 42: return x * s;
      case 8: return std::min(1.0f, std::max(0.0f, (float)a.a * x + (float)a.b));
      case 9: return x * std::min(1.0f, std::max(0.0f, x / 6.0f + 0.5f));
      case 12: return std::tanh(x);
      default: return x < 0 ? (float)a.a * x : x;
    }
  };
  struct Shp { Shape x, w; int64_t group; std::vector<int64_t> pads; };
  const Shp shapes[] = {{{1, 5, 9, 13}, {7, 5, 3, 3}, 1, {1, 1, 1, 1}},     // band, ragged
                        {{1, 8, 6, 21}, {12, 8, 1, 1}, 1, {0, 0, 0, 0}},    // 1x1 (im2col copy)
                        {{1, 6, 11, 19}, {6, 1, 3, 3}, 6, {1, 1, 1, 1}},    // depthwise
                        {{1, 8, 6, 21}, {40, 8, 1, 1}, 1, {0, 0, 0, 0}}};   // full 16-row tiles
  for (int rows : {6, 16})
  for (const Act& a : acts) {
    for (const Shp& sh : shapes) {
      SCOPED_TRACE(std::string(a.name) + ", microkernel rows " + std::to_string(rows));
      auto xt = randTensor(sh.x, 3), wt = randTensor(sh.w, 4);
      for (int64_t i = 0; i < xt->type.numel(); ++i) xt->as<float>()[i] *= 8.0f;  // saturating range
      std::vector<float> outs[2];
      for (int fused = 0; fused < 2; ++fused) {
        Graph g;
        Value* y = g.newValue("y");
        Node* n = g.addNode("Conv", "conv", {g.newConstant("x", xt), g.newConstant("w", wt)}, {y});
        n->attrs["group"] = sh.group;
        n->attrs["pads"] = sh.pads;
        if (fused) {
          n->attrs["_epi_act"] = (int64_t)a.code;
          n->attrs["_epi_alpha"] = a.a;
          n->attrs["_epi_beta"] = a.b;
        }
        inferNode(g, *n);
        auto r = evalNodeNative(g, *n, rows);
        outs[fused].assign(r[0]->as<float>(), r[0]->as<float>() + r[0]->type.numel());
      }
      std::vector<float> want(outs[0].size());
      for (size_t i = 0; i < want.size(); ++i) want[i] = scalar(a, outs[0][i]);
      expectClose(outs[1].data(), want, 2e-6, a.name);
    }
  }
}

// A depthwise conv with a fused residual and activation (the epilogue computed in a register,
// cube_epi16), on rows of 19 and 7 outputs (a full 16-lane chunk and ragged ones): equal to the
// unfused conv followed by the residual add and the activation in scalar code.
TEST(CubeEpilogue, DepthwiseResidualInRegisters) {
  for (int64_t W : {19, 7})
    for (int code : {42 /* silu */, 1 /* relu */, 6 /* clip */}) {
      SCOPED_TRACE("W " + std::to_string(W) + " act " + std::to_string(code));
      auto xt = randTensor({1, 6, 5, W}, 7), wt = randTensor({6, 1, 3, 3}, 8), bt = randTensor({6}, 9);
      auto rt = randTensor({1, 6, 5, W}, 10);
      std::vector<float> outs[2];
      for (int fused = 0; fused < 2; ++fused) {
        Graph g;
        std::vector<Value*> ins = {g.newConstant("x", xt), g.newConstant("w", wt), g.newConstant("b", bt)};
        if (fused) ins.push_back(g.newConstant("r", rt));
        Node* n = g.addNode("Conv", "conv", ins, {g.newValue("y")});
        n->attrs["group"] = int64_t(6);
        n->attrs["pads"] = std::vector<int64_t>{1, 1, 1, 1};
        if (fused) {
          n->attrs["_epi_act"] = (int64_t)code;
          n->attrs["_epi_alpha"] = 0.5;
          n->attrs["_epi_beta"] = 1.25;
          n->attrs["_epi_res"] = int64_t(3);
        }
        inferNode(g, *n);
        auto r = evalNodeNative(g, *n);
        outs[fused].assign(r[0]->as<float>(), r[0]->as<float>() + r[0]->type.numel());
      }
      std::vector<float> want(outs[0].size());
      for (size_t i = 0; i < want.size(); ++i) {
        float v = outs[0][i] + rt->as<float>()[i];
        if (code == 42) v = v * (v < 0 ? std::exp(v) / (1.0f + std::exp(v)) : 1.0f / (1.0f + std::exp(-v)));
        else if (code == 1) v = v < 0 ? 0 : v;
        else v = std::min(1.25f, std::max(0.5f, v));
        want[i] = v;
      }
      expectClose(outs[1].data(), want, 2e-6, "depthwise + residual + activation");
    }
}
