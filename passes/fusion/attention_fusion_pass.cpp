// AttentionFusionPass: multi-head scaled dot-product attention
//   MatMul(Q, K^T) -> [Div|Mul by a scalar constant] -> [Add mask] -> Softmax(last axis)
//   -> MatMul(., V) -> [Transpose] -> [Reshape...]
// -> one FusedAttention node (ops/fused/attention.cpp, kernel kernels/lib/attention.cpp).
// Q, K^T and V are traced back through the Split/Reshape/Transpose nodes that make the heads
// (passes/fusion/view_trace.h): the kernel reads the packed QKV projection in place and
// writes the [batch, seq, heads*dim] result directly; the head nodes left without users go.
#include <algorithm>
#include <cmath>

#include "passes/fusion/fusion_util.h"
#include "passes/fusion/view_trace.h"
#include "passes/pass.h"

namespace atc {
namespace {

// A view of rank 3 or 4 as [b, h, x, y] (rank 3: b = 1 with stride 0).
bool asRank4(fu::StridedView* v) {
  if (v->shape.size() == 3) {
    v->shape.insert(v->shape.begin(), 1);
    v->strides.insert(v->strides.begin(), 0);
  }
  return v->shape.size() == 4;
}

std::vector<int64_t> viewAttr(const fu::StridedView& v, bool swapLast) {
  if (swapLast) return {v.offset, v.strides[0], v.strides[1], v.strides[3], v.strides[2]};
  return {v.offset, v.strides[0], v.strides[1], v.strides[2], v.strides[3]};
}

// Mask strides [b, h, q, k] of a mask broadcast to `full` (rank 4); false if it does not fit.
bool maskView(const Value* m, const Shape& full, std::vector<int64_t>* view) {
  const Shape& s = m->type.shape;
  if (!m->type.isStatic() || s.size() > 4 || m->type.dtype != DType::F32) return false;
  std::vector<int64_t> st = fu::contiguousStrides(s);
  view->assign(5, 0);
  for (size_t i = 0; i < s.size(); ++i) {
    size_t fi = 4 - s.size() + i;
    if (s[i] != 1 && s[i] != full[fi]) return false;
    (*view)[1 + fi] = s[i] == 1 ? 0 : st[i];
  }
  return true;
}

int64_t softmaxAxis(const Graph& g, const Node* sm) {
  int64_t r = sm->inputs[0]->type.rank();
  int64_t def = g.opsetVersion != 0 && g.opsetVersion < 13 ? 1 : -1;
  int64_t a = sm->attrInt("axis", def);
  return a < 0 ? a + r : a;
}

// Removes nodes of `cand` whose outputs nobody reads any more (repeats until stable).
void dropDead(Graph& g, std::vector<Node*> cand) {
  bool again = true;
  while (again) {
    again = false;
    for (Node*& n : cand) {
      if (!n) continue;
      bool used = false;
      for (Value* o : n->outputs) used = used || g.isGraphOutput(o) || !g.users(o).empty();
      if (!used) {
        g.removeNode(n);
        n = nullptr;
        again = true;
      }
    }
  }
}

// Output side of the attention: [Transpose] then Reshape-like nodes, each the sole user.
// Sets *out (the last value) and *tail (those nodes); returns the rank-4 output strides.
std::vector<int64_t> traceOutputSide(Graph& g, Node* mm2, Value** outp, std::vector<Node*>* tail) {
  Value* out = mm2->outputs[0];
  std::vector<int64_t> ost = fu::contiguousStrides(out->type.shape);
  Node* t = fu::soleUser(g, out);
  if (t && t->type == "Transpose" && t->outputs[0]->type.isStatic()) {
    std::vector<int64_t> perm = fu::transposePerm(t);
    size_t r = out->type.rank();
    std::vector<int64_t> tst = fu::contiguousStrides(t->outputs[0]->type.shape);
    for (size_t i = 0; i < r && perm.size() == r; ++i) ost[perm[i]] = tst[i];
    out = t->outputs[0];
    tail->push_back(t);
    t = fu::soleUser(g, out);
  }
  while (t && (t->type == "Reshape" || t->type == "Flatten") && t->outputs[0]->type.isStatic() &&
         t->inputs[0] == out) {
    out = t->outputs[0];
    tail->push_back(t);
    t = fu::soleUser(g, out);
  }
  if (ost.size() == 3) ost.insert(ost.begin(), 0);
  *outp = out;
  return ost;
}

// Softmax -> Where(Equal(ReduceMax(bias, last axis, keepdims), -inf), 0, softmax): the guard of
// ONNX Attention's function body that gives a row whose every key is masked zero probabilities.
// Returns the Where node (its sole reader of the softmax) and sets *bias and *checks (its Equal
// and ReduceMax; both null when the condition is a constant false everywhere: the guard is a
// no-op), or returns null.
Node* maskedRowGuard(const Graph& g, Node* sm, Value** bias, std::vector<Node*>* checks) {
  Node* w = fu::soleUser(g, sm->outputs[0]);
  double c;
  if (!w || w->type != "Where" || w->inputs.size() != 3 || w->inputs[2] != sm->outputs[0] ||
      !fu::scalarConst(w->inputs[1], &c) || c != 0.0 || !w->outputs[0]->type.isStatic() ||
      w->outputs[0]->type.shape != sm->outputs[0]->type.shape)  // the guard must not broadcast
    return nullptr;
  // A constant condition (the mask was constant: a causal triangle) that is false everywhere:
  // no row is fully masked, the guard passes the softmax through.
  if (const Value* cv = w->inputs[0]; cv->isConstant() && cv->constant->type.dtype == DType::Bool) {
    for (int64_t i = 0; i < cv->constant->type.numel(); ++i)
      if (cv->constant->data[(size_t)i]) return nullptr;
    *bias = nullptr;
    checks->clear();
    return w;
  }
  Node* eq = w->inputs[0]->producer;
  if (!eq || eq->type != "Equal" || eq->inputs.size() != 2) return nullptr;
  int k = fu::scalarConst(eq->inputs[1], &c) && c == -INFINITY ? 0 : fu::scalarConst(eq->inputs[0], &c) && c == -INFINITY ? 1 : -1;
  Node* rm = k < 0 ? nullptr : eq->inputs[k]->producer;
  if (!rm || rm->type != "ReduceMax" || rm->attrInt("keepdims", 1) != 1 || !rm->inputs[0]->type.isStatic()) return nullptr;
  std::vector<int64_t> axes = rm->attrInts("axes");
  if (rm->input(1)) {
    if (!rm->inputs[1]->isConstant()) return nullptr;
    axes = rm->inputs[1]->constant->toInts();
  }
  const int64_t r = rm->inputs[0]->type.rank();
  if (axes.size() != 1 || (axes[0] != -1 && axes[0] != r - 1)) return nullptr;
  *bias = rm->inputs[0];
  *checks = {eq, rm};
  return w;
}

}  // namespace

bool runAttentionFusionPass(Graph& g, PassContext& ctx) {
  bool changed = false;
  std::vector<Node*> sms;
  for (auto& up : g.nodes())
    if (up->type == "Softmax") sms.push_back(up.get());
  for (Node* sm : sms) {
    Value* guardBias = nullptr;
    std::vector<Node*> guardNodes;  // the guard's Equal and ReduceMax, dropped when left unread
    Node* guard = maskedRowGuard(g, sm, &guardBias, &guardNodes);
    Value* probs = guard ? guard->outputs[0] : sm->outputs[0];
    Node* mm2 = fu::soleUser(g, probs);
    if (!mm2 || mm2->type != "MatMul" || mm2->inputs[0] != probs) continue;
    // Walk back: [Add mask] <- [Div/Mul scale] <- MatMul.
    std::vector<Node*> chain = {sm};
    Value* x = sm->inputs[0];
    Value* mask = nullptr;
    double scale = 1.0;
    Node* p = x->producer;
    if (p && p->type == "Add" && fu::soleUserIs(g, x, sm)) {
      Node* a0 = p->inputs[0]->producer;
      bool firstIsScores = a0 && (a0->type == "Div" || a0->type == "Mul" || a0->type == "MatMul");
      mask = firstIsScores ? p->inputs[1] : p->inputs[0];
      x = firstIsScores ? p->inputs[0] : p->inputs[1];
      chain.push_back(p);
      p = x->producer;
    }
    double c;
    if (p && (p->type == "Div" || p->type == "Mul") && fu::scalarConst(p->inputs[1], &c) &&
        fu::soleUserIs(g, x, chain.back()) && c != 0.0) {
      scale = p->type == "Div" ? 1.0 / c : c;
      x = p->inputs[0];
      chain.push_back(p);
      p = x->producer;
    }
    if (!p || p->type != "MatMul" || p->inputs.size() != 2 || !fu::soleUserIs(g, x, chain.back())) continue;
    Node* mm1 = p;
    chain.push_back(mm1);
    ctx.stats.matchTimes++;
    auto reject = [&](const std::string& why) {
      ctx.debug("attention at " + sm->name + " not fused: " + why);
    };
    const TensorType& st = mm1->outputs[0]->type;
    if (!st.isStatic() || (st.rank() != 3 && st.rank() != 4) || st.dtype != DType::F32 ||
        mm2->outputs[0]->type.rank() != st.rank() || !mm2->outputs[0]->type.isStatic() ||
        softmaxAxis(g, sm) != st.rank() - 1) {
      reject("needs static float32 rank-3/4 scores with the softmax over the last axis");
      continue;
    }
    bool sameRanks = mm1->inputs[0]->type.rank() == st.rank() && mm1->inputs[1]->type.rank() == st.rank() &&
                     mm2->inputs[1]->type.rank() == st.rank();
    if (!sameRanks || mm2->inputs[1]->type.dtype != DType::F32) {
      reject("Q, K and V must have the rank of the scores (no broadcast batch dims), float32");
      continue;
    }
    fu::StridedView q = fu::traceView(mm1->inputs[0]), kt = fu::traceView(mm1->inputs[1]),
                    v = fu::traceView(mm2->inputs[1]);
    asRank4(&q);
    asRank4(&kt);
    asRank4(&v);
    Shape s4 = st.shape;
    if (s4.size() == 3) s4.insert(s4.begin(), 1);
    const int64_t B = s4[0], H = s4[1], SQ = s4[2], SK = s4[3], D = q.shape[3], DV = v.shape[3];
    if (q.shape[0] != B || q.shape[1] != H || kt.shape[0] != B || kt.shape[1] != H || v.shape[0] != B ||
        v.shape[1] != H) {
      reject("Q, K, V batch/head dims differ from the scores'");
      continue;
    }
    std::vector<int64_t> mview;
    if (guard && guardBias && mask != guardBias) {
      reject("the masked-row guard reads another bias than the added mask");
      continue;
    }
    if (mask && !maskView(mask, {B, H, SQ, SK}, &mview)) {
      reject("the added mask does not broadcast to the scores or is not float32");
      continue;
    }
    Value* out = nullptr;
    std::vector<Node*> tail;
    std::vector<int64_t> o4 = traceOutputSide(g, mm2, &out, &tail);
    // Build the node.
    std::vector<std::string> names;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) names.push_back((*it)->name);
    if (guard) names.push_back(guard->name);
    names.push_back(mm2->name);
    for (Node* n : tail) names.push_back(n->name);
    std::vector<Node*> heads;  // data-movement nodes feeding Q/K/V, dropped when dead
    for (auto* tv : {&q, &kt, &v})
      for (Node* n : tv->through)
        if (std::find(heads.begin(), heads.end(), n) == heads.end()) heads.push_back(n);
    std::vector<Value*> ins = {q.base, kt.base, v.base};
    if (mask) ins.push_back(mask);
    std::string name = g.uniqueNodeName(mm1->name + "_attention");
    for (Node* n : chain) g.removeNode(n);
    if (guard) g.removeNode(guard);
    g.removeNode(mm2);
    for (Node* n : tail) g.removeNode(n);
    Node* fa = g.addNode("FusedAttention", name, ins, {out});
    fa->attrs["dims"] = std::vector<int64_t>{B, H, SQ, SK, D, DV};
    fa->attrs["scale"] = scale;
    fa->attrs["q_view"] = viewAttr(q, false);
    fa->attrs["k_view"] = viewAttr(kt, true);
    fa->attrs["v_view"] = viewAttr(v, false);
    fa->attrs["o_view"] = std::vector<int64_t>{0, o4[0], o4[1], o4[2], o4[3]};
    if (mask) fa->attrs["m_view"] = mview;
    if (guardBias) fa->attrs["zero_masked_rows"] = (int64_t)1;
    fa->attrs["out_shape"] = out->type.shape;
    fa->originalNames = names;
    dropDead(g, heads);
    dropDead(g, guardNodes);
    ctx.stats.effectTimes++;
    changed = true;
  }
  return fu::finishRewrite(g, changed);
}

}  // namespace atc
