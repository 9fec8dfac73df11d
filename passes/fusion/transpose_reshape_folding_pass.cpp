// TransposeReshapeFoldingPass (cannot be switched off): chains of data-movement nodes that
// need one copy at most become one node:
//   Transpose(p1) -> Transpose(p2)    -> Transpose(p1 o p2) (identity compositions are left
//                                        to TransdataCastFusionPass, which cancels them)
//   Reshape/Flatten/Squeeze/Unsqueeze -> Reshape(x, final static shape) when chained
// The first node stays while it has other users; it goes when nobody reads it any more.
#include <cstring>
#include <memory>

#include "passes/fusion/fusion_util.h"
#include "passes/pass.h"

namespace atc {
namespace {

bool isReshapeLike(const Node* n) {
  return n->type == "Reshape" || n->type == "Flatten" || n->type == "Squeeze" || n->type == "Unsqueeze";
}

std::vector<std::string> mergedNames(const Node* p, const Node* n) {
  std::vector<std::string> r = p->originalNames.empty() ? std::vector<std::string>{p->name} : p->originalNames;
  if (n->originalNames.empty()) r.push_back(n->name);
  else r.insert(r.end(), n->originalNames.begin(), n->originalNames.end());
  return r;
}

}  // namespace

bool runTransposeReshapeFoldingPass(Graph& g, PassContext& ctx) {
  bool changed = false;
  std::vector<Node*> list =
      fu::nodesWhere(g, [](const Node& n) { return n.type == "Transpose" || isReshapeLike(&n); });
  // In topological order each second node sees its producer already folded.
  for (Node* n : list) {
    Node* p = n->inputs.empty() || !n->inputs[0] ? nullptr : n->inputs[0]->producer;
    if (!p || !n->outputs[0]->type.isStatic() || !p->inputs[0] || !p->inputs[0]->type.isStatic()) continue;
    if (n->type == "Transpose" && p->type == "Transpose") {
      ctx.stats.matchTimes++;
      std::vector<int64_t> p1 = fu::transposePerm(p), p2 = fu::transposePerm(n);
      if (p1.size() != p2.size()) continue;
      std::vector<int64_t> c(p2.size());
      bool identity = true;
      for (size_t i = 0; i < p2.size(); ++i) {
        if (p2[i] < 0 || p2[i] >= (int64_t)p1.size()) identity = false;
        c[i] = p1[p2[i]];
        identity = identity && c[i] == (int64_t)i;
      }
      if (identity) {
        ctx.debug("Transpose pair " + p->name + " -> " + n->name + " cancels: left to TransdataCastFusionPass");
        continue;
      }
      n->inputs[0] = p->inputs[0];
      n->attrs["perm"] = c;
      n->originalNames = mergedNames(p, n);
      fu::dropIfDead(g, p);
      ctx.stats.effectTimes++;
      changed = true;
    } else if (isReshapeLike(n) && isReshapeLike(p)) {
      ctx.stats.matchTimes++;
      Value* x = p->inputs[0];
      const Shape& s = n->outputs[0]->type.shape;
      auto t = std::make_shared<Tensor>(TensorType(DType::I64, {(int64_t)s.size()}));
      for (size_t i = 0; i < s.size(); ++i) std::memcpy(t->data.data() + 8 * i, &s[i], 8);
      Value* shp = g.newConstant(n->name + "_shape", t);
      n->originalNames = mergedNames(p, n);
      n->type = "Reshape";
      n->attrs.clear();
      n->inputs = {x, shp};
      fu::dropIfDead(g, p);
      ctx.stats.effectTimes++;
      changed = true;
    }
  }
  return fu::finishRewrite(g, changed);
}

}  // namespace atc
