// ScopeLayerNormPass (TF scope fusion, non-general: on when named in
// --enable_scope_fusion_passes): TF's decomposed layer normalisation -> LayerNormalization.
// Runs first in the pipeline, on the ops the TF converters produced (docs/frontend-tf.md).
#include <algorithm>
#include <set>

#include "passes/fusion/fusion_util.h"
#include "passes/pass.h"

namespace atc {
namespace {

// TF's decomposed layer normalisation (tf.contrib.layers.layer_norm, Keras LayerNormalization):
//   mean = Mean(x, axes, keep_dims); var = Mean(SquaredDifference(x, mean), axes, keep_dims)
//   m = Rsqrt(var + eps) * gamma; y = x * m + (beta - mean * m)
int fuseLayerNormScopes(Graph& g) {
  int fused = 0;
  std::vector<Node*> means;
  for (auto& n : g.nodes())
    if (n->type == "ReduceMean") means.push_back(n.get());
  std::set<Node*> removed;
  for (Node* m1 : means) {
    if (removed.count(m1) || m1->attrInt("keepdims", 1) != 1) continue;
    Value* x = m1->inputs[0];
    Value* mean = m1->outputs[0];
    if (!x->type.shapeKnown) continue;
    int64_t r = x->type.rank();
    std::vector<int64_t> axes = m1->attrInts("axes");
    for (auto& a : axes) a = a < 0 ? a + r : a;
    std::sort(axes.begin(), axes.end());
    bool trailing = !axes.empty();
    for (size_t k = 0; k < axes.size(); ++k) trailing = trailing && axes[k] == r - (int64_t)axes.size() + (int64_t)k;
    // Every axis within [0, r) (a scalar x with axes [-1] passes the test above).
    if (!trailing || (int64_t)axes.size() > r || axes.front() < 0) continue;
    // users of mean: Sub(x, mean) (the squared difference) and Mul(mean, m)
    Node *sub = nullptr, *mulMean = nullptr;
    for (Node* u : g.users(mean)) {
      if (u->type == "Sub" && u->inputs[0] == x && u->inputs[1] == mean) sub = u;
      else if (u->type == "Mul") mulMean = u;
    }
    if (!sub || !mulMean) continue;
    Node* sq = fu::soleUser(g, sub->outputs[0]);
    if (!sq || sq->type != "Mul" || sq->inputs[0] != sub->outputs[0] || sq->inputs[1] != sub->outputs[0]) continue;
    Node* m2 = fu::soleUser(g, sq->outputs[0]);
    if (!m2 || m2->type != "ReduceMean" || m2->attrInts("axes") != m1->attrInts("axes")) continue;
    Node* addEps = fu::soleUser(g, m2->outputs[0]);
    Value* eps = fu::otherInput(addEps, m2->outputs[0]);
    if (!addEps || addEps->type != "Add" || !eps || !eps->isConstant() || eps->constant->type.numel() != 1) continue;
    Node* sqrt = fu::soleUser(g, addEps->outputs[0]);
    if (!sqrt || sqrt->type != "Sqrt") continue;
    Node* rcp = fu::soleUser(g, sqrt->outputs[0]);
    if (!rcp || rcp->type != "Reciprocal") continue;
    Node* mulGamma = fu::soleUser(g, rcp->outputs[0]);
    Value* gamma = fu::otherInput(mulGamma, rcp->outputs[0]);
    if (!mulGamma || mulGamma->type != "Mul" || !gamma || !gamma->isConstant()) continue;
    Value* mv = mulGamma->outputs[0];
    auto us = g.users(mv);
    if (us.size() != 2 || g.isGraphOutput(mv)) continue;
    Node* mulX = us[0] == mulMean ? us[1] : us[0];
    if (mulX->type != "Mul" || fu::otherInput(mulX, mv) != x || fu::otherInput(mulMean, mv) != mean) continue;
    Node* subB = fu::soleUser(g, mulMean->outputs[0]);
    if (!subB || subB->type != "Sub" || subB->inputs[1] != mulMean->outputs[0] || !subB->inputs[0]->isConstant()) continue;
    Value* beta = subB->inputs[0];
    Node* out = fu::soleUser(g, mulX->outputs[0]);
    if (!out || out->type != "Add" || fu::otherInput(out, mulX->outputs[0]) != subB->outputs[0]) continue;
    if (g.users(mean).size() != 2 || g.isGraphOutput(mean)) continue;
    // The normalised shape: gamma and beta must have it (or broadcast to it).
    Shape normShape(x->type.shape.end() - axes.size(), x->type.shape.end());
    auto fits = [&](Value* v) {
      const Shape& s = v->constant->type.shape;
      return s.size() <= normShape.size() && std::equal(s.rbegin(), s.rend(), normShape.rbegin());
    };
    if (!fits(gamma) || !fits(beta) || gamma->constant->type.shape != normShape || beta->constant->type.shape != normShape)
      continue;
    Value* y = out->outputs[0];
    std::string name = out->name;
    std::vector<Node*> dead = {m1, sub, sq, m2, addEps, sqrt, rcp, mulGamma, mulX, mulMean, subB, out};
    Node* ln = fu::replaceWithNode(g, dead, &removed, "LayerNormalization", name + "/LayerNorm", {x, gamma, beta}, {y});
    ln->attrs["axis"] = (int64_t)(r - (int64_t)axes.size());
    ln->attrs["epsilon"] = eps->constant->floatAt(0);
    ++fused;
  }
  if (fused) g.topoSort();
  return fused;
}

}  // namespace

bool runScopeLayerNormPass(Graph& g, PassContext& ctx) {
  int n = fuseLayerNormScopes(g);
  ctx.stats.matchTimes += n;
  ctx.stats.effectTimes += n;
  ctx.info(std::to_string(n) + " layer normalisation scope(s) fused");
  return n > 0;
}

}  // namespace atc
