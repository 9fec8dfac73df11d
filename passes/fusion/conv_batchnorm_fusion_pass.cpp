// ConvBatchnormFusionPass: Conv + BatchNormalization (inference) -> Conv with folded weights and bias.
#include "passes/fusion/conv_fold.h"
#include "passes/pass.h"

namespace atc {

bool runConvBatchnormFusionPass(Graph& g, PassContext& ctx) {
  bool changed = false;
  std::vector<Node*> convs;
  for (auto& up : g.nodes())
    if (up->type == "Conv") convs.push_back(up.get());
  for (Node* c : convs) {
    Node* bn = fu::soleUser(g, c->outputs[0]);
    if (!bn || bn->type != "BatchNormalization" || bn->inputs[0] != c->outputs[0]) continue;
    ctx.stats.matchTimes++;
    bool ok = fu::foldableConv(c) && bn->outputs.size() == 1 && bn->attrInt("training_mode", 0) == 0;
    for (int i = 1; i < 5 && ok; ++i) ok = bn->input(i) && bn->input(i)->isConstant();
    int64_t OC = ok ? c->inputs[1]->type.shape[0] : 0;
    for (int i = 1; i < 5 && ok; ++i) ok = bn->input(i)->type.numel() == OC;
    if (!ok) {
      ctx.debug("Conv " + c->name + " + BatchNormalization " + bn->name +
                " not fused: needs constant float32 weights and BN parameters, inference mode, one output");
      continue;
    }
    double eps = bn->attrFloat("epsilon", 1e-5);
    std::vector<double> mul((size_t)OC), add((size_t)OC);
    for (int64_t o = 0; o < OC; ++o) {
      double s = bn->inputs[1]->constant->floatAt(o) / std::sqrt(bn->inputs[4]->constant->floatAt(o) + eps);
      mul[o] = s;
      add[o] = bn->inputs[2]->constant->floatAt(o) - bn->inputs[3]->constant->floatAt(o) * s;
    }
    if (c->originalNames.empty()) c->originalNames = {c->name};
    fu::rewriteConv(g, c, mul, add, bn);
    ctx.stats.effectTimes++;
    changed = true;
  }
  if (changed) g.pruneValues();
  return changed;
}

}  // namespace atc
