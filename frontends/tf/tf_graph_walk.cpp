#include "frontends/tf/tf_graph_walk.h"

#include <queue>
#include <set>

#include "support/diagnostics.h"

namespace atc {
namespace tffe {

InputRef parseInputRef(const std::string& s) {
  InputRef r;
  std::string t = s;
  if (!t.empty() && t[0] == '^') {
    r.control = true;
    t = t.substr(1);
  }
  size_t colon = t.rfind(':');
  // At most 9 digits (std::stoi cannot overflow); a longer suffix stays part of the name,
  // which then names no node (E10041).
  if (colon != std::string::npos && colon + 1 < t.size() && t.size() - colon - 1 <= 9 &&
      t.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
    r.index = std::stoi(t.substr(colon + 1));
    t = t.substr(0, colon);
  }
  r.node = t;
  return r;
}

bool isControlFlowOp(const std::string& op) {
  static const std::set<std::string> ops = {"Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter",
                                            "Exit", "RefExit", "NextIteration", "RefNextIteration",
                                            "LoopCond", "ControlTrigger"};
  return ops.count(op) || op.rfind("TensorArray", 0) == 0;
}

GraphIndex::GraphIndex(const tfproto::GraphDef& g) : gd(&g) {
  for (int i = 0; i < g.node_size(); ++i)
    if (!byName.emplace(g.node(i).name(), i).second)
      throw AtcError("E10041", "Failed to load the model: the node name [" + g.node(i).name() +
                                   "] is used by more than one node.",
                     "Check that the model is a valid frozen TensorFlow graph.");
}

const tfproto::NodeDef* GraphIndex::find(const std::string& name) const {
  auto it = byName.find(name);
  return it == byName.end() ? nullptr : &gd->node(it->second);
}

// A tf.cond pivot (`cond/switch_t`: an Identity of a Switch output): the branch's constants
// hang on it by control inputs, and tf_cond.h learns their branch from it, so it is walked
// like a data input.
static bool isCondPivot(const GraphIndex& idx, const std::string& name) {
  auto it = idx.byName.find(name);
  if (it == idx.byName.end()) return false;
  const auto& n = idx.gd->node(it->second);
  if (n.op() != "Identity" || n.input_size() < 1) return false;
  InputRef r = parseInputRef(n.input(0));
  auto src = idx.byName.find(r.node);
  return !r.control && src != idx.byName.end() && idx.gd->node(src->second).op() == "Switch";
}

std::vector<int> requiredNodesInOrder(const GraphIndex& idx, const std::vector<std::string>& outputs) {
  const auto& g = *idx.gd;
  const int n = g.node_size();
  std::vector<std::vector<int>> deps(n);
  std::vector<char> need(n, 0);
  std::vector<int> stack;
  for (const auto& o : outputs) {
    int k = idx.byName.at(o);
    if (!need[k]) {
      need[k] = 1;
      stack.push_back(k);
    }
  }
  while (!stack.empty()) {
    int k = stack.back();
    stack.pop_back();
    for (const auto& s : g.node(k).input()) {
      InputRef r = parseInputRef(s);
      if (r.control && !isCondPivot(idx, r.node)) continue;
      auto it = idx.byName.find(r.node);
      if (it == idx.byName.end())
        throw AtcError("E10041", "Failed to load the model: input [" + s + "] of node [" + g.node(k).name() +
                                     "] (" + g.node(k).op() + ") names a node that is not in the graph.",
                       "Check that the model is a complete frozen TensorFlow graph.");
      deps[k].push_back(it->second);
      if (!need[it->second]) {
        need[it->second] = 1;
        stack.push_back(it->second);
      }
    }
  }
  // Kahn's algorithm, smallest GraphDef index first: deterministic, keeps model order.
  std::vector<int> indeg(n, 0);
  std::vector<std::vector<int>> users(n);
  for (int k = 0; k < n; ++k)
    if (need[k])
      for (int d : deps[k]) {
        ++indeg[k];
        users[d].push_back(k);
      }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int k = 0; k < n; ++k)
    if (need[k] && indeg[k] == 0) ready.push(k);
  std::vector<int> order;
  while (!ready.empty()) {
    int k = ready.top();
    ready.pop();
    order.push_back(k);
    for (int u : users[k])
      if (--indeg[u] == 0) ready.push(u);
  }
  size_t total = 0;
  for (int k = 0; k < n; ++k) total += need[k];
  if (order.size() != total) {
    std::string names, loopOp;
    int shown = 0;
    for (int k = 0; k < n; ++k) {
      if (!need[k] || indeg[k] == 0) continue;
      if (isControlFlowOp(g.node(k).op()) && loopOp.empty()) loopOp = g.node(k).op() + " [" + g.node(k).name() + "]";
      if (shown++ < 8) names += (names.empty() ? "" : ", ") + g.node(k).name();
    }
    if (!loopOp.empty())
      throw AtcError("E19010", "No parser can convert the TF1 control flow construct (while loop) at " + loopOp +
                                   ": the loop does not fold to a constant number of iterations.",
                     "Freeze the graph without the loop (unroll it), or cut the graph with --out_nodes.");
    throw AtcError("E10041", "Failed to load the model: the graph has a cycle through the nodes " + names + ".",
                   "Check that the model is a valid frozen TensorFlow graph (no cycles).");
  }
  return order;
}

}  // namespace tffe
}  // namespace atc
