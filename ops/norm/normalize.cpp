// Normalisations on the "normalize" kernel: InstanceNormalization (per N, C over the
// spatial dims, per-channel scale/B), LayerNormalization (opset 17: over dims >= axis,
// elementwise scale/B, optional Mean / InvStdDev outputs), MeanVarianceNormalization
// (axes, default [0, 2, 3]; (X - mean) / (sqrt(var) + 1e-9) as the ONNX function body)
// LpNormalization (p = 1 or 2 along axis; 0 where the norm is 0, as ONNX Runtime) and
// RMSNormalization (opset 23: x / sqrt(mean(x^2) + epsilon) * scale over dims >= axis).
#include <algorithm>

#include "support/diagnostics.h"
#include "kernels/lib/math_norm_codes.h"
#include "ops/elementwise/eltwise_common.h"
#include "ops/reduce/reduce_layout.h"
#include "ops/impl_variant.h"

namespace atc {
namespace {

struct NormSpec {
  int64_t kind = ATCK_NK_MEANVAR;
  double eps = 0;
  bool epsOnStd = false;
  int64_t affine = ATCK_NA_NONE;
  int64_t C = 1;
  int64_t scaleBuf = -1, biasBuf = -1;
  DType affineDt = DType::F32;
  int64_t meanBuf = -1, invBuf = -1;
  DType statDt = DType::F32;
};

KernelCall makeNormCall(const Node& n, const std::vector<int64_t>& sortedAxes, const NormSpec& s) {
  const TensorType& in = n.inputs[0]->type;
  if (!isFloat(in.dtype)) opError(n, "input must be a floating-point tensor");
  ReduceLayout L = collapseReduce(in.shape, sortedAxes);
  KernelCall c;
  c.kernel = "normalize";
  auto& p = c.params;
  p.resize(ATCK_NP_HEADER, 0);
  p[ATCK_NP_KIND] = s.kind;
  if (implVariantOf(n) == ATCK_IV_PREC) p[ATCK_NP_KIND] |= ATCK_IV_PREC << ATCK_IV_SHIFT;  // docs/implmode.md
  p[ATCK_NP_DT] = (int64_t)in.dtype;
  p[ATCK_NP_K] = (int64_t)L.keptShape.size();
  p[ATCK_NP_R] = (int64_t)L.redShape.size();
  p[ATCK_NP_NOUT] = L.nout;
  p[ATCK_NP_NRED] = L.nred;
  p[ATCK_NP_EPS] = paramFromDouble(s.eps);
  p[ATCK_NP_EPS_ON_STD] = s.epsOnStd ? 1 : 0;
  p[ATCK_NP_AFFINE] = s.affine;
  p[ATCK_NP_C] = s.C;
  p[ATCK_NP_SCALEBUF] = s.scaleBuf;
  p[ATCK_NP_BIASBUF] = s.biasBuf;
  p[ATCK_NP_DTAFFINE] = (int64_t)s.affineDt;
  p[ATCK_NP_OUTBUF] = (int64_t)n.inputs.size();
  p[ATCK_NP_MEANBUF] = s.meanBuf;
  p[ATCK_NP_INVSTDBUF] = s.invBuf;
  p[ATCK_NP_DTSTAT] = (int64_t)s.statDt;
  p[ATCK_NP_PER_TASK] = std::max<int64_t>(1, ATCK_NORM_BLOCK / std::max<int64_t>(L.nred, 1));
  // TbeReduceElemwiseFusionPass: residual Add folded in (input _pre_add, laid out like X) and
  // an activation on the output (_epi_act code, _epi_alpha, _epi_beta).
  p[ATCK_NP_ADDBUF] = -1;
  if (n.hasAttr("_pre_add")) {
    int64_t i = n.attrInt("_pre_add", 0);
    const Value* r = n.input((size_t)i);
    if (!r || !(r->type == in)) opError(n, "fused residual input must have X's type and shape");
    p[ATCK_NP_ADDBUF] = i;
  }
  p[ATCK_NP_ACT] = n.hasAttr("_epi_act") ? n.attrInt("_epi_act", 0) + 1 : 0;
  p[ATCK_NP_ACT_A] = paramFromDouble(n.attrFloat("_epi_alpha", 0.0));
  p[ATCK_NP_ACT_B] = paramFromDouble(n.attrFloat("_epi_beta", 0.0));
  for (auto v : L.keptShape) p.push_back(v);
  for (auto v : L.keptStrides) p.push_back(v);
  for (auto v : L.redShape) p.push_back(v);
  for (auto v : L.redStrides) p.push_back(v);
  return c;
}

void requireRank(const Node& n, int64_t minRank) {
  const TensorType& x = n.inputs[0]->type;
  if (!x.shapeKnown) opError(n, "input rank must be known");
  if (x.rank() < minRank) opError(n, "input rank must be >= " + std::to_string(minRank));
}

const bool kReg0 = [] {
  OpRegistry::instance().add([] {
  OpDef d;
  d.type = "InstanceNormalization";
  d.category = OpCategory::Reduce;
  d.minInputs = 3;
  d.maxInputs = 4;  // 3: residual folded in by TbeReduceElemwiseFusionPass (_pre_add)
  d.infer = [](Graph&, Node& n) {
    requireRank(n, 3);
    const TensorType& x = n.inputs[0]->type;
    for (int i = 1; i < 3; ++i)
      if (x.isStatic() && n.inputs[i]->type.isStatic() && n.inputs[i]->type.numel() != x.shape[1])
        opError(n, "scale and B must have C elements");
    n.outputs[0]->type = x;
  };
  d.lower = [](LowerCtx& c) {
    const Node& n = c.node;
    const TensorType& x = n.inputs[0]->type;
    std::vector<int64_t> axes;
    for (int64_t i = 2; i < x.rank(); ++i) axes.push_back(i);
    NormSpec s;
    s.eps = n.attrFloat("epsilon", 1e-5);
    s.affine = ATCK_NA_PER_KEPT;
    s.C = x.shape[1];
    s.scaleBuf = 1;
    s.biasBuf = 2;
    s.affineDt = n.inputs[1]->type.dtype;
    return makeNormCall(n, axes, s);
  };
  return d;
}());
  return true;
}();

const bool kReg1 = [] {
  OpRegistry::instance().add([] {
  OpDef d;
  d.type = "LayerNormalization";
  d.category = OpCategory::Reduce;
  d.minInputs = 2;
  d.maxInputs = 4;  // 3: residual folded in by TbeReduceElemwiseFusionPass (_pre_add)
  d.maxOutputs = 3;
  d.infer = [](Graph&, Node& n) {
    requireRank(n, 1);
    const TensorType& x = n.inputs[0]->type;
    int64_t axis = normalizeAxis(n.attrInt("axis", -1), x.rank(), n);
    int64_t nred = 1;
    for (int64_t i = axis; i < x.rank(); ++i) nred *= x.shape[i];
    for (int i = 1; i < 3; ++i) {
      const Value* v = n.input(i);
      if (v && x.isStatic() && v->type.isStatic() && v->type.numel() != nred)
        opError(n, "Scale and B must have the normalised shape (" + std::to_string(nred) +
                       " elements); other broadcasts are not supported");
    }
    n.outputs[0]->type = x;
    DType stat = DType::F32;
    if (n.hasAttr("stash_type") && n.attrInt("stash_type", 1) != 1)
      opError(n, "only stash_type=1 (float32) is supported");
    Shape ss = x.shape;
    for (int64_t i = axis; i < x.rank(); ++i) ss[i] = 1;
    for (size_t i = 1; i < n.outputs.size(); ++i) n.outputs[i]->type = TensorType(stat, ss);
  };
  d.lower = [](LowerCtx& c) {
    const Node& n = c.node;
    const TensorType& x = n.inputs[0]->type;
    int64_t axis = normalizeAxis(n.attrInt("axis", -1), x.rank(), n);
    std::vector<int64_t> axes;
    for (int64_t i = axis; i < x.rank(); ++i) axes.push_back(i);
    NormSpec s;
    s.eps = n.attrFloat("epsilon", 1e-5);
    s.affine = ATCK_NA_PER_RED;
    s.scaleBuf = 1;
    s.biasBuf = n.input(2) ? 2 : -1;
    s.affineDt = n.inputs[1]->type.dtype;
    if (n.input(2) && n.inputs[2]->type.dtype != s.affineDt) opError(n, "Scale and B dtypes differ");
    int64_t nin = (int64_t)n.inputs.size();
    if (n.outputs.size() > 1) s.meanBuf = nin + 1;
    if (n.outputs.size() > 2) s.invBuf = nin + 2;
    s.statDt = DType::F32;
    return makeNormCall(n, axes, s);
  };
  return d;
}());
  return true;
}();

// RMSNormalization (opset 23): Y = X / sqrt(mean(X^2 over dims >= axis) + epsilon) * scale,
// scale of the normalised shape (as LayerNormalization's).
const bool kRegRms = [] {
  OpRegistry::instance().add([] {
    OpDef d;
    d.type = "RMSNormalization";
    d.category = OpCategory::Reduce;
    d.minInputs = d.maxInputs = 2;
    d.infer = [](Graph&, Node& n) {
      requireRank(n, 1);
      const TensorType& x = n.inputs[0]->type;
      int64_t axis = normalizeAxis(n.attrInt("axis", -1), x.rank(), n);
      int64_t nred = 1;
      for (int64_t i = axis; i < x.rank(); ++i) nred *= x.shape[i];
      const Value* sc = n.inputs[1];
      if (x.isStatic() && sc->type.isStatic() && sc->type.numel() != nred)
        opError(n, "scale must have the normalised shape (" + std::to_string(nred) +
                       " elements); other broadcasts are not supported");
      if (n.hasAttr("stash_type") && n.attrInt("stash_type", 1) != 1)
        opError(n, "only stash_type=1 (float32) is supported");
      n.outputs[0]->type = x;
    };
    d.lower = [](LowerCtx& c) {
      const Node& n = c.node;
      const TensorType& x = n.inputs[0]->type;
      int64_t axis = normalizeAxis(n.attrInt("axis", -1), x.rank(), n);
      std::vector<int64_t> axes;
      for (int64_t i = axis; i < x.rank(); ++i) axes.push_back(i);
      NormSpec s;
      s.kind = ATCK_NK_RMS;
      s.eps = n.attrFloat("epsilon", 1e-5);
      s.affine = ATCK_NA_PER_RED;
      s.scaleBuf = 1;
      s.affineDt = n.inputs[1]->type.dtype;
      return makeNormCall(n, axes, s);
    };
    return d;
  }());
  return true;
}();

const bool kReg2 = [] {
  OpRegistry::instance().add([] {
  OpDef d;
  d.type = "MeanVarianceNormalization";
  d.category = OpCategory::Reduce;
  d.infer = [](Graph&, Node& n) {
    requireRank(n, 1);
    for (auto a : n.attrInts("axes", {0, 2, 3})) normalizeAxis(a, n.inputs[0]->type.rank(), n);
    n.outputs[0]->type = n.inputs[0]->type;
  };
  d.lower = [](LowerCtx& c) {
    const Node& n = c.node;
    std::vector<int64_t> axes;
    for (auto a : n.attrInts("axes", {0, 2, 3}))
      axes.push_back(normalizeAxis(a, n.inputs[0]->type.rank(), n));
    std::sort(axes.begin(), axes.end());
    axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
    NormSpec s;
    s.eps = 1e-9;
    s.epsOnStd = true;
    return makeNormCall(n, axes, s);
  };
  return d;
}());
  return true;
}();

const bool kReg3 = [] {
  OpRegistry::instance().add([] {
  OpDef d;
  d.type = "LpNormalization";
  d.category = OpCategory::Reduce;
  d.infer = [](Graph&, Node& n) {
    requireRank(n, 1);
    normalizeAxis(n.attrInt("axis", -1), n.inputs[0]->type.rank(), n);
    int64_t p = n.attrInt("p", 2);
    if (p != 1 && p != 2) opError(n, "p must be 1 or 2");
    n.outputs[0]->type = n.inputs[0]->type;
  };
  d.lower = [](LowerCtx& c) {
    const Node& n = c.node;
    int64_t axis = normalizeAxis(n.attrInt("axis", -1), n.inputs[0]->type.rank(), n);
    NormSpec s;
    s.kind = n.attrInt("p", 2) == 1 ? ATCK_NK_L1 : ATCK_NK_L2;
    return makeNormCall(n, {axis}, s);
  };
  return d;
}());
  return true;
}();

}  // namespace
}  // namespace atc
