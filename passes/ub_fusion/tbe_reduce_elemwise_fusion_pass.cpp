// TbeReduceElemwiseFusionPass (the name ATC uses for reduction + element-wise UB fusion):
// a normalisation (LayerNormalization, InstanceNormalization) and its element-wise
// neighbours become one "normalize" kernel (kernels/lib/norm.cpp); an inference
// BatchNormalization left standing (one that no conv before it absorbed: DenseNet's
// BN -> ReLU after each Concat) takes the activation after it only, in its "batchnorm" kernel:
//   - before it, a residual Add of two tensors of X's type (no broadcast; one may be a
//     constant, such as BERT's position embeddings) whose only user is the normalisation:
//     X = a + b is then read from both buffers, never written
//     (the attribute _pre_add = 3 names the appended input);
//   - after it, an activation that is the sole user of output 0 (the same set as the cube
//     epilogues, passes/ub_fusion/epilogue_activation.h): _epi_act/_epi_alpha/_epi_beta.
// The statistics (mean, variance) are the reduction; the Add feeds it and the activation
// runs on each normalised element before the one store.
#include "passes/fusion/fusion_util.h"
#include "ops/impl_variant.h"
#include "passes/pass.h"
#include "passes/ub_fusion/epilogue_activation.h"

namespace atc {

bool runTbeReduceElemwiseFusionPass(Graph& g, PassContext& ctx) {
  bool changed = false;
  std::vector<Node*> norms;
  for (auto& up : g.nodes())
    if ((up->type == "LayerNormalization" || up->type == "InstanceNormalization" ||
         up->type == "BatchNormalization") &&
        up->outputs[0]->type.dtype == DType::F32 && !up->hasAttr("_pre_add") && !up->hasAttr("_epi_act") &&
        !implKeepsOwnKernel(*up))
      norms.push_back(up.get());
  for (Node* n : norms) {
    Value* x = n->inputs[0];
    Node* add = x ? x->producer : nullptr;
    bool takeAdd = false;
    if (n->type != "BatchNormalization" && add && add->type == "Add" && add->inputs.size() == 2 && fu::soleUserIs(g, x, n) &&
        !implKeepsOwnKernel(*add)) {
      Value* a = add->inputs[0];
      Value* b = add->inputs[1];
      // A constant addend of X's full shape is fine (read from the weights like any input).
      takeAdd = a && b && a->type == x->type && b->type == x->type;
      if (!takeAdd) ctx.debug(n->name + ": Add before it not fused (broadcast operand)");
    }
    Node* act = nullptr;
    int64_t code = -1;
    double aa = 0, bb = 0;
    bool statsUsed = false;
    for (size_t i = 1; i < n->outputs.size(); ++i)
      if (n->outputs[i] && (g.isGraphOutput(n->outputs[i]) || !g.users(n->outputs[i]).empty())) statsUsed = true;
    if (Node* u = fu::soleUser(g, n->outputs[0]); u && !statsUsed && activationOf(*u, &code, &aa, &bb))
      act = u;
    if (!takeAdd && !act) continue;
    ctx.stats.matchTimes++;
    n->originalNames = {n->name};
    if (takeAdd) {
      n->originalNames.insert(n->originalNames.begin(), add->name);
      Value* a = add->inputs[0];
      Value* b = add->inputs[1];
      while (n->inputs.size() < 3) n->inputs.push_back(nullptr);
      n->inputs[0] = a;
      n->inputs.push_back(b);
      n->attrs["_pre_add"] = int64_t(3);
      g.removeNode(add);
    }
    if (act) {
      n->originalNames.push_back(act->name);
      Value* out = act->outputs[0];
      g.removeNode(act);
      fu::adoptOutput(n, out);
      setEpilogueActivation(n, code, aa, bb);
    }
    n->attrs["_ub_pass"] = ctx.passName;  // repository_hit_times (atc/fusion_result.h)
    ctx.stats.effectTimes++;
    changed = true;
  }
  return fu::finishRewrite(g, changed);
}

}  // namespace atc
