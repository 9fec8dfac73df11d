// Col2Im (opset 18): kernel col2im (kernels/lib/col2im.cpp). image_shape fed at run time makes the
// output run-sized (docs/dynamic-shapes.md); block_shape may be fed at run time too (it decides
// the channel count, so the output is then run-sized as well).
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

struct Col2ImAttrs {
  int64_t nd = 0;
  std::vector<int64_t> dil, pads, strides;
};

Col2ImAttrs attrsOf(const Node& n) {
  Col2ImAttrs a;
  const Value* img = n.inputs[1];
  if (!img->type.isStatic() || img->type.rank() != 1 || img->type.numel() < 1 || img->type.numel() > 6)
    opError(n, "image_shape must hold 1 to 6 values");
  a.nd = img->type.numel();
  a.dil = n.hasAttr("dilations") ? n.attrInts("dilations") : std::vector<int64_t>((size_t)a.nd, 1);
  a.pads = n.hasAttr("pads") ? n.attrInts("pads") : std::vector<int64_t>((size_t)(2 * a.nd), 0);
  a.strides = n.hasAttr("strides") ? n.attrInts("strides") : std::vector<int64_t>((size_t)a.nd, 1);
  if ((int64_t)a.dil.size() != a.nd || (int64_t)a.pads.size() != 2 * a.nd || (int64_t)a.strides.size() != a.nd)
    opError(n, "dilations, pads and strides must match image_shape's length");
  for (size_t i = 0; i < a.dil.size(); ++i)
    if (a.dil[i] < 1 || a.strides[i] < 1) opError(n, "dilations and strides must be positive");
  for (int64_t p : a.pads)
    if (p < 0) opError(n, "pads must not be negative");
  return a;
}

bool runTime(const Node& n) { return !n.inputs[1]->isConstant() || !n.inputs[2]->isConstant(); }

void inferCol2Im(Graph&, Node& n) {
  const Shape& x = dm::staticShape(n, 0);
  const DType dt = n.inputs[0]->type.dtype;
  if (dt != DType::F32 && dt != DType::F64) opError(n, std::string("unsupported dtype ") + dtypeName(dt));
  if (x.size() != 3) opError(n, "input must be [N, C * prod(block_shape), L]");
  const Col2ImAttrs a = attrsOf(n);
  if (n.inputs[1]->type.dtype != DType::I64 || n.inputs[2]->type.dtype != DType::I64 ||
      n.inputs[2]->type.numel() != a.nd)
    opError(n, "image_shape and block_shape must be int64 of one length");
  if (runTime(n)) {
    dm::setRunSized(n, 0, dt, Shape((size_t)(a.nd + 2), -1));
    return;
  }
  auto img = dm::constInts(n, 1, "image_shape"), blk = dm::constInts(n, 2, "block_shape");
  int64_t kprod = 1, blocks = 1;
  for (int64_t d = 0; d < a.nd; ++d) {
    if (img[(size_t)d] <= 0 || blk[(size_t)d] <= 0) opError(n, "image_shape and block_shape must be positive");
    kprod *= blk[(size_t)d];
    const size_t s = (size_t)d;
    blocks *= (img[s] + a.pads[s] + a.pads[s + (size_t)a.nd] - a.dil[s] * (blk[s] - 1) - 1) / a.strides[s] + 1;
  }
  if (x[1] % kprod != 0 || blocks != x[2]) opError(n, "the input's dims do not match image_shape and block_shape");
  Shape out = {x[0], x[1] / kprod};
  out.insert(out.end(), img.begin(), img.end());
  n.outputs[0]->type = TensorType(dt, out);
}

KernelCall lowerCol2Im(LowerCtx& c) {
  const Node& n = c.node;
  const Shape& x = n.inputs[0]->type.shape;
  const Col2ImAttrs a = attrsOf(n);
  const bool rt = isRunSized(n.outputs[0]);
  KernelCall k{"col2im", {(int64_t)n.inputs[0]->type.dtype, x[0], x[1], x[2], a.nd, rt ? 1 : 0}};
  for (const auto* v : {&a.dil, &a.pads, &a.strides}) k.params.insert(k.params.end(), v->begin(), v->end());
  k.sizesOutputs = rt;
  return k;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "Col2Im";
  d.category = OpCategory::DataMove;
  d.minInputs = d.maxInputs = 3;
  d.infer = inferCol2Im;
  d.lower = lowerCol2Im;
  return d;
}());

}  // namespace
}  // namespace atc
