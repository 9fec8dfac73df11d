// TF scope fusion on the imported IR (see tf_scope_fusion.h). Runs before the passes, on the
// ops the converters produced (ReduceMean, Sub, Mul, Add, Sqrt, Reciprocal...).
#include "frontends/tf/tf_scope_fusion.h"

#include <algorithm>
#include <iostream>
#include <set>

#include "atc/console.h"
#include "ir/op_registry.h"

namespace atc {
namespace tffe {
namespace {

// The single user of v, or null (graph outputs count as extra users).
Node* soleUser(Graph& g, Value* v) {
  auto us = g.users(v);
  if (us.size() != 1 || g.isGraphOutput(v)) return nullptr;
  return us[0];
}

// For a binary node n with inputs {a, other} (either order), returns other.
Value* otherInput(Node* n, Value* a) {
  if (!n || n->inputs.size() != 2) return nullptr;
  if (n->inputs[0] == a) return n->inputs[1];
  if (n->inputs[1] == a) return n->inputs[0];
  return nullptr;
}

Node* producer(Value* v, const char* type) {
  return v && v->producer && v->producer->type == type ? v->producer : nullptr;
}

// TF's decomposed layer normalisation (tf.contrib.layers.layer_norm, Keras LayerNormalization):
//   mean = Mean(x, axes, keep_dims); var = Mean(SquaredDifference(x, mean), axes, keep_dims)
//   m = Rsqrt(var + eps) * gamma; y = x * m + (beta - mean * m)
int fuseLayerNorm(Graph& g) {
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
    if (!trailing) continue;
    // users of mean: Sub(x, mean) (the squared difference) and Mul(mean, m)
    Node *sub = nullptr, *mulMean = nullptr;
    for (Node* u : g.users(mean)) {
      if (u->type == "Sub" && u->inputs[0] == x && u->inputs[1] == mean) sub = u;
      else if (u->type == "Mul") mulMean = u;
    }
    if (!sub || !mulMean) continue;
    Node* sq = soleUser(g, sub->outputs[0]);
    if (!sq || sq->type != "Mul" || sq->inputs[0] != sub->outputs[0] || sq->inputs[1] != sub->outputs[0]) continue;
    Node* m2 = soleUser(g, sq->outputs[0]);
    if (!m2 || m2->type != "ReduceMean" || m2->attrInts("axes") != m1->attrInts("axes")) continue;
    Node* addEps = soleUser(g, m2->outputs[0]);
    Value* eps = otherInput(addEps, m2->outputs[0]);
    if (!addEps || addEps->type != "Add" || !eps || !eps->isConstant() || eps->constant->type.numel() != 1) continue;
    Node* sqrt = soleUser(g, addEps->outputs[0]);
    if (!sqrt || sqrt->type != "Sqrt") continue;
    Node* rcp = soleUser(g, sqrt->outputs[0]);
    if (!rcp || rcp->type != "Reciprocal") continue;
    Node* mulGamma = soleUser(g, rcp->outputs[0]);
    Value* gamma = otherInput(mulGamma, rcp->outputs[0]);
    if (!mulGamma || mulGamma->type != "Mul" || !gamma || !gamma->isConstant()) continue;
    Value* mv = mulGamma->outputs[0];
    auto us = g.users(mv);
    if (us.size() != 2 || g.isGraphOutput(mv)) continue;
    Node* mulX = us[0] == mulMean ? us[1] : us[0];
    if (mulX->type != "Mul" || otherInput(mulX, mv) != x || otherInput(mulMean, mv) != mean) continue;
    Node* subB = soleUser(g, mulMean->outputs[0]);
    if (!subB || subB->type != "Sub" || subB->inputs[1] != mulMean->outputs[0] || !subB->inputs[0]->isConstant()) continue;
    Value* beta = subB->inputs[0];
    Node* out = soleUser(g, mulX->outputs[0]);
    if (!out || out->type != "Add" || otherInput(out, mulX->outputs[0]) != subB->outputs[0]) continue;
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
    std::vector<std::string> orig;
    for (Node* d : dead)
      for (auto& o : d->originalNames) orig.push_back(o);
    for (Node* d : dead) {
      removed.insert(d);
      g.removeNode(d);
    }
    Node* ln = g.addNode("LayerNormalization", g.uniqueNodeName(name + "/LayerNorm"), {x, gamma, beta}, {y});
    ln->attrs["axis"] = (int64_t)(r - (int64_t)axes.size());
    ln->attrs["epsilon"] = eps->constant->floatAt(0);
    std::sort(orig.begin(), orig.end());
    orig.erase(std::unique(orig.begin(), orig.end()), orig.end());
    ln->originalNames = orig;
    ++fused;
  }
  if (fused) g.topoSort();
  return fused;
}

}  // namespace

std::vector<std::string> knownScopeFusionPasses() { return {"ScopeLayerNormPass"}; }

void runScopeFusion(Graph& g, const CompileOptions& opts) {
  std::vector<std::string> unknown;
  bool layerNorm = false;
  for (const auto& p : opts.scopeFusionPasses) {
    if (p == "ScopeLayerNormPass") layerNorm = true;
    else unknown.push_back(p);
  }
  if (!unknown.empty()) {
    std::string list;
    for (auto& u : unknown) list += (list.empty() ? "" : ", ") + u;
    std::string known;
    for (auto& k : knownScopeFusionPasses()) known += (known.empty() ? "" : ", ") + k;
    std::cerr << "[WARNING] --enable_scope_fusion_passes: unknown scope fusion pass(es) " << list
              << " ignored (known: " << known << ").\n";
  }
  if (layerNorm) {
    int n = fuseLayerNorm(g);
    logInfo("ScopeLayerNormPass: " + std::to_string(n) + " layer normalisation scope(s) fused");
  }
}

}  // namespace tffe
}  // namespace atc
