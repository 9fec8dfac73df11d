#include <algorithm>

#include "ops/elementwise/eltwise_common.h"

#include "support/diagnostics.h"
#include "kernels/lib/math_dtype.h"
#include "kernels/lib/math_ops.h"
#include "ops/impl_variant.h"

namespace atc {

int64_t eltComputeType(DType t) {
  switch (t) {
    case DType::F64: return ATCK_CT_F64;
    case DType::F32:
    case DType::F16:
    case DType::BF16: return ATCK_CT_F32;
    case DType::U64: return ATCK_CT_U64;
    default: return ATCK_CT_I64;
  }
}

std::vector<const Value*> presentInputs(const Node& n) {
  std::vector<const Value*> r;
  for (auto* v : n.inputs)
    if (v) r.push_back(v);
  return r;
}

void inferSameAsInput0(Graph&, Node& n) { n.outputs[0]->type = n.inputs[0]->type; }

void inferBroadcast(Node& n, DType dt) {
  std::vector<Shape> shapes;
  for (auto* v : n.inputs) {
    if (!v) continue;
    if (!v->type.shapeKnown) {
      n.outputs[0]->type = TensorType();
      n.outputs[0]->type.dtype = dt == DType::Undefined ? n.inputs[0]->type.dtype : dt;
      return;
    }
    shapes.push_back(v->type.shape);
  }
  n.outputs[0]->type = TensorType(dt == DType::Undefined ? n.inputs[0]->type.dtype : dt,
                                  broadcastShapes(shapes, n));
}

void checkSameDtypes(const Node& n, size_t first, size_t count) {
  DType t = DType::Undefined;
  for (size_t i = first; i < first + count && i < n.inputs.size(); ++i) {
    if (!n.inputs[i]) continue;
    DType d = n.inputs[i]->type.dtype;
    if (t == DType::Undefined) t = d;
    else if (d != t)
      opError(n, std::string("inputs have different dtypes (") + dtypeName(t) + " and " +
                     dtypeName(d) + ")");
  }
}

BroadcastLayout collapseBroadcast(const Node& n, const std::vector<const Shape*>& inputs,
                                  const Shape& os, size_t maxRank) {
  const size_t nin = inputs.size();
  const size_t R = os.size();
  // Per-input element strides aligned to the output dims (0 where broadcast).
  std::vector<std::vector<int64_t>> st(nin, std::vector<int64_t>(R, 0));
  for (size_t k = 0; k < nin; ++k) {
    const Shape& is = *inputs[k];
    if (is.size() > R) opError(n, "element-wise input rank above output rank");
    size_t off = R - is.size();
    int64_t stride = 1;
    for (size_t d = is.size(); d-- > 0;) {
      st[k][off + d] = (is[d] == 1 && os[off + d] != 1) ? 0 : stride;
      stride *= is[d];
    }
  }
  // Drop size-1 dims, then merge adjacent dims where every input is contiguous across them.
  BroadcastLayout r;
  r.strides.resize(nin);
  for (size_t d = 0; d < R; ++d) {
    if (os[d] == 1) continue;
    bool merge = !r.shape.empty();
    for (size_t k = 0; k < nin && merge; ++k)
      if (r.strides[k].back() != st[k][d] * os[d]) merge = false;
    if (merge) {
      r.shape.back() *= os[d];
      for (size_t k = 0; k < nin; ++k) r.strides[k].back() = st[k][d];
    } else {
      r.shape.push_back(os[d]);
      for (size_t k = 0; k < nin; ++k) r.strides[k].push_back(st[k][d]);
    }
  }
  if (r.shape.empty()) {
    r.shape.push_back(1);
    for (size_t k = 0; k < nin; ++k) r.strides[k].push_back(0);
  }
  if (r.shape.size() > maxRank) opError(n, "element-wise rank too large after collapsing");
  for (int64_t d : os) r.total *= d;
  return r;
}

KernelCall makeEltwiseCall(const Node& n, int64_t op, const std::vector<const Value*>& inputs,
                           const TensorType& out, int64_t ct, const EltScalars& s) {
  const size_t nin = inputs.size();
  if (nin == 0 || nin > ATCK_ELT_MAX_IN) internalError("eltwise: bad input count");
  if (ct < 0) ct = eltComputeType(inputs[0]->type.dtype);
  // Implementation mode (docs/implmode.md): variant in bits 8..15 of the compute type.
  if (ct == ATCK_CT_F32 && atck_unary_has_variants(op)) ct |= implVariantOf(n) << ATCK_IV_SHIFT;
  std::vector<const Shape*> inShapes;
  for (auto* v : inputs) inShapes.push_back(&v->type.shape);
  const BroadcastLayout lay = collapseBroadcast(n, inShapes, out.shape, ATCK_ELT_MAX_RANK);
  const std::vector<int64_t>& shape = lay.shape;
  const std::vector<std::vector<int64_t>>& cst = lay.strides;
  const int64_t total = lay.total;
  KernelCall c;
  c.kernel = "eltwise";
  auto& p = c.params;
  p.resize(ATCK_EP_HEADER, 0);
  p[ATCK_EP_OP] = op;
  p[ATCK_EP_CT] = ct;
  p[ATCK_EP_NIN] = (int64_t)nin;
  p[ATCK_EP_RANK] = (int64_t)shape.size();
  p[ATCK_EP_TOTAL] = total;
  p[ATCK_EP_OUTDT] = (int64_t)out.dtype;
  p[ATCK_EP_ALPHA] = paramFromDouble(s.alpha);
  p[ATCK_EP_BETA] = paramFromDouble(s.beta);
  p[ATCK_EP_GAMMA] = paramFromDouble(s.gamma);
  p[ATCK_EP_IA] = s.ia;
  p[ATCK_EP_IB] = s.ib;
  p[ATCK_EP_OUTBUF] = (int64_t)n.inputs.size();
  for (auto* v : inputs) p.push_back((int64_t)v->type.dtype);
  for (auto* v : inputs) {
    size_t i = 0;
    while (i < n.inputs.size() && n.inputs[i] != v) ++i;
    if (i == n.inputs.size()) internalError("eltwise: value is not an input of " + n.name);
    p.push_back((int64_t)i);
  }
  for (int64_t d : shape) p.push_back(d);
  for (size_t k = 0; k < nin; ++k)
    for (int64_t x : cst[k]) p.push_back(x);
  return c;
}

bool eltwiseOverDataShape(const Node& n, KernelCall& c) {
  if (c.kernel != "eltwise" || c.params[ATCK_EP_RANK] != 1 || n.outputs.size() != 1) return false;
  const int64_t nin = c.params[ATCK_EP_NIN], total = c.params[ATCK_EP_TOTAL];
  const int64_t* bix = c.params.data() + ATCK_EP_HEADER + nin;
  const int64_t* stride = bix + nin + 1;  // after the one dim of the flat walk
  int64_t src = -1;
  for (int64_t k = 0; k < nin; ++k) {
    if (n.inputs[bix[k]]->shapeFromData) {
      if (src >= 0 || (stride[k] != 1 && total != 1)) return false;
      src = bix[k];
    } else if (stride[k] != 0) {
      return false;
    }
  }
  const Value* out = n.outputs[0];
  if (src < 0 || !out->shapeFromData || out->type.rank() != n.inputs[src]->type.rank()) return false;
  const std::vector<int64_t> head = {src, dataShapeOffset(n.inputs[src]->type), dataShapeOffset(out->type),
                                     out->type.rank()};
  c.params.insert(c.params.begin(), head.begin(), head.end());
  c.kernel = "eltwise_ds";
  return true;
}

namespace {
// The value whose dims a run-sized value has: up through element-wise ops over run-sized values
// (eltwise_rs copies the dims), to the op that decides them.
const Value* runShapeRoot(const Value* v) {
  for (int guard = 0; guard < 100000 && v->producer; ++guard) {
    const Node* p = v->producer;
    const OpDef* d = OpRegistry::instance().find(p->type);
    if (!d || d->category != OpCategory::Elementwise) break;
    const Value* next = nullptr;
    for (const Value* in : p->inputs)
      if (isRunSized(in)) next = in;
    if (!next) break;
    v = next;
  }
  return v;
}
}  // namespace

bool eltwiseOverRunSized(Node& n, const std::function<KernelCall()>& lower, KernelCall* out) {
  const OpDef* d = OpRegistry::instance().find(n.type);
  if (!d || d->category != OpCategory::Elementwise || n.outputs.size() != 1 || !isRunSized(n.outputs[0])) return false;
  // The run-sized inputs: one value, or several whose dims come from one op (Range -> Cos, Mul -> Add).
  std::vector<int64_t> srcs;
  const Value* root = nullptr;
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    const Value* v = n.inputs[k];
    if (!v) continue;
    if (isRunSized(v)) {
      if (root && runShapeRoot(v) != root) return false;
      root = runShapeRoot(v);
      srcs.push_back((int64_t)k);
    } else if (!v->type.isStatic() || v->type.numel() != 1 || v->shapeFromData) {
      return false;
    }
  }
  Value* o = n.outputs[0];
  if (srcs.empty()) return false;
  for (int64_t k : srcs)
    if (n.inputs[(size_t)k]->type.rank() != o->type.rank()) return false;
  const TensorType outType = o->type;
  Shape flat((size_t)std::max<int64_t>(outType.rank(), 1), 1);
  flat.back() = 2;  // not 1, which would broadcast
  std::vector<std::pair<Value*, TensorType>> saved;  // the stand-in types, undone below
  for (int64_t k : srcs) {
    Value* v = n.inputs[(size_t)k];
    bool seen = false;
    for (auto& sv : saved) seen = seen || sv.first == v;
    if (!seen) saved.push_back({v, v->type});
  }
  saved.push_back({o, outType});
  for (auto& sv : saved) sv.first->type = TensorType(sv.second.dtype, flat);
  KernelCall c;
  try {
    c = lower();
  } catch (...) {
    for (auto& sv : saved) sv.first->type = sv.second;
    throw;
  }
  for (auto& sv : saved) sv.first->type = sv.second;
  if (c.kernel != "eltwise" || c.params[ATCK_EP_RANK] != 1 || c.params[ATCK_EP_TOTAL] != 2) return false;
  const int64_t nin = c.params[ATCK_EP_NIN];
  const int64_t* bix = c.params.data() + ATCK_EP_HEADER + nin;
  const int64_t* stride = bix + nin + 1;
  for (int64_t k = 0; k < nin; ++k)
    if (stride[k] != (std::count(srcs.begin(), srcs.end(), bix[k]) ? 1 : 0)) return false;
  // bufs: inputs, the output, its dims slot, the run-sized input's dims slot (backend/om_builder.cpp)
  const int64_t nodeIns = (int64_t)n.inputs.size();
  const std::vector<int64_t> head = {nodeIns + 1, nodeIns + 2, outType.rank()};
  c.params.insert(c.params.begin(), head.begin(), head.end());
  c.kernel = "eltwise_rs";
  c.sizesOutputs = true;
  c.readsRunSized = true;
  *out = c;
  return true;
}

}  // namespace atc
