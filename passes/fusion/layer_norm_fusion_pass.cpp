// LayerNormFusionPass: the decomposed layer normalisation PyTorch exports
//   m = ReduceMean(x, -1); d = x - m; v = ReduceMean(Pow(d, 2), -1);
//   y = d / Sqrt(v + eps) [* gamma] [+ beta]
// -> LayerNormalization(x, gamma, beta) {axis=-1, epsilon}.
#include <cstring>
#include <memory>

#include "passes/fusion/fusion_util.h"
#include "passes/pass.h"

namespace atc {

bool runLayerNormFusionPass(Graph& g, PassContext& ctx) {
  bool changed = false;
  std::vector<Node*> divs;
  for (auto& up : g.nodes())
    if (up->type == "Div") divs.push_back(up.get());
  for (Node* div : divs) {
    Node* sub = fu::producerOf(div->inputs[0], "Sub");
    Node* sq = fu::producerOf(div->inputs[1], "Sqrt");
    if (!sub || !sq) continue;
    Node* m1 = fu::producerOf(sub->inputs[1], "ReduceMean");
    Node* addEps = fu::producerOf(sq->inputs[0], "Add");
    if (!m1 || !addEps || m1->inputs[0] != sub->inputs[0]) continue;
    Value* x = sub->inputs[0];
    double eps = 0;
    Value* v = nullptr;
    if (fu::scalarConst(addEps->inputs[1], &eps)) v = addEps->inputs[0];
    else if (fu::scalarConst(addEps->inputs[0], &eps)) v = addEps->inputs[1];
    Node* m2 = fu::producerOf(v, "ReduceMean");
    Node* pw = m2 ? m2->inputs[0]->producer : nullptr;
    double e2 = 0;
    bool sqr = pw && ((pw->type == "Pow" && pw->inputs[0] == sub->outputs[0] && fu::scalarConst(pw->inputs[1], &e2) && e2 == 2.0) ||
                      (pw->type == "Mul" && pw->inputs[0] == sub->outputs[0] && pw->inputs[1] == sub->outputs[0]));
    if (!sqr) continue;
    ctx.stats.matchTimes++;
    if (!fu::reducesLastAxis(m1) || !fu::reducesLastAxis(m2) || x->type.dtype != DType::F32 || !x->type.isStatic()) {
      ctx.debug("LayerNorm at " + div->name + " not fused: reductions are not over the last axis only with keepdims, or x is not static float32");
      continue;
    }
    // Users: d feeds only the square and the division.
    auto dUsers = g.users(sub->outputs[0]);
    bool ok = !g.isGraphOutput(sub->outputs[0]) && dUsers.size() == 2;
    for (Node* n : {m1, pw, m2, addEps, sq}) ok = ok && fu::soleUser(g, n->outputs[0]);
    if (!ok) {
      ctx.debug("LayerNorm at " + div->name + " not fused: an intermediate value has other users");
      continue;
    }
    const int64_t D = x->type.shape.back();
    std::vector<Node*> nodes = {m1, sub, pw, m2, addEps, sq, div};
    Node* last = div;
    Value* gamma = nullptr;
    Value* beta = nullptr;
    auto perChannel = [&](Value* c) {
      return c && c->isConstant() && c->type.dtype == DType::F32 && c->type.isStatic() && c->type.numel() == D &&
             c->type.shape.back() == D && c->type.rank() <= x->type.rank();
    };
    Node* mul = fu::soleUser(g, div->outputs[0]);
    if (mul && mul->type == "Mul" && perChannel(fu::otherInput(mul, div->outputs[0]))) {
      gamma = fu::otherInput(mul, div->outputs[0]);
      nodes.push_back(mul);
      last = mul;
      Node* add = fu::soleUser(g, mul->outputs[0]);
      if (add && add->type == "Add" && perChannel(fu::otherInput(add, mul->outputs[0]))) {
        beta = fu::otherInput(add, mul->outputs[0]);
        nodes.push_back(add);
        last = add;
      }
    }
    auto flat = [&](Value* c, const std::string& nm) {
      auto t = std::make_shared<Tensor>(TensorType(DType::F32, {D}));
      if (c) std::memcpy(t->data.data(), c->constant->data.data(), (size_t)D * 4);
      else for (int64_t i = 0; i < D; ++i) t->as<float>()[i] = 1.0f;
      return g.newConstant(nm, t);
    };
    Value* out = last->outputs[0];
    std::string name = last->name;
    std::vector<std::string> names;
    for (Node* n : nodes) names.push_back(n->name);
    Value* gv = flat(gamma, name + "_ln_scale");
    Value* bv = beta ? flat(beta, name + "_ln_bias") : nullptr;
    for (Node* n : nodes) g.removeNode(n);
    std::vector<Value*> ins = {x, gv};
    if (bv) ins.push_back(bv);
    Node* ln = g.addNode("LayerNormalization", g.uniqueNodeName(name + "_layernorm"), ins, {out});
    ln->attrs["axis"] = int64_t(-1);
    ln->attrs["epsilon"] = eps;
    ln->originalNames = names;
    ctx.stats.effectTimes++;
    changed = true;
  }
  if (changed) g.topoSort();
  return changed;
}

}  // namespace atc
