// Removes nodes none of whose outputs reaches a graph output, then values nothing refers
// to. Graph inputs stay (they are part of the model's interface even when unused).
#include <set>

#include "passes/pass.h"

namespace atc {

bool runDeadCodeElimination(Graph& g, PassContext& ctx) {
  std::set<const Value*> live(g.outputs.begin(), g.outputs.end());
  std::vector<Node*> dead;
  // Walk backwards: a node is live if one of its outputs is live.
  auto& nodes = g.nodes();
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    Node* n = it->get();
    bool used = false;
    for (auto* o : n->outputs) used = used || live.count(o);
    if (!used) {
      dead.push_back(n);
      continue;
    }
    for (auto* in : n->inputs)
      if (in) live.insert(in);
  }
  for (Node* n : dead) {
    ctx.stats.matchTimes++;
    ctx.stats.effectTimes++;
    ctx.debug("removed " + n->name + " (" + n->type + ")");
    g.removeNode(n);
  }
  size_t before = g.values().size();
  g.pruneValues();
  return !dead.empty() || g.values().size() != before;
}

}  // namespace atc
