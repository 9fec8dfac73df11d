// TransdataCastFusionPass: layout/precision round trips that cancel.
//   Transpose(p1) -> Transpose(p2) with p1 o p2 = identity (the NHWC<->NCHW pairs the TF
//   frontend emits between layers; ATC's TransData pairs) -> nothing
//   Transpose with the identity perm                       -> nothing
//   Cast(a->b) -> Cast(b->a) with b wider than a (lossless) -> nothing
// The second node's value is replaced by the first node's input; the first node stays while
// it has other users. A value that is a graph output keeps its producer.
#include <algorithm>

#include "passes/fusion/fusion_util.h"
#include "passes/pass.h"

namespace atc {
namespace {

bool isIdentityPerm(const std::vector<int64_t>& p) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != (int64_t)i) return false;
  return true;
}

// Every value of `a` is exactly representable in `b`.
bool lossless(DType a, DType b) {
  auto bits = [](DType d) { return (int)dtypeSize(d) * 8; };
  auto isSigned = [](DType d) { return d == DType::I8 || d == DType::I16 || d == DType::I32 || d == DType::I64; };
  auto isUnsigned = [](DType d) { return d == DType::U8 || d == DType::U16 || d == DType::U32 || d == DType::U64; };
  auto mantissa = [](DType d) { return d == DType::F16 ? 11 : d == DType::BF16 ? 8 : d == DType::F32 ? 24 : d == DType::F64 ? 53 : 0; };
  if (a == b) return true;
  if (isCastOnly(a) || isCastOnly(b)) return false;  // conservative (E8M0 has no zero: bool 0 would not survive)
  if (a == DType::Bool) return b != DType::Bool;
  if (isFloat(a)) {
    if (!isFloat(b)) return false;
    if (a == DType::F16 && b == DType::BF16) return false;
    if (a == DType::BF16 && b == DType::F16) return false;
    return mantissa(b) >= mantissa(a) && bits(b) > bits(a);
  }
  if (isSigned(a)) {
    if (isSigned(b)) return bits(b) >= bits(a);
    if (isFloat(b)) return mantissa(b) >= bits(a);
    return false;
  }
  if (isUnsigned(a)) {
    if (isUnsigned(b)) return bits(b) >= bits(a);
    if (isSigned(b)) return bits(b) > bits(a);
    if (isFloat(b)) return mantissa(b) >= bits(a);
  }
  return false;
}

}  // namespace

bool runTransdataCastFusionPass(Graph& g, PassContext& ctx) {
  bool changed = false;
  std::vector<Node*> list = fu::nodesWhere(g, [](const Node& n) { return n.type == "Transpose" || n.type == "Cast"; });
  std::vector<Node*> removed;
  auto gone = [&](Node* n) { return std::find(removed.begin(), removed.end(), n) != removed.end(); };
  for (Node* n : list) {
    if (gone(n) || n->inputs.empty() || !n->inputs[0]) continue;
    Value* y = n->outputs[0];
    Value* src = nullptr;
    Node* first = nullptr;
    std::string what;
    if (n->type == "Transpose") {
      if (!n->inputs[0]->type.shapeKnown) continue;
      Node* p = n->inputs[0]->producer;
      std::vector<int64_t> p2 = fu::transposePerm(n);
      if (isIdentityPerm(p2)) {
        ctx.stats.matchTimes++;
        src = n->inputs[0];
        what = "identity Transpose " + n->name;
      } else if (p && p->type == "Transpose") {
        std::vector<int64_t> p1 = fu::transposePerm(p);
        if (p1.size() != p2.size()) continue;
        bool id = true;
        for (size_t i = 0; i < p2.size(); ++i) id = id && p2[i] >= 0 && p2[i] < (int64_t)p1.size() && p1[p2[i]] == (int64_t)i;
        if (!id) continue;
        ctx.stats.matchTimes++;
        src = p->inputs[0];
        first = p;
        what = "Transpose pair " + p->name + " -> " + n->name;
      }
    } else {
      Node* p = n->inputs[0]->producer;
      if (!p || p->type != "Cast" || !p->inputs[0]) continue;
      DType a = p->inputs[0]->type.dtype, b = p->outputs[0]->type.dtype, c = y->type.dtype;
      if (c != a) continue;
      ctx.stats.matchTimes++;
      if (!lossless(a, b)) {
        ctx.debug("Cast pair " + p->name + " -> " + n->name + " not removed: " + dtypeName(b) + " does not hold every " +
                  dtypeName(a) + " value");
        continue;
      }
      src = p->inputs[0];
      first = p;
      what = "Cast pair " + p->name + " -> " + n->name;
    }
    if (!src) continue;
    if (g.isGraphOutput(y) || src->type.shape != y->type.shape) {
      ctx.debug(what + " not removed: its result is a graph output");
      continue;
    }
    g.replaceAllUses(y, src);
    g.removeNode(n);
    removed.push_back(n);
    if (first) {
      size_t before = g.nodes().size();
      fu::dropIfDead(g, first);
      if (g.nodes().size() != before) removed.push_back(first);
    }
    ctx.debug(what + " removed");
    ctx.stats.effectTimes++;
    changed = true;
  }
  if (changed) g.pruneValues();
  return changed;
}

}  // namespace atc
