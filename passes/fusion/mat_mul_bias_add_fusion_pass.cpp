// MatMulBiasAddFusionPass: MatMul(A, B[K,N] constant) + Add(constant bias of N elements on
// the last dim) -> MatMul(A, B, bias) (the gemm kernel adds the bias in the tile).
#include <memory>

#include "passes/fusion/fusion_util.h"
#include "passes/pass.h"

namespace atc {

bool runMatMulBiasAddFusionPass(Graph& g, PassContext& ctx) {
  bool changed = false;
  std::vector<Node*> mms;
  for (auto& up : g.nodes())
    if (up->type == "MatMul" && up->inputs.size() == 2) mms.push_back(up.get());
  for (Node* mm : mms) {
    Node* add = fu::soleUser(g, mm->outputs[0]);
    if (!add || add->type != "Add") continue;
    Value* bias = fu::otherInput(add, mm->outputs[0]);
    if (!bias || !bias->isConstant()) continue;
    ctx.stats.matchTimes++;
    const TensorType& bt = mm->inputs[1]->type;
    const TensorType& yt = mm->outputs[0]->type;
    bool ok = bt.isStatic() && bt.rank() == 2 && mm->inputs[0]->type.rank() >= 2 && yt.isStatic() &&
              yt.dtype == DType::F32 && bias->type.dtype == DType::F32 && bias->type.isStatic() &&
              bias->type.numel() == bt.shape[1] && bias->type.rank() >= 1 && bias->type.shape.back() == bt.shape[1] &&
              bias->type.rank() <= yt.rank() && add->outputs[0]->type == yt;
    if (!ok) {
      ctx.debug("MatMul " + mm->name + " + Add " + add->name +
                " not fused: needs a 2-D right operand, float32, and a bias of N elements on the last dim");
      continue;
    }
    auto t = std::make_shared<Tensor>(TensorType(DType::F32, {bt.shape[1]}));
    t->data = bias->constant->data;
    Value* bv = g.newConstant(add->name + "_bias", t);
    mm->inputs.push_back(bv);
    Value* out = add->outputs[0];
    mm->originalNames = {mm->name, add->name};
    g.removeNode(add);
    g.replaceAllUses(mm->outputs[0], out);
    fu::adoptOutput(mm, out);  // the MatMul now produces the Add's value
    ctx.stats.effectTimes++;
    changed = true;
  }
  if (changed) g.pruneValues();
  return changed;
}

}  // namespace atc
