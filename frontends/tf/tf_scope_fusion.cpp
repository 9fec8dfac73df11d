// TF scope fusion on the imported IR (see tf_scope_fusion.h). Runs before the passes, on the
// ops the converters produced (ReduceMean, Sub, Mul, Add, Sqrt, Reciprocal...).
#include "frontends/tf/tf_scope_fusion.h"

#include <algorithm>
#include <cmath>
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

// A scalar compile-time value: a one-value (or all-equal) constant, or small constant
// arithmetic the converters left unfolded (tf.sqrt(2.0), 1 / sqrt(2), Cast of a constant).
bool scalarOf(Value* v, double* out, int depth = 0) {
  if (!v || depth > 4) return false;
  if (v->isConstant()) {
    const Tensor& t = *v->constant;
    int64_t n = t.type.numel();
    if (n < 1 || !isFloat(t.type.dtype)) return false;
    double a = t.floatAt(0);
    for (int64_t i = 1; i < n; ++i)
      if (t.floatAt(i) != a) return false;
    *out = a;
    return true;
  }
  Node* p = v->producer;
  if (!p) return false;
  double a, b;
  if ((p->type == "Sqrt" || p->type == "Reciprocal" || p->type == "Cast" || p->type == "Identity") &&
      p->inputs.size() == 1 && scalarOf(p->inputs[0], &a, depth + 1)) {
    if (p->type == "Sqrt") *out = std::sqrt(a);
    else if (p->type == "Reciprocal") *out = 1.0 / a;
    else *out = a;
    return true;
  }
  if ((p->type == "Div" || p->type == "Mul") && p->inputs.size() == 2 && scalarOf(p->inputs[0], &a, depth + 1) &&
      scalarOf(p->inputs[1], &b, depth + 1)) {
    *out = p->type == "Div" ? a / b : a * b;
    return true;
  }
  return false;
}
bool near(double a, double b) { return std::fabs(a - b) <= 1e-4 * std::max(1.0, std::fabs(b)); }
// n is `type`(v, c) or `type`(c, v) (commutative only for Mul/Add) with scalar c ~= want: returns v.
Value* withScalar(Node* n, const char* type, double want) {
  if (!n || n->type != type || n->inputs.size() != 2) return nullptr;
  double d;
  bool comm = n->type == "Mul" || n->type == "Add";
  if (scalarOf(n->inputs[1], &d) && near(d, want)) return n->inputs[0];
  if (comm && scalarOf(n->inputs[0], &d) && near(d, want)) return n->inputs[1];
  return nullptr;
}

// x^3 as Pow(x, 3), x*x*x in either association, or Square(x)*x (Square converts to Mul(x, x)).
bool isCube(Value* v, Value* x, std::vector<Node*>* nodes) {
  Node* p = v ? v->producer : nullptr;
  if (!p) return false;
  double e;
  if (p->type == "Pow" && p->inputs[0] == x && scalarOf(p->inputs[1], &e) && e == 3.0) {
    nodes->push_back(p);
    return true;
  }
  if (p->type != "Mul") return false;
  for (int i = 0; i < 2; ++i) {
    Node* sq = p->inputs[1 - i]->producer;
    if (p->inputs[i] == x && sq && sq->type == "Mul" && sq->inputs[0] == x && sq->inputs[1] == x) {
      nodes->insert(nodes->end(), {sq, p});
      return true;
    }
  }
  return false;
}

