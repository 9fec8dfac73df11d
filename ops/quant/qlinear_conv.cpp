// ConvInteger (int32 output) and QLinearConv (requantized int8/uint8 output, optional int32
// bias): kernel "qconv" (kernels/lib/qconv.cpp). NCHW with 1 to 3 spatial dims, groups,
// strides, dilations, pads and auto_pad as Conv. The input's zero point and scale are per
// tensor; the weights' are per tensor or per output channel.
#include "ops/cube/conv_geometry.h"
#include "ops/quant/quant_util.h"

namespace atc {
namespace {

struct QConvDims {
  int64_t N = 0, C = 0, OC = 0, G = 1;
  WindowGeom geom;
  Shape out;
};

QConvDims qconvDims(const Node& n, size_t xi, size_t wi) {
  checkQuant8(n, xi, "x");
  checkQuant8(n, wi, "w");
  const Shape& xs = n.inputs[xi]->type.shape;
  const Shape& ws = n.inputs[wi]->type.shape;
  if (xs.size() < 3 || xs.size() > 5) opError(n, "x must be N x C x D1 (x D2 (x D3)): rank 3 to 5");
  if (ws.size() != xs.size()) opError(n, "w must have the rank of x");
  QConvDims d;
  d.N = xs[0];
  d.C = xs[1];
  d.OC = ws[0];
  d.G = n.attrInt("group", 1);
  if (d.G < 1 || d.C % d.G != 0 || d.OC % d.G != 0)
    opError(n, "group " + std::to_string(d.G) + " must divide the input (" + std::to_string(d.C) +
                   ") and output (" + std::to_string(d.OC) + ") channels");
  if (ws[1] * d.G != d.C)
    opError(n, "w has " + std::to_string(ws[1]) + " input channels per group; x has " + std::to_string(d.C) +
                   " channels in " + std::to_string(d.G) + " groups");
  std::vector<int64_t> in(xs.begin() + 2, xs.end()), k(ws.begin() + 2, ws.end());
  if (n.hasAttr("kernel_shape") && n.attrInts("kernel_shape") != k)
    opError(n, "kernel_shape differs from the weights' spatial shape");
  d.geom = windowGeometry(n, in, k, false);
  d.out = {d.N, d.OC};
  d.out.insert(d.out.end(), d.geom.out.begin(), d.geom.out.end());
  return d;
}

std::vector<int64_t> qconvParams(const Node& n, const QConvDims& d, size_t xi, size_t wi, int64_t bi) {
  std::vector<int64_t> P(QC_COUNT, 0);
  const WindowGeom& g = d.geom;
  const int off = 3 - g.nd;  // spatial dims right-aligned to (D, H, W); missing ones are 1
  auto at = [&](const std::vector<int64_t>& v, int i, int64_t def) { return i >= off ? v[i - off] : def; };
  P[QC_N] = d.N;
  P[QC_C] = d.C;
  P[QC_OC] = d.OC;
  P[QC_G] = d.G;
  for (int i = 0; i < 3; ++i) {
    P[QC_ID + i] = at(g.in, i, 1);
    P[QC_OD + i] = at(g.out, i, 1);
    P[QC_KD + i] = at(g.kernel, i, 1);
    P[QC_SD + i] = at(g.stride, i, 1);
    P[QC_DD + i] = at(g.dil, i, 1);
    P[QC_PD + i] = at(g.padBegin, i, 0);
  }
  P[QC_XDT] = (int64_t)n.inputs[xi]->type.dtype;
  P[QC_WDT] = (int64_t)n.inputs[wi]->type.dtype;
  P[QC_YDT] = (int64_t)n.outputs[0]->type.dtype;
  P[QC_XBUF] = (int64_t)xi;
  P[QC_WBUF] = (int64_t)wi;
  P[QC_BBUF] = bi;
  P[QC_YBUF] = (int64_t)n.inputs.size();
  P[QC_YZBUF] = P[QC_YSBUF] = -1;
  return P;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "ConvInteger";
  d.minInputs = 2;
  d.maxInputs = 4;
  d.infer = [](Graph&, Node& n) {
    QConvDims c = qconvDims(n, 0, 1);
    integerParams(n, "x", "w", 0, c.OC);
    n.outputs[0]->type = TensorType(DType::I32, c.out);
  };
  d.lower = [](LowerCtx& lc) {
    QConvDims c = qconvDims(lc.node, 0, 1);
    std::vector<int64_t> P = qconvParams(lc.node, c, 0, 1, -1);
    P[QC_MODE] = QO_INT32;
    integerParams(lc.node, "x", "w", 0, c.OC, P.data() + QC_XW, P.data() + QC_WW);
    return makeCall("qconv", P);
  };
  return d;
}());

// Inputs: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, [B].
ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "QLinearConv";
  d.minInputs = 8;
  d.maxInputs = 9;
  d.infer = [](Graph&, Node& n) {
    QConvDims c = qconvDims(n, 0, 3);
    const DType yt = qlinearParams(n, "x", "w", 0, c.OC);
    const Value* b = quantInput(n, 8);
    if (b && (b->type.dtype != DType::I32 || !b->type.shapeKnown || b->type.shape != Shape{c.OC}))
      opError(n, "the bias must be int32 of shape [" + std::to_string(c.OC) + "]");
    n.outputs[0]->type = TensorType(yt, c.out);
  };
  d.lower = [](LowerCtx& lc) {
    QConvDims c = qconvDims(lc.node, 0, 3);
    std::vector<int64_t> P = qconvParams(lc.node, c, 0, 3, quantInput(lc.node, 8) ? 8 : -1);
    P[QC_MODE] = QO_REQUANT;
    qlinearParams(lc.node, "x", "w", 0, c.OC, P.data() + QC_XW, P.data() + QC_WW, P.data() + QC_YZBUF);
    const int64_t plane = P[QC_OD] * P[QC_OH] * P[QC_OW];
    P[QC_SLOT] = ((plane * 4 + 63) / 64) * 64;
    KernelCall kc = makeCall("qconv", P);
    kc.workspaceBytes = c.N * c.OC * P[QC_SLOT] + 64;
    return kc;
  };
  return d;
}());

}  // namespace
}  // namespace atc
