// SoftmaxFusionPass: Exp(x - ReduceMax(x)) / ReduceSum(Exp(..)) (or without the max
// subtraction) over one axis with keepdims -> Softmax(x, axis).
#include "passes/fusion/fusion_util.h"
#include "passes/pass.h"

namespace atc {

bool runSoftmaxFusionPass(Graph& g, PassContext& ctx) {
  bool changed = false;
  std::vector<Node*> divs;
  for (auto& up : g.nodes())
    if (up->type == "Div") divs.push_back(up.get());
  for (Node* div : divs) {
    Node* ex = fu::producerOf(div->inputs[0], "Exp");
    Node* sum = fu::producerOf(div->inputs[1], "ReduceSum");
    if (!ex || !sum || sum->inputs[0] != ex->outputs[0]) continue;
    ctx.stats.matchTimes++;
    std::vector<int64_t> ax, ax2;
    Value* x = ex->inputs[0];
    std::vector<Node*> nodes = {ex, sum, div};
    Node* sub = fu::producerOf(x, "Sub");
    Node* mx = sub ? fu::producerOf(sub->inputs[1], "ReduceMax") : nullptr;
    if (mx && mx->inputs[0] == sub->inputs[0] && fu::soleUserIs(g, sub->outputs[0], ex) &&
        g.users(mx->outputs[0]).size() == 1 && !g.isGraphOutput(mx->outputs[0])) {
      if (!fu::reduceAxes(mx, &ax2) || ax2.size() != 1 || mx->attrInt("keepdims", 1) != 1) ax2 = {-99};
      x = sub->inputs[0];
      nodes.insert(nodes.begin(), {mx, sub});
    } else {
      mx = nullptr;
    }
    bool ok = fu::reduceAxes(sum, &ax) && ax.size() == 1 && sum->attrInt("keepdims", 1) == 1 &&
              (!mx || ax2 == ax) && g.users(ex->outputs[0]).size() == 2 && !g.isGraphOutput(ex->outputs[0]) &&
              fu::soleUserIs(g, sum->outputs[0], div) && x->type.dtype == DType::F32;
    if (!ok) {
      ctx.debug("Softmax at " + div->name + " not fused: axes differ, keepdims=0, or intermediates have other users");
      continue;
    }
    Value* out = div->outputs[0];
    std::string name = div->name;
    std::vector<std::string> names;
    for (Node* n : nodes) names.push_back(n->name);
    for (Node* n : nodes) g.removeNode(n);
    Node* sm = g.addNode("Softmax", g.uniqueNodeName(name + "_softmax"), {x}, {out});
    sm->attrs["axis"] = ax[0];
    sm->originalNames = names;
    ctx.stats.effectTimes++;
    changed = true;
  }
  if (changed) g.topoSort();
  return changed;
}

}  // namespace atc
