// Helpers of the cube kernel tests (kernels_cube_test.cpp, kernels_conv_ocm_test.cpp): random
// tensors, a naive convolution reference, and a conv case run through lowering and the native
// kernel with packed and (where the path allows) raw weights.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ir/op_registry.h"
#include "kernels/lib/cube_params.h"
#include "kernels/lib/native_registry.h"
#include "ops/native_eval.h"
#include "support/diagnostics.h"

namespace atc {
namespace cubetest {

inline std::shared_ptr<Tensor> randTensor(const Shape& s, uint32_t seed, DType dt = DType::F32) {
  auto t = std::make_shared<Tensor>(TensorType(dt, s));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  int64_t n = t->type.numel();
  for (int64_t i = 0; i < n; ++i) {
    if (dt == DType::F16) t->as<uint16_t>()[i] = floatToHalf(u(rng));
    else t->as<float>()[i] = u(rng);
  }
  return t;
}

inline int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

inline void expectClose(const float* got, const std::vector<float>& want, double tol, const char* what) {
  double maxErr = 0;
  int64_t bad = -1;
  for (size_t i = 0; i < want.size(); ++i) {
    double e = std::fabs((double)got[i] - want[i]) / (1.0 + std::fabs(want[i]));
    if (!(e <= maxErr)) {
      maxErr = e;
      bad = (int64_t)i;
    }
  }
  EXPECT_LE(maxErr, tol) << what << ": worst at " << bad << " got " << got[bad] << " want "
                         << want[bad];
}

// float64 reference of Y[M x N] = A[M x K] x B[K x N] (+ bias[j]) (+ R[m][j]) (then ReLU), the
// operands read through a(m, k) and b(k, j).
template <class FA, class FB>
std::vector<float> refGemm(int64_t M, int64_t N, int64_t K, FA a, FB b, const float* bias, const float* res,
                           bool relu) {
  std::vector<float> y(M * N);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t j = 0; j < N; ++j) {
      double acc = bias ? bias[j] : 0.0;
      for (int64_t k = 0; k < K; ++k) acc += (double)a(m, k) * b(k, j);
      if (res) acc += res[m * N + j];
      y[m * N + j] = (float)(relu && acc < 0 ? 0.0 : acc);
    }
  return y;
}

struct ConvCase {
  int64_t N, C, OC, G;
  std::vector<int64_t> in, k, s, d, pads;  // pads: begin..., end...
  bool bias;
  std::string autoPad = "NOTSET";
};

// The case's Conv attributes on n (group, strides, dilations, kernel_shape, pads or auto_pad).
inline void setConvAttrs(Node* n, const ConvCase& cc) {
  n->attrs["group"] = cc.G;
  n->attrs["strides"] = cc.s;
  n->attrs["dilations"] = cc.d;
  n->attrs["kernel_shape"] = cc.k;
  if (cc.autoPad != "NOTSET") n->attrs["auto_pad"] = cc.autoPad;
  else n->attrs["pads"] = cc.pads;
}

// Naive grouped N-d convolution (nd = 1..3) with explicit begin pads and output sizes.
inline std::vector<float> refConv(const ConvCase& cc, const float* x, const float* w, const float* b,
                           const std::vector<int64_t>& out, const std::vector<int64_t>& pb) {
  int nd = (int)cc.in.size();
  std::vector<int64_t> in3(3, 1), k3(3, 1), s3(3, 1), d3(3, 1), o3(3, 1), p3(3, 0);
  for (int i = 0; i < nd; ++i) {
    in3[3 - nd + i] = cc.in[i]; k3[3 - nd + i] = cc.k[i]; s3[3 - nd + i] = cc.s[i];
    d3[3 - nd + i] = cc.d[i]; o3[3 - nd + i] = out[i]; p3[3 - nd + i] = pb[i];
  }
  int64_t Cg = cc.C / cc.G, M = cc.OC / cc.G;
  int64_t IP = in3[0] * in3[1] * in3[2], OP = o3[0] * o3[1] * o3[2], KS = k3[0] * k3[1] * k3[2];
  std::vector<float> y(cc.N * cc.OC * OP);
  for (int64_t n = 0; n < cc.N; ++n)
    for (int64_t oc = 0; oc < cc.OC; ++oc) {
      int64_t g = oc / M;
      for (int64_t od = 0; od < o3[0]; ++od)
        for (int64_t oh = 0; oh < o3[1]; ++oh)
          for (int64_t ow = 0; ow < o3[2]; ++ow) {
            double acc = b ? b[oc] : 0.0;
            for (int64_t ic = 0; ic < Cg; ++ic)
              for (int64_t kd = 0; kd < k3[0]; ++kd)
                for (int64_t kh = 0; kh < k3[1]; ++kh)
                  for (int64_t kw = 0; kw < k3[2]; ++kw) {
                    int64_t id = od * s3[0] - p3[0] + kd * d3[0];
                    int64_t ih = oh * s3[1] - p3[1] + kh * d3[1];
                    int64_t iw = ow * s3[2] - p3[2] + kw * d3[2];
                    if (id < 0 || id >= in3[0] || ih < 0 || ih >= in3[1] || iw < 0 || iw >= in3[2])
                      continue;
                    acc += (double)x[(n * cc.C + g * Cg + ic) * IP + (id * in3[1] + ih) * in3[2] + iw] *
                           w[(oc * Cg + ic) * KS + (kd * k3[1] + kh) * k3[2] + kw];
                  }
            y[(n * cc.OC + oc) * OP + (od * o3[1] + oh) * o3[2] + ow] = (float)acc;
          }
    }
  return y;
}

// Runs the case with the microkernel family of `rows` rows (6: 256-bit, 16: 512-bit; both
// run natively on any host, the kernel library is plain C++).
inline void runConvCaseRows(const ConvCase& cc, uint32_t seed, int rows) {
  SCOPED_TRACE("microkernel rows " + std::to_string(rows));
  Graph g;
  int nd = (int)cc.in.size();
  Shape xs = {cc.N, cc.C};
  xs.insert(xs.end(), cc.in.begin(), cc.in.end());
  Shape wsh = {cc.OC, cc.C / cc.G};
  wsh.insert(wsh.end(), cc.k.begin(), cc.k.end());
  auto xt = randTensor(xs, seed), wt = randTensor(wsh, seed + 1), bt = randTensor({cc.OC}, seed + 2);
  std::vector<Value*> ins = {g.newConstant("x", xt), g.newConstant("w", wt)};
  if (cc.bias) ins.push_back(g.newConstant("b", bt));
  Value* y = g.newValue("y");
  Node* n = g.addNode("Conv", "conv", ins, {y});
  setConvAttrs(n, cc);
  inferNode(g, *n);
  // Expected geometry (independent computation for NOTSET, ONNX formulas for SAME_*).
  std::vector<int64_t> out(nd), pb(nd);
  for (int i = 0; i < nd; ++i) {
    int64_t ext = (cc.k[i] - 1) * cc.d[i] + 1;
    if (cc.autoPad == "NOTSET") {
      pb[i] = cc.pads[i];
      out[i] = (cc.in[i] + cc.pads[i] + cc.pads[i + nd] - ext) / cc.s[i] + 1;
    } else if (cc.autoPad == "VALID") {
      pb[i] = 0;
      out[i] = (cc.in[i] - ext) / cc.s[i] + 1;
    } else {
      out[i] = (cc.in[i] + cc.s[i] - 1) / cc.s[i];
      int64_t total = std::max<int64_t>(0, (out[i] - 1) * cc.s[i] + ext - cc.in[i]);
      pb[i] = cc.autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
    }
  }
  Shape ys = {cc.N, cc.OC};
  ys.insert(ys.end(), out.begin(), out.end());
  ASSERT_EQ(y->type.shape, ys);
  auto want = refConv(cc, xt->as<float>(), wt->as<float>(), cc.bias ? bt->as<float>() : nullptr,
                      out, pb);
  auto r = evalNodeNative(g, *n, rows);
  expectClose(r[0]->as<float>(), want, 1e-4, "conv (packed weights)");

  // The same through the generic (unpacked weights) path of the conv kernel.
  Graph g2;
  std::vector<Value*> ins2 = {g2.newConstant("x", xt), g2.newConstant("w", wt)};
  if (cc.bias) ins2.push_back(g2.newConstant("b", bt));
  Value* y2 = g2.newValue("y");
  Node* n2 = g2.addNode("Conv", "conv", ins2, {y2});
  n2->attrs = n->attrs;
  n2->attrs.erase("_cube_wshape");
  n2->attrs.erase("_dwc");
  inferNode(g2, *n2);
  LowerCtx ctx(g2, *n2);
  ctx.cubeRows = rows;
  KernelCall call = OpRegistry::instance().find("Conv")->lower(ctx);
  if (call.kernel == "conv" && !call.params[CV_OCM]) {  // the channel-major path needs packed weights
    EXPECT_EQ(call.params[CV_MR], rows);
    call.params[CV_W_PACKED] = 0;
    std::vector<float> yb(numel(ys));
    std::vector<uint8_t> ws(call.workspaceBytes + 64);
    std::vector<void*> bufs = {xt->data.data(), wt->data.data()};
    if (cc.bias) bufs.push_back(bt->data.data());
    bufs.push_back(yb.data());
    bufs.push_back(ws.data());
    runNativeKernel(*findNativeKernel("conv"), call.params.data(), bufs.data());
    expectClose(yb.data(), want, 1e-4, "conv (raw weights)");
  }
}

}  // namespace cubetest
}  // namespace atc
