// ConvBatchnormFusionPass: Conv(x, W, b) + BatchNormalization(inference, constant params)
// -> Conv(x, W * s, (b - mean) * s + beta), s = scale / sqrt(var + eps).
// ConvScaleFusionPass: Conv + Mul / Add by a per-output-channel constant ([OC,1,..] or
// [1,OC,1,..]) -> folded into W and b.
#include <cmath>
#include <memory>

#include "passes/fusion/fusion_util.h"
#include "passes/pass.h"

namespace atc {
namespace {

bool foldableConv(const Node* c) {
  return c->type == "Conv" && c->inputs.size() <= 3 && c->inputs[1]->isConstant() &&
         c->inputs[1]->type.dtype == DType::F32 && (!c->input(2) || c->input(2)->isConstant()) &&
         c->outputs[0]->type.isStatic() && !c->hasAttr("_epi_act") && !c->hasAttr("_epi_res");
}

// Per-channel constant of OC elements laid out on dim 1 of the conv output; values in *vals.
bool perChannel(const Value* v, int64_t OC, int64_t outRank, std::vector<double>* vals) {
  if (!v || !v->isConstant() || !v->type.isStatic() || !isFloat(v->type.dtype)) return false;
  const Shape& s = v->type.shape;
  int64_t n = v->type.numel();
  if (n == 1) {
    vals->assign((size_t)OC, v->constant->floatAt(0));
    return true;
  }
  if (n != OC || (int64_t)s.size() > outRank) return false;
  // The channel dim must be output dim 1 (right-aligned broadcasting).
  int64_t off = outRank - (int64_t)s.size();
  for (int64_t i = 0; i < (int64_t)s.size(); ++i)
    if (s[i] != 1 && i + off != 1) return false;
  vals->resize((size_t)OC);
  for (int64_t i = 0; i < OC; ++i) (*vals)[i] = v->constant->floatAt(i);
  return true;
}

// Replaces conv c's weights/bias by W*mul[oc], b*mul[oc] + add[oc]; c takes over `last`'s output.
void rewriteConv(Graph& g, Node* c, const std::vector<double>& mul, const std::vector<double>& add, Node* last) {
  const Value* w = c->inputs[1];
  int64_t OC = w->type.shape[0], per = w->type.numel() / OC;
  auto nw = std::make_shared<Tensor>(w->type);
  const float* src = w->constant->as<float>();
  for (int64_t o = 0; o < OC; ++o)
    for (int64_t i = 0; i < per; ++i) nw->as<float>()[o * per + i] = (float)(src[o * per + i] * mul[o]);
  auto nb = std::make_shared<Tensor>(TensorType(DType::F32, {OC}));
  for (int64_t o = 0; o < OC; ++o) {
    double b0 = c->input(2) ? c->input(2)->constant->floatAt(o) : 0.0;
    nb->as<float>()[o] = (float)(b0 * mul[o] + add[o]);
  }
  c->inputs[1] = g.newConstant(c->name + "_w_fused", nw);
  if (c->inputs.size() < 3) c->inputs.push_back(nullptr);
  c->inputs[2] = g.newConstant(c->name + "_b_fused", nb);
  Value* out = last->outputs[0];
  c->originalNames.push_back(last->name);
  g.removeNode(last);
  fu::adoptOutput(c, out);
}

}  // namespace

bool runConvBatchnormFusion(Graph& g, PassContext& ctx) {
  bool changed = false;
  std::vector<Node*> convs;
  for (auto& up : g.nodes())
    if (up->type == "Conv") convs.push_back(up.get());
  for (Node* c : convs) {
    Node* bn = fu::soleUser(g, c->outputs[0]);
    if (!bn || bn->type != "BatchNormalization" || bn->inputs[0] != c->outputs[0]) continue;
    ctx.stats.matchTimes++;
    bool ok = foldableConv(c) && bn->outputs.size() == 1 && bn->attrInt("training_mode", 0) == 0;
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
    rewriteConv(g, c, mul, add, bn);
    ctx.stats.effectTimes++;
    changed = true;
  }
  if (changed) g.pruneValues();
  return changed;
}

bool runConvScaleFusion(Graph& g, PassContext& ctx) {
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
      if (!foldableConv(c) || !(u->outputs[0]->type == c->outputs[0]->type) ||
          !perChannel(k, c->inputs[1]->type.shape[0], c->outputs[0]->type.rank(), &vals)) {
        ctx.debug("Conv " + c->name + " + " + u->type + " " + u->name +
                  " not fused: the constant is not per output channel, or the conv weights are not constant float32");
        break;
      }
      int64_t OC = c->inputs[1]->type.shape[0];
      std::vector<double> mul((size_t)OC, 1.0), add((size_t)OC, 0.0);
      if (u->type == "Mul") mul = vals;
      else add = vals;
      if (c->originalNames.empty()) c->originalNames = {c->name};
      rewriteConv(g, c, mul, add, u);
      ctx.stats.effectTimes++;
      changed = true;
    }
  }
  if (changed) g.pruneValues();
  return changed;
}

}  // namespace atc
