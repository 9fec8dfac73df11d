// Removes nodes that forward their input unchanged: Identity, and Dropout at inference
// (training_mode absent or constant false) whose mask output is unused. Uses of the output
// are redirected to the input. When the output is a graph output its name must survive:
//  - input produced by a node (and not itself a graph output): that node now produces the
//    output value, and other readers of the input read it;
//  - input constant: the output value becomes that constant;
//  - otherwise (input is a graph input or also a graph output) the
//    node stays, so no graph output becomes a graph input or a second copy of another.
#include "passes/pass.h"

namespace atc {

namespace {

bool isForwarding(const Graph& g, const Node& n) {
  if (!n.domain.empty() || n.inputs.empty() || !n.inputs[0] || n.outputs.empty()) return false;
  if (n.type == "Identity") return n.outputs.size() == 1;
  if (n.type == "Dropout") {
    if (n.inputs.size() > 2 && n.inputs[2]) {
      const Value* mode = n.inputs[2];
      if (!mode->isConstant() || mode->constant->type.numel() != 1 || mode->constant->intAt(0) != 0)
        return false;
    }
    for (size_t i = 1; i < n.outputs.size(); ++i)
      if (!g.users(n.outputs[i]).empty() || g.isGraphOutput(n.outputs[i])) return false;
    return true;
  }
  return false;
}

}  // namespace

bool runIdentityRemoval(Graph& g, PassContext& ctx) {
  std::vector<Node*> candidates;
  for (auto& n : g.nodes())
    if (isForwarding(g, *n)) candidates.push_back(n.get());
  bool changed = false;
  for (Node* n : candidates) {
    ctx.stats.matchTimes++;
    Value* in = n->inputs[0];
    Value* out = n->outputs[0];
    if (!g.isGraphOutput(out)) {
      g.replaceAllUses(out, in);
    } else if (in->isConstant() && !in->producer) {
      out->constant = in->constant;
      out->type = in->type;
    } else if (in->producer && !g.isGraphOutput(in)) {
      Node* p = in->producer;
      int idx = in->producerIndex;
      out->type = in->type;
      ctx.debug("removed " + n->name + "; " + p->name + " now produces graph output %" + out->name);
      g.removeNode(n);  // frees n: not used below
      g.replaceAllUses(in, out);  // other readers of the input now read the output value
      p->outputs[idx] = out;
      out->producer = p;
      out->producerIndex = idx;
      in->producer = nullptr;
      ctx.stats.effectTimes++;
      changed = true;
      continue;
    } else {
      ctx.debug("kept " + n->name + ": its output is a graph output and its input is a graph "
                "input or another graph output");
      continue;
    }
    ctx.stats.effectTimes++;
    ctx.debug("removed " + n->name + " (" + n->type + ")");
    g.removeNode(n);
    changed = true;
  }
  if (changed) g.pruneValues();
  return changed;
}

}  // namespace atc
