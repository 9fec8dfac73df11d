// ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare. Axes come from the "axes"
// attribute (older opsets) or from input 1 (ReduceSum opset 13, the others opset 18),
// which must then be a compile-time constant. keepdims (default 1) and
// noop_with_empty_axes (empty axes: identity instead of reducing everything).
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

// Normalised, sorted reduced axes; empty result with *noop = true means identity.
std::vector<int64_t> reduceAxes(const Node& n, bool* noop) {
  std::vector<int64_t> axes;
  const int64_t rank = n.inputs[0]->type.rank();
  if (const Value* a = n.input(1)) {
    if (!a->isConstant()) opError(n, "axes must be a compile-time constant");
    axes = a->constant->toInts();
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

void inferReduce(Graph&, Node& n) {
  const TensorType& in = n.inputs[0]->type;
  if (!in.shapeKnown) opError(n, "input rank must be known");
  bool noop;
  auto axes = reduceAxes(n, &noop);
  if (noop) {
    n.outputs[0]->type = in;
    return;
  }
  bool keep = n.attrInt("keepdims", 1) != 0;
  Shape out;
  for (int64_t d = 0; d < in.rank(); ++d) {
    bool red = std::binary_search(axes.begin(), axes.end(), d);
    if (!red) out.push_back(in.shape[d]);
    else if (keep) out.push_back(1);
  }
  n.outputs[0]->type = TensorType(in.dtype, out);
}

KernelCall lowerReduce(const Node& n, int64_t code) {
  const TensorType& in = n.inputs[0]->type;
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
  p[ATCK_RP_OP] = code;
  // high_precision (docs/implmode.md): float32 data accumulated in double.
  if (eltComputeType(in.dtype) == ATCK_CT_F32 && implVariantOf(n) == ATCK_IV_PREC)
    p[ATCK_RP_OP] |= ATCK_IV_PREC << ATCK_IV_SHIFT;
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
