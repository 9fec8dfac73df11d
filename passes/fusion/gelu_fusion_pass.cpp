// GeluFusionPass: x * 0.5 * (1 + erf(x / sqrt(2))) (erf form, any Mul order PyTorch exports)
// and x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))) (tanh form) -> Gelu.
#include "passes/fusion/fusion_util.h"
#include "passes/pass.h"

namespace atc {
namespace {

// From a = 1 + f(x): the node computing x * 0.5 * a, with the nodes of the tail in *tail.
Node* matchTail(const Graph& g, Value* a, Value* x, std::vector<Node*>* tail) {
  Node* m = fu::soleUser(g, a);
  if (!m || m->type != "Mul") return nullptr;
  Value* o = fu::otherInput(m, a);
  double d;
  if (o == x) {  // (x * a) * 0.5
    Node* h = fu::soleUser(g, m->outputs[0]);
    if (!fu::binWithConst(h, "Mul", 0.5)) return nullptr;
    tail->insert(tail->end(), {m, h});
    return h;
  }
  if (fu::scalarConst(o, &d) && fu::near(d, 0.5)) {  // x * (a * 0.5)
    Node* h = fu::soleUser(g, m->outputs[0]);
    if (!h || h->type != "Mul" || fu::otherInput(h, m->outputs[0]) != x) return nullptr;
    tail->insert(tail->end(), {m, h});
    return h;
  }
  Node* hx = o ? o->producer : nullptr;  // (x * 0.5) * a
  if (hx && fu::binWithConst(hx, "Mul", 0.5) == x && fu::soleUserIs(g, o, m)) {
    tail->insert(tail->end(), {hx, m});
    return m;
  }
  return nullptr;
}

}  // namespace

bool runGeluFusionPass(Graph& g, PassContext& ctx) {
  bool changed = false;
  std::vector<Node*> cands;
  for (auto& up : g.nodes())
    if (up->type == "Erf" || up->type == "Tanh") cands.push_back(up.get());
  for (Node* f : cands) {
    bool tanhForm = f->type == "Tanh";
    std::vector<Node*> nodes;
    Value* x = nullptr;
    Node* pre = f->inputs[0]->producer;
    if (!tanhForm) {
      if (!pre || !fu::soleUserIs(g, f->inputs[0], f)) continue;
      x = fu::binWithConst(pre, "Div", 1.41421356, 1e-3);
      if (!x || pre->inputs[0] != x) x = fu::binWithConst(pre, "Mul", 0.70710678, 1e-3);
      if (!x) continue;
      nodes.push_back(pre);
    } else {
      // v = c * (x + 0.044715 * x^3)
      Value* u = fu::binWithConst(pre, "Mul", 0.7978845608, 1e-3);
      Node* add = u ? u->producer : nullptr;
      if (!add || add->type != "Add") continue;
      for (int i = 0; i < 2 && !x; ++i) {
        Node* c3 = add->inputs[1 - i]->producer;
        Value* p3 = fu::binWithConst(c3, "Mul", 0.044715, 1e-3);
        Node* pw = p3 ? p3->producer : nullptr;
        double e;
        if (pw && pw->type == "Pow" && pw->inputs[0] == add->inputs[i] && fu::scalarConst(pw->inputs[1], &e) && e == 3.0) {
          x = add->inputs[i];
          nodes.insert(nodes.end(), {pw, c3, add, pre});
        }
      }
      if (!x) continue;
    }
    Node* one = fu::soleUser(g, f->outputs[0]);
    if (!fu::binWithConst(one, "Add", 1.0)) continue;
    ctx.stats.matchTimes++;
    nodes.push_back(f);
    nodes.push_back(one);
    Node* last = matchTail(g, one->outputs[0], x, &nodes);
    if (!last) {
      ctx.debug("Gelu head at " + f->name + " matched but the x * 0.5 * (1 + ...) tail did not");
      continue;
    }
    bool ok = true;
    for (Node* n : nodes)
      if (n != last && !fu::soleUser(g, n->outputs[0])) ok = false;
    if (!ok || x->type.dtype != DType::F32) {
      ctx.debug("Gelu at " + f->name + " not fused: an intermediate value has other users or x is not float32");
      continue;
    }
    Value* out = last->outputs[0];
    std::vector<std::string> names;
    for (Node* n : nodes) names.push_back(n->name);
    std::string name = last->name;
    for (Node* n : nodes) g.removeNode(n);
    Node* ge = g.addNode("Gelu", g.uniqueNodeName(name + "_gelu"), {x}, {out});
    ge->attrs["approximate"] = std::string(tanhForm ? "tanh" : "none");
    ge->originalNames = names;
    ctx.stats.effectTimes++;
    changed = true;
  }
  if (changed) g.topoSort();
  return changed;
}

}  // namespace atc
