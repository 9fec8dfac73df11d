// ConvTranspose (ONNX): 1-D/2-D/3-D, groups, strides, dilations, pads, output_padding,
// output_shape, auto_pad. Lowers to kernel conv_transpose (GEMM + col2im, weights packed
// per output-channel block when constant).
#include <algorithm>
#include <memory>

#include "ir/op_registry.h"
#include "kernels/lib/cube_params.h"
#include "ops/cube/conv_geometry.h"

namespace atc {
namespace {

struct ConvTDims {
  int64_t N, C, OC, G, nd;
  std::vector<int64_t> in, k, s, d, pb, pe, out;
};

ConvTDims convTDims(const Node& n) {
  const TensorType& xt = n.inputs[0]->type;
  Shape ws = n.hasAttr("_cube_wshape") ? n.attrInts("_cube_wshape") : n.inputs[1]->type.shape;
  if (!xt.shapeKnown || xt.rank() < 3 || xt.rank() > 5)
    opError(n, "X must have rank 3..5 (N, C and 1-3 spatial dims)");
  if ((int64_t)ws.size() != xt.rank()) opError(n, "W must have the same rank as X");
  ConvTDims d;
  d.nd = xt.rank() - 2;
  d.N = xt.shape[0];
  d.C = xt.shape[1];
  d.G = n.attrInt("group", 1);
  if (d.G < 1 || d.C % d.G != 0) opError(n, "group must divide the input channels");
  if (ws[0] != d.C) opError(n, "W dim 0 must equal the input channels");
  d.OC = ws[1] * d.G;
  d.in.assign(xt.shape.begin() + 2, xt.shape.end());
  d.k.assign(ws.begin() + 2, ws.end());
  if (n.hasAttr("kernel_shape") && n.attrInts("kernel_shape") != d.k)
    opError(n, "kernel_shape does not match W");
  int nd = (int)d.nd;
  d.s = n.attrInts("strides", std::vector<int64_t>(nd, 1));
  d.d = n.attrInts("dilations", std::vector<int64_t>(nd, 1));
  std::vector<int64_t> op = n.attrInts("output_padding", std::vector<int64_t>(nd, 0));
  std::vector<int64_t> pads = n.attrInts("pads", std::vector<int64_t>(2 * nd, 0));
  if ((int)d.s.size() != nd || (int)d.d.size() != nd || (int)op.size() != nd ||
      (int)pads.size() != 2 * nd)
    opError(n, "strides/dilations/output_padding/pads have the wrong length");
  std::string autoPad = n.attrString("auto_pad", "NOTSET");
  std::vector<int64_t> os = n.attrInts("output_shape", {});
  if (!os.empty() && (int)os.size() == nd + 2) os.erase(os.begin(), os.begin() + 2);
  if (!os.empty() && (int)os.size() != nd) opError(n, "output_shape has the wrong length");
  d.pb.assign(nd, 0);
  d.pe.assign(nd, 0);
  d.out.assign(nd, 0);
  for (int i = 0; i < nd; ++i) {
    if (d.s[i] < 1 || d.d[i] < 1 || d.k[i] < 1) opError(n, "strides, dilations, kernel must be >= 1");
    int64_t full = d.s[i] * (d.in[i] - 1) + op[i] + (d.k[i] - 1) * d.d[i] + 1;
    bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
    if (!os.empty() || same) {
      int64_t target = !os.empty() ? os[i] : d.in[i] * d.s[i];
      // A target beyond the full extent makes the total negative: the reference's pads then
      // reach outside it and those output positions get the bias alone.
      if (target < 1) opError(n, "output_shape must be positive");
      int64_t total = full - target;
      const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);  // floor(total / 2), as the reference
      bool upper = autoPad == "SAME_UPPER";  // ONNX spec: otherwise the begin pad gets the odd unit
      d.pb[i] = upper ? half : total - half;
      d.pe[i] = total - d.pb[i];
      d.out[i] = target;
    } else {
      if (autoPad != "NOTSET" && autoPad != "VALID" && !autoPad.empty())
        opError(n, "unknown auto_pad " + autoPad);
      if (autoPad == "NOTSET" || autoPad.empty()) {
        d.pb[i] = pads[i];
        d.pe[i] = pads[i + nd];
      }
      d.out[i] = full - d.pb[i] - d.pe[i];
      if (d.out[i] < 1) opError(n, "output size would be < 1");
    }
  }
  return d;
}

void inferConvT(Graph&, Node& n) {
  ConvTDims d = convTDims(n);
  Shape out = {d.N, d.OC};
  out.insert(out.end(), d.out.begin(), d.out.end());
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, out);
}

