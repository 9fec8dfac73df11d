// DeformConv (opsets 19, 22): a 2-D convolution whose taps are moved by per-pixel offsets and
// optionally scaled by a mask (deformable convolution v1 / v2, torchvision's deform_conv2d).
// float32 X [N, C, H, W], W [M, C/group, kH, kW], offset [N, 2 * offset_group * kH * kW, oH, oW]
// (per tap: dy, dx), optional B [M] and mask [N, offset_group * kH * kW, oH, oW]. Attributes:
// dilations, group, kernel_shape, offset_group, pads, strides (no auto_pad). Tap (i, j) of output
// pixel (oh, ow) reads X bilinearly at (oh * sH - pT + i * dH + dy, ow * sW - pL + j * dW + dx),
// zero outside the map. Kernel "deform_conv" (kernels/lib/deform_conv.cpp).
#include <algorithm>

#include "ops/cube/conv_geometry.h"

namespace atc {
namespace {

struct DeformDims {
  int64_t N, C, H, W, M, G, OG, kH, kW;
  WindowGeom g;
};

void checkInput(const Node& n, size_t i, const char* what, const Shape& want) {
  const Value* v = n.input(i);
  if (!v) return;
  if (v->type.dtype != DType::F32) opError(n, std::string(what) + " must be float32, got " + v->type.str());
  if (v->type.shape != want)
    opError(n, std::string(what) + " must be " + TensorType(DType::F32, want).str() + ", got " + v->type.str());
}

DeformDims deformDims(const Node& n) {
  const TensorType &x = n.inputs[0]->type, &w = n.inputs[1]->type;
  if (x.dtype != DType::F32 || w.dtype != DType::F32) opError(n, "X and W must be float32");
  if (!x.isStatic() || !w.isStatic() || !n.inputs[2]->type.isStatic()) opError(n, "needs static input shapes");
  if (x.rank() != 4 || w.rank() != 4) opError(n, "only 2-D deformable convolution is supported (X and W of rank 4)");
  if (n.attrString("auto_pad", "NOTSET") != "NOTSET") opError(n, "has no auto_pad");
  DeformDims d{x.shape[0], x.shape[1], x.shape[2], x.shape[3], w.shape[0],
               n.attrInt("group", 1), n.attrInt("offset_group", 1), w.shape[2], w.shape[3], {}};
  std::vector<int64_t> ks = n.attrInts("kernel_shape", {d.kH, d.kW});
  if (ks != std::vector<int64_t>{d.kH, d.kW}) opError(n, "kernel_shape differs from W's spatial dims");
  if (d.G < 1 || d.C % d.G || d.M % d.G || w.shape[1] != d.C / d.G)
    opError(n, "group must divide C and M, and W must be [M, C/group, kH, kW]");
  if (d.OG < 1 || d.C % d.OG) opError(n, "offset_group must divide C");
  d.g = windowGeometry(n, {d.H, d.W}, {d.kH, d.kW}, false);
  const int64_t taps = d.OG * d.kH * d.kW;
  checkInput(n, 2, "offset", {d.N, 2 * taps, d.g.out[0], d.g.out[1]});
  checkInput(n, 3, "B", {d.M});
  checkInput(n, 4, "mask", {d.N, taps, d.g.out[0], d.g.out[1]});
  return d;
}

void inferDeformConv(Graph&, Node& n) {
  DeformDims d = deformDims(n);
  n.outputs[0]->type = TensorType(DType::F32, {d.N, d.M, d.g.out[0], d.g.out[1]});
}

KernelCall lowerDeformConv(LowerCtx& c) {
  const Node& n = c.node;
  DeformDims d = deformDims(n);
  const int64_t oW = d.g.out[1], K = d.C / d.G * d.kH * d.kW;
  const int64_t pixBlocks = (oW + 63) / 64, units = d.N * d.G * d.g.out[0] * pixBlocks;
  const int64_t tasks = std::clamp<int64_t>(units, 1, 16);
  KernelCall kc;
  kc.kernel = "deform_conv";
  kc.params = {d.N,         d.C,         d.H,         d.W,           d.M,           d.G,
               d.OG,        d.kH,        d.kW,        d.g.out[0],    oW,            d.g.stride[0],
               d.g.stride[1], d.g.padBegin[0], d.g.padBegin[1], d.g.dil[0], d.g.dil[1], n.input(3) ? 1 : 0,
               n.input(4) ? 1 : 0, (int64_t)n.inputs.size(), tasks, units};
  kc.workspaceBytes = tasks * (K * 64 + 64) * 4;  // per task: the sampled taps of 64 pixels, their sums
  return kc;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "DeformConv";
  d.category = OpCategory::Misc;
  d.minInputs = 3;
  d.maxInputs = 5;
  d.infer = inferDeformConv;
  d.lower = lowerDeformConv;
  return d;
}());

}  // namespace
}  // namespace atc
