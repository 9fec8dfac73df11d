// ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare. Axes come from the "axes"
// attribute (older opsets) or from input 1 (ReduceSum opset 13, the others opset 18),
// keepdims (default 1) and noop_with_empty_axes (empty axes: identity instead of reducing
// everything). An axes input fed at run time (not a constant) gives an output whose shape depends
// on data (Value::shapeFromData, kernel "reduce_axes"), unless its length alone decides the
// shape: no axes (static shape [0]) or as many as X has dims.
#include <algorithm>

#include "support/diagnostics.h"
#include "kernels/lib/math_reduce_codes.h"
#include "ops/elementwise/eltwise_common.h"
#include "ops/reduce/reduce_layout.h"
#include "kernels/lib/math_dtype.h"
#include "ops/impl_variant.h"

namespace atc {
namespace {

struct ReduceRow {
  const char* type;
  int64_t code;
};
const ReduceRow kReduce[] = {
    {"ReduceSum", ATCK_R_SUM},         {"ReduceMean", ATCK_R_MEAN},
    {"ReduceMax", ATCK_R_MAX},         {"ReduceMin", ATCK_R_MIN},
    {"ReduceProd", ATCK_R_PROD},       {"ReduceL1", ATCK_R_L1},
    {"ReduceL2", ATCK_R_L2},           {"ReduceLogSum", ATCK_R_LOGSUM},
    {"ReduceLogSumExp", ATCK_R_LOGSUMEXP}, {"ReduceSumSquare", ATCK_R_SUMSQUARE},
};

// The axes input when it comes at run time and its values decide the output shape, else null.
const Value* runtimeAxes(const Node& n) {
  const Value* a = n.input(1);
  if (!a || a->isConstant()) return nullptr;
  const int64_t rank = n.inputs[0]->type.rank();
  if (a->type.dtype != DType::I64) opError(n, "axes must be int64, got " + a->type.str());
  if (!a->type.isStatic() || a->type.rank() != 1)
    opError(n, "axes fed at run time need a static 1-D shape, got " + a->type.str());
  const int64_t na = a->type.numel();
  if (na > rank) opError(n, "axes has " + std::to_string(na) + " values, X has rank " + std::to_string(rank));
  if (rank > ATCK_REDUCE_MAX_RANK) opError(n, "axes fed at run time need rank <= 16, got " + a->type.str());
  return na == 0 || na == rank ? nullptr : a;
}

// Normalised, sorted reduced axes; empty result with *noop = true means identity.
std::vector<int64_t> reduceAxes(const Node& n, bool* noop) {
  std::vector<int64_t> axes;
  const int64_t rank = n.inputs[0]->type.rank();
  if (const Value* a = n.input(1)) {
    if (!a->isConstant()) {  // its length decides (runtimeAxes): none, or every dim
      for (int64_t i = 0; i < a->type.numel(); ++i) axes.push_back(i);
    } else {
      axes = a->constant->toInts();
    }
  } else {
    axes = n.attrInts("axes");
  }
  *noop = false;
  if (axes.empty()) {
    if (n.attrInt("noop_with_empty_axes", 0)) {
      *noop = true;
      return {};
    }
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  for (auto& x : axes) x = normalizeAxis(x, rank, n);
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) opError(n, "repeated axes");
  return axes;
}

// Run-time axes: the bound of each output dim. keepdims: X's dim (1 where X's is 0); otherwise
// output dim j is X's dim i for some i in [j, j + na], so the largest of those.
Shape runtimeAxesBound(const Shape& in, int64_t na, bool keep) {
  Shape out;
  if (keep) {
    for (int64_t d : in) out.push_back(std::max<int64_t>(d, 1));
    return out;
  }
  for (size_t j = 0; j + na < in.size(); ++j)
    out.push_back(*std::max_element(in.begin() + j, in.begin() + j + na + 1));
  return out;
}

void inferReduce(Graph&, Node& n) {
  const TensorType& in = n.inputs[0]->type;
  if (!in.shapeKnown) opError(n, "input rank must be known");
  bool keep = n.attrInt("keepdims", 1) != 0;
  if (const Value* a = runtimeAxes(n)) {
    if (!in.isStatic()) opError(n, "axes fed at run time need a static input shape, got " + in.str());
    n.outputs[0]->type = TensorType(in.dtype, runtimeAxesBound(in.shape, a->type.numel(), keep));
    n.outputs[0]->shapeFromData = true;
    return;
  }
  bool noop;
  auto axes = reduceAxes(n, &noop);
  if (noop) {
    n.outputs[0]->type = in;
    return;
  }
  Shape out;
  for (int64_t d = 0; d < in.rank(); ++d) {
    bool red = std::binary_search(axes.begin(), axes.end(), d);
    if (!red) out.push_back(in.shape[d]);
    else if (keep) out.push_back(1);
  }
  n.outputs[0]->type = TensorType(in.dtype, out);
}

// The reduction's op code with the implementation variant: high_precision (docs/implmode.md)
// accumulates float32 data in double.
int64_t reduceOpCode(const Node& n, int64_t code) {
  const TensorType& in = n.inputs[0]->type;
  if (eltComputeType(in.dtype) == ATCK_CT_F32 && implVariantOf(n) == ATCK_IV_PREC)
    code |= ATCK_IV_PREC << ATCK_IV_SHIFT;
  return code;
}

KernelCall lowerRuntimeAxes(const Node& n, const Value* axes, int64_t code) {
  const TensorType& in = n.inputs[0]->type;
  KernelCall c;
  c.kernel = "reduce_axes";
  auto& p = c.params;
  p.resize(ATCK_RA_HEADER, 0);
  p[ATCK_RA_OP] = reduceOpCode(n, code);
  p[ATCK_RA_CT] = eltComputeType(in.dtype);
  p[ATCK_RA_INDT] = (int64_t)in.dtype;
  p[ATCK_RA_OUTDT] = (int64_t)n.outputs[0]->type.dtype;
  p[ATCK_RA_RANK] = in.rank();
  p[ATCK_RA_NAXES] = axes->type.numel();
  p[ATCK_RA_KEEP] = n.attrInt("keepdims", 1) != 0;
  p[ATCK_RA_AT] = dataShapeOffset(n.outputs[0]->type);
  p[ATCK_RA_TASKS] = std::clamp<int64_t>(in.numel() / ATCK_REDUCE_BLOCK, 1, 16);
  for (int64_t d : in.shape) p.push_back(d);
  return c;
}

KernelCall lowerReduce(const Node& n, int64_t code) {
  const TensorType& in = n.inputs[0]->type;
  if (const Value* a = runtimeAxes(n)) return lowerRuntimeAxes(n, a, code);
  bool noop;
  auto axes = reduceAxes(n, &noop);
  if (noop) return makeEltwiseCall(n, ATCK_E_COPY, {n.inputs[0]}, n.outputs[0]->type);
  ReduceLayout L = collapseReduce(in.shape, axes);
  const auto &ks = L.keptShape, &kst = L.keptStrides, &rs = L.redShape, &rst = L.redStrides;
  const int64_t nred = L.nred, nout = L.nout;
  if (ks.size() + rs.size() > 2 * ATCK_REDUCE_MAX_RANK) internalError("reduce: rank too large");
  KernelCall c;
  c.kernel = "reduce";
  auto& p = c.params;
  p.resize(ATCK_RP_HEADER, 0);
  p[ATCK_RP_OP] = reduceOpCode(n, code);
  p[ATCK_RP_CT] = eltComputeType(in.dtype);
  p[ATCK_RP_INDT] = (int64_t)in.dtype;
  p[ATCK_RP_OUTDT] = (int64_t)n.outputs[0]->type.dtype;
  p[ATCK_RP_NOUT] = nout;
  p[ATCK_RP_NRED] = nred;
  p[ATCK_RP_KRANK] = (int64_t)ks.size();
  p[ATCK_RP_RRANK] = (int64_t)rs.size();
  p[ATCK_RP_INNER] = (!ks.empty() && kst.back() == 1) ? ks.back() : 1;
  p[ATCK_RP_OUTBUF] = (int64_t)n.inputs.size();
  p[ATCK_RP_PER_TASK] = std::max<int64_t>(1, ATCK_REDUCE_BLOCK / std::max<int64_t>(nred, 1));
  for (auto v : ks) p.push_back(v);
  for (auto v : kst) p.push_back(v);
  for (auto v : rs) p.push_back(v);
  for (auto v : rst) p.push_back(v);
  return c;
}

OpDef makeReduce(const ReduceRow& r) {
  OpDef d;
  d.type = r.type;
  d.category = OpCategory::Reduce;
  d.minInputs = 1;
  d.maxInputs = 2;
  d.infer = inferReduce;
  int64_t code = r.code;
  d.lower = [code](LowerCtx& c) { return lowerReduce(c.node, code); };
  return d;
}

const bool kRegistered = [] {
  for (const auto& r : kReduce) OpRegistry::instance().add(makeReduce(r));
  return true;
}();

}  // namespace
}  // namespace atc
