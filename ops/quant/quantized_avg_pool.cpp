// QuantizedAvgPool (internal op, made by QdqConvFoldPass from DequantizeLinear -> AveragePool /
// GlobalAveragePool -> QuantizeLinear of a QDQ model, passes/quant/qdq_datamove_fold.cpp):
// average pooling of an 8-bit tensor, requantized, kernel "avgpool_q8" (kernels/lib/pool_int.cpp).
//   inputs: X (uint8 / int8, [N, C, spatial...] with 1-3 spatial dims), x_scale (float32
//           scalar), x_zero_point (X's type), y_scale (float32 scalar), y_zero_point (uint8 /
//           int8: Y's type); all but X constants
//   attributes: AveragePool's (kernel_shape, strides, pads, dilations, ceil_mode,
//           count_include_pad, auto_pad), or global=1 (one window over each plane)
//   Y = saturate(rint((float(sum (X - x_zp)) * x_scale / count) / y_scale) + y_zp), the sum of
//       the window's taps inside the input exact in int64, count as AveragePool counts
#include "ops/cube/conv_geometry.h"
#include "ops/quant/quant_util.h"

namespace atc {
namespace {

WindowGeom qavgGeometry(const Node& n) {
  const TensorType& xt = n.inputs[0]->type;
  if (!isQuant8(xt.dtype)) opError(n, "X must be uint8 or int8");
  if (!xt.isStatic() || xt.rank() < 3 || xt.rank() > 5)
    opError(n, "X must have a static shape [N, C, 1-3 spatial dims]");
  const std::vector<int64_t> in(xt.shape.begin() + 2, xt.shape.end());
  for (size_t i : {(size_t)1, (size_t)2, (size_t)3, (size_t)4}) {
    const Value* v = n.inputs[i];
    const bool scale = i == 1 || i == 3;
    if (!v || !v->isConstant() || v->type.numel() != 1 ||
        (scale ? v->type.dtype != DType::F32 : !isQuant8(v->type.dtype)))
      opError(n, std::string(scale ? "scales must be float32" : "zero points must be uint8 or int8") +
                     " constants holding one value");
  }
  if (n.inputs[2]->type.dtype != xt.dtype) opError(n, "x_zero_point's type differs from X's");
  if (n.attrInt("global", 0)) {
    WindowGeom g;
    g.nd = (int)in.size();
    g.in = g.kernel = in;
    g.stride = g.dil = std::vector<int64_t>(in.size(), 1);
    g.padBegin = g.padEnd = std::vector<int64_t>(in.size(), 0);
    g.out = std::vector<int64_t>(in.size(), 1);
    return g;
  }
  const std::vector<int64_t> k = n.attrInts("kernel_shape");
  if (k.size() != in.size()) opError(n, "kernel_shape must have one value per spatial dim");
  return windowGeometry(n, in, k, n.attrInt("ceil_mode", 0) != 0);
}

// Params: kernels/lib/pool_int.cpp, kernel avgpool_q8.
KernelCall lowerQuantizedAvgPool(LowerCtx& c) {
  const Node& n = c.node;
  const WindowGeom g = qavgGeometry(n);
  const Shape& x = n.inputs[0]->type.shape;
  std::vector<int64_t> P = {(int64_t)n.inputs[0]->type.dtype, (int64_t)n.inputs[4]->type.dtype, x[0] * x[1]};
  for (const std::vector<int64_t>* v : {&g.in, &g.out, &g.kernel, &g.stride, &g.dil, &g.padBegin, &g.padEnd}) {
    const int64_t fill = v == &g.padBegin || v == &g.padEnd ? 0 : 1;
    for (int i = 0; i < 3; ++i) P.push_back(i < g.nd ? (*v)[i] : fill);
  }
  P.push_back(n.attrInt("count_include_pad", 0) != 0);
  P.push_back(paramFromDouble(n.inputs[1]->constant->floatAt(0)));
  P.push_back(n.inputs[2]->constant->intAt(0));
  P.push_back(paramFromDouble(n.inputs[3]->constant->floatAt(0)));
  P.push_back(n.inputs[4]->constant->intAt(0));
  return makeCall("avgpool_q8", P);
}

void inferQuantizedAvgPool(Graph&, Node& n) {
  const WindowGeom g = qavgGeometry(n);
  Shape out = {n.inputs[0]->type.shape[0], n.inputs[0]->type.shape[1]};
  out.insert(out.end(), g.out.begin(), g.out.end());
  n.outputs[0]->type = TensorType(n.inputs[4]->type.dtype, out);
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "QuantizedAvgPool";
  d.internal = true;
  d.minInputs = d.maxInputs = 5;
  d.infer = inferQuantizedAvgPool;
  d.lower = lowerQuantizedAvgPool;
  return d;
}());

}  // namespace
}  // namespace atc
