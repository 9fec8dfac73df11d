// ScopeGeluPass (TF scope fusion, non-general: on when named in
// --enable_scope_fusion_passes): TF's decomposed erf/tanh Gelu arithmetic -> Gelu.
// Runs first in the pipeline, on the ops the TF converters produced (docs/frontend-tf.md).
#include <algorithm>
#include <cmath>
#include <set>

#include "passes/fusion/fusion_util.h"
#include "passes/pass.h"

namespace atc {
namespace {

// x^3 as Pow(x, 3), x*x*x in either association, or Square(x)*x (Square converts to Mul(x, x)).
bool isCube(Value* v, Value* x, std::vector<Node*>* nodes) {
  Node* p = v ? v->producer : nullptr;
  if (!p) return false;
  double e;
  if (p->type == "Pow" && p->inputs[0] == x && fu::scalarValue(p->inputs[1], &e) && e == 3.0) {
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
int fuseGeluScopes(Graph& g, int* matched) {
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
      x = fu::withScalar(pre, "Div", std::sqrt(2.0));
      if (!x) x = fu::withScalar(pre, "Mul", 1.0 / std::sqrt(2.0));
      if (!x) continue;
      nodes.push_back(pre);
    } else {
      Value* u = fu::withScalar(pre, "Mul", std::sqrt(2.0 / M_PI));
      Node* add = u ? u->producer : nullptr;
      if (!add || add->type != "Add" || add->inputs.size() != 2) continue;
      for (int i = 0; i < 2 && !x; ++i) {
        Node* c3 = add->inputs[1 - i]->producer;
        Value* cube = fu::withScalar(c3, "Mul", 0.044715);
        std::vector<Node*> cn;
        if (cube && isCube(cube, add->inputs[i], &cn)) {
          x = add->inputs[i];
          nodes.insert(nodes.end(), cn.begin(), cn.end());
          nodes.insert(nodes.end(), {c3, add, pre});
        }
      }
      if (!x) continue;
    }
    Node* one = fu::soleUser(g, f->outputs[0]);
    if (!fu::withScalar(one, "Add", 1.0)) continue;
    ++*matched;
    nodes.push_back(f);
    nodes.push_back(one);
    // The tail: x * 0.5 * a in any association.
    Value* a = one->outputs[0];
    Node* m1 = fu::soleUser(g, a);
    Value* o = fu::otherInput(m1, a);
    if (!m1 || m1->type != "Mul" || !o) continue;
    Node* last = nullptr;
    double d;
    if (o == x) {  // (x * a) * 0.5
      Node* h = fu::soleUser(g, m1->outputs[0]);
      if (fu::withScalar(h, "Mul", 0.5) == m1->outputs[0]) last = h, nodes.insert(nodes.end(), {m1, h});
    } else if (fu::scalarValue(o, &d) && fu::near(d, 0.5, 1e-4)) {  // x * (a * 0.5)
      Node* h = fu::soleUser(g, m1->outputs[0]);
      if (h && h->type == "Mul" && fu::otherInput(h, m1->outputs[0]) == x) last = h, nodes.insert(nodes.end(), {m1, h});
    } else if (o->producer && fu::withScalar(o->producer, "Mul", 0.5) == x && fu::soleUser(g, o) == m1) {  // (x * 0.5) * a
      last = m1;
      nodes.insert(nodes.end(), {o->producer, m1});
    }
    if (!last || !isFloat(x->type.dtype)) continue;
    bool ok = true;
    for (Node* n : nodes)
      if (n != last && (g.isGraphOutput(n->outputs[0]) || g.users(n->outputs[0]).size() != 1)) ok = false;
    if (!ok) continue;
    Value* y = last->outputs[0];
    std::string name = last->name;
    Node* ge = fu::replaceWithNode(g, nodes, &removed, "Gelu", name + "/Gelu", {x}, {y});
    ge->attrs["approximate"] = std::string(tanhForm ? "tanh" : "none");
    ++fused;
  }
  if (fused) g.topoSort();
  return fused;
}

}  // namespace

bool runScopeGeluPass(Graph& g, PassContext& ctx) {
  int matched = 0;
  int n = fuseGeluScopes(g, &matched);
  ctx.stats.matchTimes += matched;
  ctx.stats.effectTimes += n;
  ctx.info(std::to_string(n) + " Gelu scope(s) fused (" + std::to_string(matched) + " matched)");
  return n > 0;
}

}  // namespace atc
