// See import_eval.h.
#include "frontends/common/import_eval.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "ir/op_registry.h"
#include "ops/native_eval.h"
#include "support/diagnostics.h"

namespace atc {
namespace frontend {

const TensorType& ImportEval::typeOf(Value* v) {
  visit(v);
  return v->type;
}

TensorPtr ImportEval::constantOf(Value* v) {
  visit(v);
  auto it = folded_.find(v);
  return it == folded_.end() ? nullptr : it->second;
}

// Depth-first over the producers, without recursion (a cone can be a whole network deep).
void ImportEval::visit(Value* root) {
  std::vector<std::pair<Value*, bool>> stack{{root, false}};
  while (!stack.empty()) {
    auto [v, inputsDone] = stack.back();
    stack.pop_back();
    if (inputsDone) {
      evalProducer(v->producer);
      continue;
    }
    if (!visited_.insert(v).second) continue;
    if (v->constant) {
      folded_[v] = v->constant;
      continue;
    }
    if (!v->producer || evaluated_.count(v->producer)) continue;
    stack.push_back({v, true});
    for (Value* in : v->producer->inputs)
      if (in && !visited_.count(in)) stack.push_back({in, false});
  }
}

// Shape and Size of a statically shaped value: known without its contents.
TensorPtr ImportEval::shapeOnly(const Node& n) {
  if ((n.type != "Shape" && n.type != "Size") || n.inputs.empty() || !n.inputs[0]) return nullptr;
  const TensorType& t = n.inputs[0]->type;
  if (!t.isStatic() || n.outputs.size() != 1) return nullptr;
  if (n.type == "Size") return makeIntTensor({t.numel()}, DType::I64, true);
  int64_t r = t.rank();
  auto clampAxis = [r](int64_t a) { return std::min(std::max(a < 0 ? a + r : a, int64_t(0)), r); };
  int64_t start = clampAxis(n.attrInt("start", 0)), end = clampAxis(n.attrInt("end", r));
  std::vector<int64_t> dims;
  for (int64_t i = start; i < end; ++i) dims.push_back(t.shape[(size_t)i]);
  return makeIntTensor(dims, DType::I64);
}

void ImportEval::evalProducer(Node* n) {
  if (!evaluated_.insert(n).second || !OpRegistry::instance().find(n->type)) return;
  Graph tmp;
  tmp.opsetVersion = g_.opsetVersion;
  std::vector<Value*> ins, outs;
  bool allFolded = true;
  for (Value* in : n->inputs) {
    if (!in) {
      ins.push_back(nullptr);
      continue;
    }
    auto it = folded_.find(in);
    if (it != folded_.end()) {
      ins.push_back(tmp.newConstant(in->name, it->second));
    } else {
      if (!in->type.shapeKnown) return;  // nothing to infer from
      ins.push_back(tmp.newValue(in->name, in->type));
      allFolded = false;
    }
  }
  for (Value* o : n->outputs) outs.push_back(tmp.newValue(o->name));
  Node* c = tmp.addNode(n->type, n->name, ins, outs);
  c->attrs = n->attrs;
  c->domain = n->domain;
  try {
    inferNode(tmp, *c);
  } catch (const AtcError&) {
    return;  // the passes will report it with the whole graph's types
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    if (!outs[k]->type.shapeKnown) return;
    n->outputs[k]->type = outs[k]->type;
    n->outputs[k]->shapeFromData = outs[k]->shapeFromData;
  }
  if (TensorPtr t = shapeOnly(*n)) {
    folded_[n->outputs[0]] = t;
    return;
  }
  if (!allFolded || !canEvalNative(*c)) return;
  for (Value* o : outs) {
    int64_t count = o->type.numel();
    if (count < 0 || count > kMaxFoldElems) return;
  }
  try {
    std::vector<TensorPtr> ts = evalNodeNative(tmp, *c);
    for (size_t k = 0; k < ts.size() && k < n->outputs.size(); ++k) {
      folded_[n->outputs[k]] = ts[k];
      if (n->outputs[k]->shapeFromData) {  // evaluated: the actual shape
        n->outputs[k]->type = ts[k]->type;
        n->outputs[k]->shapeFromData = false;
      }
    }
  } catch (const AtcError&) {
  }
}

}  // namespace frontend
}  // namespace atc
