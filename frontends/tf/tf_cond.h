// TF1 `tf.cond` on a predicate known only at run time, by if-conversion (docs/frontend-tf.md,
// "Control flow"): a Switch forwards its data to both outputs, each marked with a guard
// (predicate, side); every value computed from a guarded value, or from a node with a control
// input on one (the branch's constants hang on the pivot `switch_t` / `switch_f`), carries the
// innermost guards of its inputs; a Merge of the two sides of one guard becomes
// Where(predicate, true side, false side). Both branches run on every call.
#pragma once
#include <map>
#include <utility>
#include <vector>

#include "frontends/tf/tf_convert.h"
#include "ir/graph.h"

namespace atc {
namespace tffe {

class CondGuards {
 public:
  using Guard = std::vector<std::pair<Value*, bool>>;  // (predicate, side), outermost first

  // Switch(x, pred) with a run-time pred: {output 0 (false side), output 1 (true side)}.
  std::vector<Value*> switchOutputs(TfCtx& ctx, Value* x, Value* pred);
  // outs inherit the longest guard of `from` (data and control inputs).
  void inherit(const std::vector<Value*>& outs, const std::vector<Value*>& from);
  // Merge of guarded values: fills *out ({value, value_index}) and returns true; false when no
  // input is guarded (the caller's rules apply).
  bool merge(TfCtx& ctx, const std::vector<Value*>& ins, std::vector<Value*>* out);

 private:
  const Guard* guardOf(const Value* v) const;
  std::map<const Value*, Guard> guards_;
};

}  // namespace tffe
}  // namespace atc