// TF's decomposed Gelu (tf.nn.gelu, BERT/Keras gelu) -> Gelu:
//   erf form:  x * 0.5 * (1 + erf(x / sqrt(2)))  (x * (1/sqrt(2)) too)
//   tanh form: x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
// with the constants as Consts or unfolded arithmetic, the Mul/Add operands in any order and
// the three factors x, 0.5, (1 + f) in any association. Every intermediate value must have
// only its one user in the pattern.
int fuseGelu(Graph& g, int* matched) {
  int fused = 0;
  std::vector<Node*> cands;
  for (auto& n : g.nodes())
    if (n->type == "Erf" || n->type == "Tanh") cands.push_back(n.get());
  std::set<Node*> removed;
  for (Node* f : cands) {
    if (removed.count(f)) continue;
    bool tanhForm = f->type == "Tanh";
    std::vector<Node*> nodes;
    Value* x = nullptr;
    Node* pre = f->inputs[0]->producer;
    if (!tanhForm) {
      x = withScalar(pre, "Div", std::sqrt(2.0));
      if (!x) x = withScalar(pre, "Mul", 1.0 / std::sqrt(2.0));
      if (!x) continue;
      nodes.push_back(pre);
    } else {
      Value* u = withScalar(pre, "Mul", std::sqrt(2.0 / M_PI));
      Node* add = u ? u->producer : nullptr;
      if (!add || add->type != "Add" || add->inputs.size() != 2) continue;
      for (int i = 0; i < 2 && !x; ++i) {
        Node* c3 = add->inputs[1 - i]->producer;
        Value* cube = withScalar(c3, "Mul", 0.044715);
        std::vector<Node*> cn;
        if (cube && isCube(cube, add->inputs[i], &cn)) {
          x = add->inputs[i];
          nodes.insert(nodes.end(), cn.begin(), cn.end());
          nodes.insert(nodes.end(), {c3, add, pre});
        }
      }
      if (!x) continue;
    }
    Node* one = soleUser(g, f->outputs[0]);
    if (!withScalar(one, "Add", 1.0)) continue;
    ++*matched;
    nodes.push_back(f);
    nodes.push_back(one);
    // The tail: x * 0.5 * a in any association.
    Value* a = one->outputs[0];
    Node* m1 = soleUser(g, a);
    Value* o = otherInput(m1, a);
    if (!m1 || m1->type != "Mul" || !o) continue;
    Node* last = nullptr;
    double d;
    if (o == x) {  // (x * a) * 0.5
      Node* h = soleUser(g, m1->outputs[0]);
      if (withScalar(h, "Mul", 0.5) == m1->outputs[0]) last = h, nodes.insert(nodes.end(), {m1, h});
    } else if (scalarOf(o, &d) && near(d, 0.5)) {  // x * (a * 0.5)
      Node* h = soleUser(g, m1->outputs[0]);
      if (h && h->type == "Mul" && otherInput(h, m1->outputs[0]) == x) last = h, nodes.insert(nodes.end(), {m1, h});
    } else if (o->producer && withScalar(o->producer, "Mul", 0.5) == x && soleUser(g, o) == m1) {  // (x * 0.5) * a
      last = m1;
      nodes.insert(nodes.end(), {o->producer, m1});
    }
    if (!last || !isFloat(x->type.dtype)) continue;
    bool ok = true;
    for (Node* n : nodes)
      if (n != last && (g.isGraphOutput(n->outputs[0]) || g.users(n->outputs[0]).size() != 1)) ok = false;
    if (!ok) continue;
    Value* y = last->outputs[0];
    std::vector<std::string> orig;
    for (Node* n : nodes)
      for (auto& nm : n->originalNames) orig.push_back(nm);
    std::string name = last->name;
    for (Node* n : nodes) {
      removed.insert(n);
      g.removeNode(n);
    }
    Node* ge = g.addNode("Gelu", g.uniqueNodeName(name + "/Gelu"), {x}, {y});
    ge->attrs["approximate"] = std::string(tanhForm ? "tanh" : "none");
    std::sort(orig.begin(), orig.end());
    orig.erase(std::unique(orig.begin(), orig.end()), orig.end());
    ge->originalNames = orig;
    ++fused;
  }
  if (fused) g.topoSort();
  return fused;
}

}  // namespace

std::vector<std::string> knownScopeFusionPasses() { return {"ScopeGeluPass", "ScopeLayerNormPass"}; }

namespace {
thread_local std::vector<ScopeFusionStat> lastStats;
}

const std::vector<ScopeFusionStat>& lastScopeFusionStats() { return lastStats; }

void runScopeFusion(Graph& g, const CompileOptions& opts) {
  lastStats.clear();
  std::vector<std::string> unknown;
  bool layerNorm = false, gelu = false;
  for (const auto& p : opts.scopeFusionPasses) {
    if (p == "ScopeLayerNormPass") layerNorm = true;
    else if (p == "ScopeGeluPass") gelu = true;
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
  // Fixed order (the order of the option does not matter): layer norm first, then Gelu.
  if (layerNorm) {
    int n = fuseLayerNorm(g);
    lastStats.push_back({"ScopeLayerNormPass", n, n});
    logInfo("ScopeLayerNormPass: " + std::to_string(n) + " layer normalisation scope(s) fused");
  }
  if (gelu) {
    int matched = 0;
    int n = fuseGelu(g, &matched);
    lastStats.push_back({"ScopeGeluPass", matched, n});
    logInfo("ScopeGeluPass: " + std::to_string(n) + " Gelu scope(s) fused (" + std::to_string(matched) + " matched)");
  }
}

}  // namespace tffe
}  // namespace atc
