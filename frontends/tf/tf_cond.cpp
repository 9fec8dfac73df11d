// See tf_cond.h.
#include "frontends/tf/tf_cond.h"

#include "support/diagnostics.h"

namespace atc {
namespace tffe {

const CondGuards::Guard* CondGuards::guardOf(const Value* v) const {
  auto it = guards_.find(v);
  return it == guards_.end() ? nullptr : &it->second;
}

std::vector<Value*> CondGuards::switchOutputs(TfCtx& ctx, Value* x, Value* pred) {
  if (pred->type.shapeKnown && (pred->type.dtype != DType::Bool || pred->type.numel() != 1))
    ctx.invalid("Switch needs a single bool predicate, got " + pred->type.str());
  Guard base;
  if (const Guard* g = guardOf(x)) base = *g;
  if (const Guard* g = guardOf(pred); g && g->size() > base.size()) base = *g;
  std::vector<Value*> outs;
  for (int side = 0; side < 2; ++side) {
    Value* v = ctx.op("Identity", {x}, {}, side ? "true" : "false");
    Guard gd = base;
    gd.emplace_back(pred, side == 1);
    guards_[v] = std::move(gd);
    outs.push_back(v);
  }
  return outs;
}

void CondGuards::inherit(const std::vector<Value*>& outs, const std::vector<Value*>& from) {
  const Guard* best = nullptr;
  for (Value* v : from)
    if (const Guard* g = v ? guardOf(v) : nullptr; g && (!best || g->size() > best->size())) best = g;
  if (!best) return;
  Guard copy = *best;  // outs may alias from
  for (Value* o : outs)
    if (o && !guardOf(o)) guards_[o] = copy;
}

bool CondGuards::merge(TfCtx& ctx, const std::vector<Value*>& ins, std::vector<Value*>* out) {
  const Guard* gs[2] = {nullptr, nullptr};
  for (size_t k = 0; k < ins.size() && k < 2; ++k) gs[k] = guardOf(ins[k]);
  if (!gs[0] && !gs[1]) return false;
  if (ins.size() != 2)
    ctx.unsupported("a Merge of " + std::to_string(ins.size()) + " guarded inputs (only the two sides of one "
                    "tf.cond are supported)");
  // The innermost guard decides; an input without it (a value from outside the cond) is the
  // other side.
  const Guard& inner = (gs[0] && (!gs[1] || gs[0]->size() >= gs[1]->size())) ? *gs[0] : *gs[1];
  Value* pred = inner.back().first;
  bool isInner[2];
  for (int k = 0; k < 2; ++k) {
    isInner[k] = gs[k] && gs[k]->size() == inner.size();
    if (isInner[k] && gs[k]->back().first != pred)
      ctx.unsupported("a Merge of values from two different tf.cond predicates");
  }
  int trueAt;
  if (isInner[0] && isInner[1]) {
    if (gs[0]->back().second == gs[1]->back().second)
      ctx.unsupported("a Merge of two values from the same side of a tf.cond");
    trueAt = gs[0]->back().second ? 0 : 1;
  } else {
    int k = isInner[0] ? 0 : 1;
    trueAt = gs[k]->back().second ? k : 1 - k;
  }
  Value* t = ins[(size_t)trueAt];
  Value* f = ins[(size_t)(1 - trueAt)];
  if (!t->type.isStatic() || !(t->type == f->type))
    ctx.unsupported("the two branches of a tf.cond on a run-time predicate give " +
                    (t->type.shapeKnown ? t->type.str() : std::string("an unknown shape")) + " and " +
                    (f->type.shapeKnown ? f->type.str() : std::string("an unknown shape")) +
                    "; both branches run and the result is selected, which needs one static type");
  Value* p = ctx.op("Reshape", {pred, ctx.constI64({})}, {}, "pred");
  Value* v = ctx.op("Where", {p, t, f});
  Value* idx = ctx.op("Where", {p, ctx.constScalar(trueAt, DType::I32), ctx.constScalar(1 - trueAt, DType::I32)}, {},
                      "value_index");
  Guard outer(inner.begin(), inner.end() - 1);
  if (!outer.empty()) guards_[v] = guards_[idx] = outer;
  *out = {v, idx};
  return true;
}

}  // namespace tffe
}  // namespace atc
