// ConstantOfShape (fill kernel) and Range (range kernel). Shape-giving inputs fed at run time
// make the output run-sized (fill_rt, range_rt: kernels/lib/shape_rt.cpp).
#include <cmath>

#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

DType fillType(const Node& n) {
  TensorPtr v = n.attrTensor("value");
  return v ? v->type.dtype : DType::F32;
}

void inferConstantOfShape(Graph&, Node& n) {
  int64_t len = 0;
  if (dm::runTimeShapeInput(n, 0, "input", {DType::I64}, &len)) {
    dm::setRunSized(n, 0, fillType(n), Shape((size_t)len, -1));
    return;
  }
  auto shape = dm::constInts(n, 0, "input");
  for (auto d : shape)
    if (d < 0) opError(n, "negative dim in shape");
  TensorPtr v = n.attrTensor("value");
  DType dt = v ? v->type.dtype : DType::F32;
  n.outputs[0]->type = TensorType(dt, shape);
}

KernelCall lowerConstantOfShape(LowerCtx& c) {
  TensorPtr v = c.node.attrTensor("value");
  const TensorType& t = c.node.outputs[0]->type;
  int64_t bits = v ? dm::elementBits(*v) : 0;
  if (isRunSized(c.node.outputs[0])) {
    KernelCall k{"fill_rt", {(int64_t)dtypeSize(t.dtype), bits, c.node.inputs[0]->type.numel()}};
    k.sizesOutputs = true;
    return k;
  }
  return KernelCall{"fill", {(int64_t)dtypeSize(t.dtype), t.numel(), bits, 1}};
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "ConstantOfShape";
  d.category = OpCategory::DataMove;
  d.infer = inferConstantOfShape;
  d.lower = lowerConstantOfShape;
  return d;
}());

struct RangeSpec {
  DType dt;
  int64_t n;
  double fs, fd;
  int64_t is, id;
};

RangeSpec rangeSpec(const Node& n) {
  RangeSpec r;
  r.dt = n.inputs[0]->type.dtype;
  auto s = dm::constFloats(n, 0, "start"), l = dm::constFloats(n, 1, "limit"), d = dm::constFloats(n, 2, "delta");
  if (s.size() != 1 || l.size() != 1 || d.size() != 1) opError(n, "start, limit and delta must be scalars");
  if (d[0] == 0) opError(n, "delta must not be 0");
  r.fs = s[0];
  r.fd = d[0];
  // The element count in a wide type first: a huge or NaN count is an error, not a wrapped
  // (undefined) conversion.
  if (isFloat(r.dt)) {
    double cnt = std::ceil((l[0] - s[0]) / d[0]);
    if (std::isnan(cnt)) opError(n, "start, limit and delta give no element count (NaN or inf)");
    if (cnt > 4e18) opError(n, "start, limit and delta give more than 4e18 elements");
    r.n = (int64_t)std::max(0.0, cnt);
    r.is = paramFromDouble(s[0]);
    r.id = paramFromDouble(d[0]);
  } else {
    int64_t is = n.inputs[0]->constant->intAt(0), il = n.inputs[1]->constant->intAt(0),
            id = n.inputs[2]->constant->intAt(0);
    __int128 num = (__int128)il - is;
    __int128 q = num / id;
    if (q * id != num && ((num > 0) == (id > 0))) ++q;  // ceil
    if (q > (__int128)4000000000000000000LL) opError(n, "start, limit and delta give more than 4e18 elements");
    r.n = q < 0 ? 0 : (int64_t)q;
    r.is = is;
    r.id = id;
  }
  return r;
}

// Any of start, limit, delta fed at run time: range_rt.
bool runTimeRange(const Node& n) {
  bool rt = false;
  for (size_t i = 0; i < 3; ++i) {
    const Value* v = n.inputs[i];
    if (v->isConstant()) continue;
    if (!v->type.isStatic() || v->type.numel() != 1 || v->shapeFromData)
      opError(n, "start, limit and delta must be scalars");
    rt = true;
  }
  return rt;
}

void inferRange(Graph&, Node& n) {
  DType t = n.inputs[0]->type.dtype;
  if (t != DType::F32 && t != DType::F64 && t != DType::F16 && t != DType::BF16 && t != DType::I64 &&
      t != DType::I32 && t != DType::I16 && t != DType::I8 && t != DType::U8)
    opError(n, std::string("unsupported dtype ") + dtypeName(t));
  // Range-27's stash_type (float16 / bfloat16 computed in float or double): the kernels compute
  // in double and round once, within one rounding of either.
  if (n.hasAttr("stash_type") && n.attrInt("stash_type", 1) != 1 && n.attrInt("stash_type", 1) != 11)
    opError(n, "stash_type must be 1 (float) or 11 (double)");
  if (runTimeRange(n)) {
    dm::setRunSized(n, 0, t, {-1});
    return;
  }
  n.outputs[0]->type = TensorType(t, {rangeSpec(n).n});
}

KernelCall lowerRange(LowerCtx& c) {
  if (runTimeRange(c.node)) {
    KernelCall k{"range_rt", {(int64_t)c.node.inputs[0]->type.dtype}};
    k.sizesOutputs = true;
    return k;
  }
  RangeSpec r = rangeSpec(c.node);
  return KernelCall{"range", {(int64_t)r.dt, r.n, r.is, r.id, 3}};
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "Range";
  d.category = OpCategory::DataMove;
  d.minInputs = d.maxInputs = 3;
  d.infer = inferRange;
  d.lower = lowerRange;
  return d;
}());

}  // namespace
}  // namespace atc
