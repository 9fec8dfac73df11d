// Shape inference and constant folding in one walk, in topological order: each node is
// inferred (its inputs are final by then), and a node whose outputs are all known is
// removed, its output values becoming constants (same Value objects, so names and graph
// outputs stay). A node's outputs are known when:
//  - its inference set output->constant (shape-only ops: Shape, Size), or
//  - every input is a constant and the native kernel library can evaluate it.
// Nodes whose outputs all have zero elements fold to empty constants.
// Ops marked aliasesInput0 (Reshape, Unsqueeze...) fold by re-typing input 0's bytes.
// This is what folds Shape -> Gather -> Concat -> Reshape chains: the Reshape's shape input
// is a constant by the time the Reshape is inferred.
// Results that are large and much larger than the inputs (Expand, ConstantOfShape, Tile,
// Range of a few scalars...) are not folded: a kernel makes them cheaply at run time,
// while folding would bloat the .om.
#include <exception>

#include "ops/native_eval.h"
#include "support/diagnostics.h"
#include "ir/op_registry.h"
#include "passes/pass.h"
#include "passes/quant/qdq_conv_fold.h"

namespace atc {

namespace {

constexpr int64_t kMaxCheapFoldElements = 1 << 20;

bool allOutputsKnown(const Node& n) {
  for (auto* o : n.outputs)
    if (!o->isConstant()) return false;
  return !n.outputs.empty();
}

// Every output static with zero elements: the outputs are known (empty) whatever the inputs,
// and no kernel has to run on zero-size shapes (a zero batch, a zero-length slice...). Not an
// output whose shape depends on data: an empty bound ([0, 5] for TopK of an empty batch) does
// not give the run's shape ([0, k]).
bool allOutputsEmpty(const Node& n) {
  for (auto* o : n.outputs)
    if (!o->type.isStatic() || o->type.numel() != 0 || o->shapeFromData) return false;
  return !n.outputs.empty();
}

bool allInputsConstant(const Node& n) {
  for (auto* in : n.inputs)
    if (in && !in->isConstant()) return false;
  return true;
}

// True when folding would store a large result made from much smaller inputs.
bool tooLargeToFold(const Node& n) {
  int64_t in = 0, out = 0;
  for (auto* v : n.inputs)
    if (v) in += std::max<int64_t>(v->type.numel(), 0);
  for (auto* v : n.outputs) out += std::max<int64_t>(v->type.numel(), 0);
  return out > kMaxCheapFoldElements && out > 2 * in;
}

// Ops whose single output has input 0's bytes unchanged (Reshape, Squeeze, Identity...):
// the folded value is input 0's data with the output's type; no kernel needs to run.
std::vector<TensorPtr> aliasFold(const Node& n) {
  const OpDef* d = OpRegistry::instance().find(n.type);
  if (!d || !d->aliasesInput0 || n.outputs.size() != 1 || n.inputs.empty() || !n.inputs[0]) return {};
  const Tensor& in = *n.inputs[0]->constant;
  const TensorType& outType = n.outputs[0]->type;
  if (outType.dtype != in.type.dtype || outType.byteSize() != (int64_t)in.data.size()) return {};
  auto t = std::make_shared<Tensor>();
  t->type = outType;
  t->data = in.data;
  return {t};
}

}  // namespace

bool runConstantFolding(Graph& g, PassContext& ctx) {
  g.topoSort();
  std::vector<Node*> order;
  for (auto& n : g.nodes()) order.push_back(n.get());
  bool changed = false;
  const std::set<const Node*> keepDq = weightDequantizeForQdqConvFold(g, ctx);
  for (Node* n : order) {
    inferNode(g, *n);
    if (allOutputsKnown(*n)) {
      ctx.stats.matchTimes++;
      ctx.stats.effectTimes++;
      ctx.debug("folded " + n->name + " (" + n->type + "): outputs known from types");
      g.removeNode(n);
      changed = true;
      continue;
    }
    if (allOutputsEmpty(*n)) {
      for (auto* o : n->outputs) o->constant = std::make_shared<Tensor>(o->type);
      ctx.stats.matchTimes++;
      ctx.stats.effectTimes++;
      ctx.debug("folded " + n->name + " (" + n->type + "): its outputs have zero elements");
      g.removeNode(n);
      changed = true;
      continue;
    }
    if (!allInputsConstant(*n)) continue;
    if (keepDq.count(n) && n->inputs[0]->type.dtype == DType::I8) {
      ctx.debug("not folding " + n->name + " (DequantizeLinear of int8 weights): kept for QdqConvFoldPass");
      continue;
    }
    if (!canEvalNative(*n)) {
      ctx.debug("not folding " + n->name + " (" + n->type + "): no native evaluation");
      continue;
    }
    ctx.stats.matchTimes++;
    if (tooLargeToFold(*n)) {
      ctx.debug("not folding " + n->name + " (" + n->type + "): result too large for its inputs");
      continue;
    }
    std::vector<TensorPtr> results;
    try {
      results = aliasFold(*n);
      if (results.empty()) results = evalNodeNative(g, *n);
    } catch (const AtcError& e) {
      ctx.debug("not folding " + n->name + " (" + n->type + "): " + e.message());
      continue;
    }
    if (results.size() != n->outputs.size()) continue;
    for (size_t i = 0; i < results.size(); ++i) {
      n->outputs[i]->constant = results[i];
      if (n->outputs[i]->shapeFromData) {  // the actual shape; final inference re-infers the readers
        n->outputs[i]->type = results[i]->type;
        n->outputs[i]->shapeFromData = false;
      }
    }
    ctx.stats.effectTimes++;
    ctx.debug("folded " + n->name + " (" + n->type + ")");
    g.removeNode(n);
    changed = true;
  }
  if (changed) g.pruneValues();
  return changed;
}

}  // namespace atc
