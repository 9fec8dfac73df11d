// Folding per-channel constant arithmetic into a Conv's weights and bias: shared by
// ConvBatchnormFusionPass and ConvScaleFusionPass.
#pragma once
#include <cmath>
#include <memory>
#include "passes/fusion/fusion_util.h"

namespace atc {
namespace fu {

inline bool foldableConv(const Node* c) {
  return c->type == "Conv" && c->inputs.size() <= 3 && c->inputs[1]->isConstant() &&
         c->inputs[1]->type.dtype == DType::F32 && (!c->input(2) || c->input(2)->isConstant()) &&
         c->outputs[0]->type.isStatic() && !c->hasAttr("_epi_act") && !c->hasAttr("_epi_res");
}

// Per-channel constant of OC elements laid out on dim 1 of the conv output; values in *vals.
inline bool perChannel(const Value* v, int64_t OC, int64_t outRank, std::vector<double>* vals) {
  if (!v || !v->isConstant() || !v->type.isStatic() || !isFloat(v->type.dtype)) return false;
  const Shape& s = v->type.shape;
  int64_t n = v->type.numel();
  if (n == 1) {
    vals->assign((size_t)OC, v->constant->floatAt(0));
    return true;
  }
  if (n != OC || (int64_t)s.size() > outRank) return false;
  // The channel dim must be output dim 1 (right-aligned broadcasting).
  int64_t off = outRank - (int64_t)s.size();
  for (int64_t i = 0; i < (int64_t)s.size(); ++i)
    if (s[i] != 1 && i + off != 1) return false;
  vals->resize((size_t)OC);
  for (int64_t i = 0; i < OC; ++i) (*vals)[i] = v->constant->floatAt(i);
  return true;
}

// Replaces conv c's weights/bias by W*mul[oc], b*mul[oc] + add[oc]; c takes over `last`'s output.
inline void rewriteConv(Graph& g, Node* c, const std::vector<double>& mul, const std::vector<double>& add, Node* last) {
  const Value* w = c->inputs[1];
  int64_t OC = w->type.shape[0], per = w->type.numel() / OC;
  auto nw = std::make_shared<Tensor>(w->type);
  const float* src = w->constant->as<float>();
  for (int64_t o = 0; o < OC; ++o)
    for (int64_t i = 0; i < per; ++i) nw->as<float>()[o * per + i] = (float)(src[o * per + i] * mul[o]);
  auto nb = std::make_shared<Tensor>(TensorType(DType::F32, {OC}));
  for (int64_t o = 0; o < OC; ++o) {
    double b0 = c->input(2) ? c->input(2)->constant->floatAt(o) : 0.0;
    nb->as<float>()[o] = (float)(b0 * mul[o] + add[o]);
  }
  c->inputs[1] = g.newConstant(c->name + "_w_fused", nw);
  if (c->inputs.size() < 3) c->inputs.push_back(nullptr);
  c->inputs[2] = g.newConstant(c->name + "_b_fused", nb);
  Value* out = last->outputs[0];
  c->originalNames.push_back(last->name);
  g.removeNode(last);
  fu::adoptOutput(c, out);
}

}  // namespace fu
}  // namespace atc