KernelCall lowerConvT(LowerCtx& c) {
  Node& n = c.node;
  ConvTDims d = convTDims(n);
  if (n.inputs[0]->type.dtype != DType::F32)
    opError(n, std::string("ConvTranspose supports float32 only (got ") +
                   dtypeName(n.inputs[0]->type.dtype) + ")");
  auto to3 = [](const std::vector<int64_t>& v, int64_t fill) {
    std::vector<int64_t> r(3 - v.size(), fill);
    r.insert(r.end(), v.begin(), v.end());
    return r;
  };
  std::vector<int64_t> in = to3(d.in, 1), out = to3(d.out, 1), k = to3(d.k, 1),
                       s = to3(d.s, 1), dl = to3(d.d, 1), pb = to3(d.pb, 0);
  std::vector<int64_t> P(CV_COUNT, 0);
  P[CV_DTYPE] = (int64_t)DType::F32;
  P[CV_N] = d.N; P[CV_G] = d.G; P[CV_C] = d.C; P[CV_OC] = d.OC;
  for (int i = 0; i < 3; ++i) {
    P[CV_ID + i] = in[i]; P[CV_OD + i] = out[i]; P[CV_KD + i] = k[i];
    P[CV_SD + i] = s[i]; P[CV_DD + i] = dl[i]; P[CV_PD + i] = pb[i];
  }
  P[CV_HAS_BIAS] = n.input(2) ? 1 : 0;
  P[CV_YIDX] = (int64_t)n.inputs.size();
  const int64_t Cg = d.C / d.G, OCg = d.OC / d.G, KS = k[0] * k[1] * k[2];
  const int64_t IPIX = in[0] * in[1] * in[2];
  int64_t KC = Cg <= 512 ? Cg : (Cg + (Cg + 319) / 320 - 1) / ((Cg + 319) / 320);
  // Output-channel blocks: enough tasks, col block <= ~4 MB.
  int64_t mblocks = 1;
  while (mblocks < OCg && (d.N * d.G * mblocks < 4 ||
                           (OCg + mblocks - 1) / mblocks * KS * IPIX * 4 > (4 << 20)))
    ++mblocks;
  int64_t MB = (OCg + mblocks - 1) / mblocks;
  mblocks = (OCg + MB - 1) / MB;
  P[CV_MB] = MB; P[CV_MBLOCKS] = mblocks; P[CV_KC] = KC;
  P[CV_SLOT] = ((MB * KS * IPIX + 15) / 16 * 16) + KC * 16 + 16;
  Value* w = n.inputs[1];
  if (n.hasAttr("_cube_wshape")) {
    P[CV_W_PACKED] = 1;
  } else if (w->isConstant() && w->type.dtype == DType::F32) {
    int64_t MPB = (MB * KS + 5) / 6;
    auto pk = std::make_shared<Tensor>(TensorType(DType::F32, {d.G * mblocks * MPB * Cg * 6}));
    const float* src = w->constant->as<float>();
    float* dst = pk->as<float>();
    std::fill(dst, dst + pk->type.numel(), 0.0f);
    for (int64_t g = 0; g < d.G; ++g)
      for (int64_t ob = 0; ob < mblocks; ++ob) {
        int64_t oc0 = ob * MB, oc1 = std::min(OCg, oc0 + MB), rows = (oc1 - oc0) * KS;
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t cc = 0; cc < Cg; ++cc)
            dst[(((g * mblocks + ob) * MPB + r / 6) * Cg + cc) * 6 + r % 6] =
                src[(g * Cg + cc) * OCg * KS + oc0 * KS + r];
      }
    n.attrs["_cube_wshape"] = w->type.shape;
    c.replaceConstInput(1, pk);
    P[CV_W_PACKED] = 1;
  }
  KernelCall kc{"conv_transpose", P};
  kc.workspaceBytes = d.N * d.G * mblocks * P[CV_SLOT] * 4 + 64;
  return kc;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "ConvTranspose";
  d.category = OpCategory::Cube;
  d.minInputs = 2;
  d.maxInputs = 3;
  d.infer = inferConvT;
  d.lower = lowerConvT;
  return d;
}());

}  // namespace
}  // namespace atc
