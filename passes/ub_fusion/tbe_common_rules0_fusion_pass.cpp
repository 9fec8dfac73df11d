// TbeCommonRules0FusionPass: a Conv / MatMul / Gemm followed by a residual Add (a tensor of
// the output's shape) and/or an activation (Relu, Clip, LeakyRelu, Sigmoid, Tanh, Gelu,
// HardSigmoid, HardSwish, Sigmoid-Mul = Swish/SiLU, HardSigmoid-Mul = hard-swish) becomes one
// cube kernel whose
// epilogue runs on each finished tile
// (kernels/lib/cube_gemm.h cube_epilogue). The node keeps its type and gets attributes
// _epi_act/_epi_alpha/_epi_beta and the residual as input 3 (_epi_res = 3).

#include "kernels/lib/math_eltwise_codes.h"
#include "passes/fusion/fusion_util.h"
#include "passes/pass.h"
#include "ops/impl_variant.h"
#include "passes/ub_fusion/epilogue_activation.h"

namespace atc {
namespace {

// HardSigmoid with the hard-swish constants: alpha = 1/6 (as float), beta = 0.5.
bool isHardSwishGate(const Node& s) {
  return s.type == "HardSigmoid" && (float)s.attrFloat("alpha", 0.2) == (float)(1.0 / 6.0) &&
         (float)s.attrFloat("beta", 0.5) == 0.5f;
}

// Swish / SiLU as exported by PyTorch: w -> Sigmoid(w) = s -> Mul(w, s), where w is used by
// exactly those two nodes and s only by the Mul; and hard-swish as PyTorch exports it below
// opset 14, the same with HardSigmoid(alpha 1/6, beta 0.5) (the epilogue's x * clamp(x / 6 + 0.5,
// 0, 1): MobileNetV3). The two nodes in *sig, *mul; *code the epilogue.
bool swishOf(const Graph& g, Value* w, Node** sig, Node** mul, int64_t* code) {
  if (!w || g.isGraphOutput(w)) return false;
  auto us = g.users(w);
  if (us.size() != 2) return false;
  auto gate = [](const Node* n) { return n->type == "Sigmoid" || isHardSwishGate(*n); };
  Node* s = gate(us[0]) ? us[0] : us[1];
  Node* m = s == us[0] ? us[1] : us[0];
  if (!gate(s) || m->type != "Mul" || s->inputs.size() != 1) return false;
  *code = s->type == "Sigmoid" ? ATCK_E_SILU : ATCK_E_HARDSWISH;
  if (fu::otherInput(m, w) != s->outputs[0] || !fu::soleUserIs(g, s->outputs[0], m)) return false;
  if (implKeepsOwnKernel(*s) || implKeepsOwnKernel(*m) || !(m->outputs[0]->type == w->type)) return false;
  *sig = s;
  *mul = m;
  return true;
}

}  // namespace

bool runTbeCommonRules0FusionPass(Graph& g, PassContext& ctx) {
  bool changed = false;
  std::vector<Node*> cubes;
  for (auto& up : g.nodes())
    if ((up->type == "Conv" || up->type == "MatMul" || up->type == "Gemm") && up->inputs.size() <= 3 &&
        !up->hasAttr("_epi_act") && up->outputs[0]->type.dtype == DType::F32)
      cubes.push_back(up.get());
  for (Node* c : cubes) {
    Value* v = c->outputs[0];
    Node* u = fu::soleUser(g, v);
    std::vector<Node*> absorbed;
    Value* res = nullptr;
    Value* w = v;  // the value the activation reads (after the residual Add, if any)
    if (u && u->type == "Add") {
      Value* r = fu::otherInput(u, v);
      if (r && !r->isConstant() && r->type == v->type && u->outputs[0]->type == v->type) {
        res = r;
        absorbed.push_back(u);
        w = u->outputs[0];
        u = fu::soleUser(g, w);
      }
    }
    int64_t code = -1;
    double a = 0, b = 0;
    Node *sig = nullptr, *mul = nullptr;
    if (u && activationOf(*u, &code, &a, &b)) {
      absorbed.push_back(u);
    } else if (swishOf(g, w, &sig, &mul, &code)) {
      absorbed.push_back(sig);
      absorbed.push_back(mul);
    } else {
      code = -1;
    }
    if (absorbed.empty()) continue;
    ctx.stats.matchTimes++;
    if (c->type == "Conv" && c->inputs[1]->type.dtype != DType::F32) {
      ctx.debug(c->name + ": epilogue not fused (weights are not float32)");
      continue;
    }
    Node* last = absorbed.back();
    Value* out = last->outputs[0];
    c->originalNames = {c->name};
    for (Node* n : absorbed) c->originalNames.push_back(n->name);
    for (Node* n : absorbed) g.removeNode(n);
    if (code >= 0) setEpilogueActivation(c, code, a, b);
    if (res) {
      while (c->inputs.size() < 3) c->inputs.push_back(nullptr);
      c->inputs.push_back(res);
      c->attrs["_epi_res"] = int64_t(3);
    }
    c->attrs["_ub_pass"] = ctx.passName;  // repository_hit_times (atc/fusion_result.h)
    fu::adoptOutput(c, out);
    ctx.stats.effectTimes++;
    changed = true;
  }
  return fu::finishRewrite(g, changed);
}

}  // namespace atc
