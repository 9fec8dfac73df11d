// ConvScaleFusionPass: Conv + per-channel constant Mul/Add -> Conv with folded weights and bias.
#include "passes/fusion/conv_fold.h"
#include "passes/pass.h"

namespace atc {

bool runConvScaleFusionPass(Graph& g, PassContext& ctx) {
  bool changed = false;
  std::vector<Node*> convs;
  for (auto& up : g.nodes())
    if (up->type == "Conv") convs.push_back(up.get());
  for (Node* c : convs) {
    // Repeatedly absorb Mul/Add by per-channel constants.
    while (true) {
      Node* u = fu::soleUser(g, c->outputs[0]);
      if (!u || (u->type != "Mul" && u->type != "Add")) break;
      Value* k = fu::otherInput(u, c->outputs[0]);
      if (!k || !k->isConstant()) break;
      ctx.stats.matchTimes++;
      std::vector<double> vals;
      if (!fu::foldableConv(c) || !(u->outputs[0]->type == c->outputs[0]->type) ||
          !fu::perChannel(k, c->inputs[1]->type.shape[0], c->outputs[0]->type.rank(), &vals)) {
        ctx.debug("Conv " + c->name + " + " + u->type + " " + u->name +
                  " not fused: the constant is not per output channel, or the conv weights are not constant float32");
        break;
      }
      int64_t OC = c->inputs[1]->type.shape[0];
      std::vector<double> mul((size_t)OC, 1.0), add((size_t)OC, 0.0);
      if (u->type == "Mul") mul = vals;
      else add = vals;
      if (c->originalNames.empty()) c->originalNames = {c->name};
      fu::rewriteConv(g, c, mul, add, u);
      ctx.stats.effectTimes++;
      changed = true;
    }
  }
  if (changed) g.pruneValues();
  return changed;
}

}  // namespace atc
