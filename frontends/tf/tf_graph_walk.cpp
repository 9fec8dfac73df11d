#include "frontends/tf/tf_graph_walk.h"

#include <algorithm>
#include <climits>
#include <map>
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

bool isWhileLoopOp(const std::string& op) {
  static const std::set<std::string> ops = {"Enter", "RefEnter", "Exit", "RefExit", "NextIteration",
                                            "RefNextIteration", "LoopCond"};
  return ops.count(op) != 0;
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

namespace {

bool isEnter(const std::string& op) { return op == "Enter" || op == "RefEnter"; }
bool isExit(const std::string& op) { return op == "Exit" || op == "RefExit"; }
bool isNextIteration(const std::string& op) { return op == "NextIteration" || op == "RefNextIteration"; }

std::string frameNameOf(const tfproto::NodeDef& n) {
  auto it = n.attr().find("frame_name");
  return it == n.attr().end() ? std::string() : it->second.s();
}

struct Walk {
  const tfproto::GraphDef& g;
  int n;
  std::vector<std::vector<int>> deps;  // data inputs (and tf.cond pivots' control inputs)
  std::vector<char> need;
  std::vector<int> frameOf;  // -1 outside every while frame

  bool backEdge(int user, int dep) const {  // NextIteration -> Merge inside one frame
    return frameOf[user] >= 0 && frameOf[user] == frameOf[dep] && isNextIteration(g.node(dep).op());
  }
};

void collectNeeded(const GraphIndex& idx, const std::vector<std::string>& outputs, Walk& w) {
  std::vector<int> stack;
  for (const auto& o : outputs) {
    int k = idx.byName.at(o);
    if (!w.need[k]) {
      w.need[k] = 1;
      stack.push_back(k);
    }
  }
  while (!stack.empty()) {
    int k = stack.back();
    stack.pop_back();
    for (const auto& s : w.g.node(k).input()) {
      InputRef r = parseInputRef(s);
      if (r.control && !isCondPivot(idx, r.node)) continue;
      auto it = idx.byName.find(r.node);
      if (it == idx.byName.end())
        throw AtcError("E10041", "Failed to load the model: input [" + s + "] of node [" + w.g.node(k).name() +
                                     "] (" + w.g.node(k).op() + ") names a node that is not in the graph.",
                       "Check that the model is a complete frozen TensorFlow graph.");
      w.deps[k].push_back(it->second);
      if (!w.need[it->second]) {
        w.need[it->second] = 1;
        stack.push_back(it->second);
      }
    }
  }
}

[[noreturn]] void nestedError(const tfproto::NodeDef& at, const std::string& frame, const std::string& other) {
  throw AtcError("E19010", "No parser can convert the TF1 control flow construct (nested while loop) at [" + at.name() +
                               "]: frames [" + frame + "] and [" + other +
                               "] are nested; nested while loops are not supported.",
                 "Unroll the inner loop before freezing, or cut the graph with --out_nodes.");
}

// Frame membership: forward from each frame's Enters, up to and including its Exits.
void findFrames(Walk& w, std::vector<WhileFrame>& frames) {
  std::vector<std::vector<int>> users(w.n);
  for (int k = 0; k < w.n; ++k)
    if (w.need[k])
      for (int d : w.deps[k]) users[d].push_back(k);
  std::map<std::string, int> byName;
  for (int k = 0; k < w.n; ++k) {
    if (!w.need[k] || !isEnter(w.g.node(k).op())) continue;
    std::string name = frameNameOf(w.g.node(k));
    auto [it, fresh] = byName.emplace(name, (int)frames.size());
    if (fresh) frames.push_back({name, {}});
    int f = it->second;
    if (w.frameOf[k] >= 0 && w.frameOf[k] != f) nestedError(w.g.node(k), name, frames[(size_t)w.frameOf[k]].name);
    std::vector<int> stack{k};
    w.frameOf[k] = f;
    while (!stack.empty()) {
      int v = stack.back();
      stack.pop_back();
      if (isExit(w.g.node(v).op())) continue;
      for (int u : users[v]) {
        if (w.frameOf[u] == f) continue;
        if (w.frameOf[u] >= 0 || isEnter(w.g.node(u).op()))
          nestedError(w.g.node(u), name, w.frameOf[u] >= 0 ? frames[(size_t)w.frameOf[u]].name : frameNameOf(w.g.node(u)));
        w.frameOf[u] = f;
        stack.push_back(u);
      }
    }
  }
}

[[noreturn]] void cycleError(const Walk& w, const std::vector<char>& placed) {
  std::string names, loopOp;
  int shown = 0;
  for (int k = 0; k < w.n; ++k) {
    if (!w.need[k] || placed[k]) continue;
    if (isControlFlowOp(w.g.node(k).op()) && loopOp.empty()) loopOp = w.g.node(k).op() + " [" + w.g.node(k).name() + "]";
    if (shown++ < 8) names += (names.empty() ? "" : ", ") + w.g.node(k).name();
  }
  if (!loopOp.empty())
    throw AtcError("E19010", "No parser can convert the TF1 control flow construct (while loop) at " + loopOp +
                                 ": the cycle is not a while loop frame (Enter, Merge, Switch, NextIteration, Exit).",
                   "Check that the model is a valid frozen TensorFlow graph, or cut the graph with --out_nodes.");
  throw AtcError("E10041", "Failed to load the model: the graph has a cycle through the nodes " + names + ".",
                 "Check that the model is a valid frozen TensorFlow graph (no cycles).");
}

// One frame's members in a topological order of the body, back edges left out.
std::vector<int> orderFrame(const Walk& w, const std::vector<int>& members, const std::vector<char>& placed) {
  std::map<int, int> indeg;
  std::map<int, std::vector<int>> users;
  for (int k : members) indeg[k] = 0;
  for (int k : members)
    for (int d : w.deps[k])
      if (indeg.count(d) && !w.backEdge(k, d)) {
        ++indeg[k];
        users[d].push_back(k);
      }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (const auto& [k, c] : indeg)
    if (c == 0) ready.push(k);
  std::vector<int> order;
  while (!ready.empty()) {
    int k = ready.top();
    ready.pop();
    order.push_back(k);
    for (int u : users[k])
      if (--indeg[u] == 0) ready.push(u);
  }
  if (order.size() != members.size()) {
    std::vector<char> done((size_t)w.n, 1);  // names only the members left in the cycle
    for (int k : members) done[k] = placed[k];
    for (int k : order) done[k] = 1;
    cycleError(w, done);
  }
  return order;
}

// Kahn's algorithm over groups (a node outside frames, or a whole frame), smallest GraphDef
// index first: deterministic, keeps model order. Within a frame, the same over its members.
std::vector<int> orderNodes(const Walk& w, std::vector<WhileFrame>& frames) {
  const int n = w.n, groups = n + (int)frames.size();
  auto groupOf = [&](int k) { return w.frameOf[k] >= 0 ? n + w.frameOf[k] : k; };
  std::vector<int> indeg(groups, 0), lead(groups, INT32_MAX);
  std::vector<std::vector<int>> users(groups);
  std::vector<std::vector<int>> members(frames.size());
  for (int k = 0; k < n; ++k) {
    if (!w.need[k]) continue;
    lead[groupOf(k)] = std::min(lead[groupOf(k)], k);
    if (w.frameOf[k] >= 0) members[(size_t)w.frameOf[k]].push_back(k);
    for (int d : w.deps[k])
      if (groupOf(d) != groupOf(k)) {
        ++indeg[groupOf(k)];
        users[groupOf(d)].push_back(groupOf(k));
      }
  }
  using Item = std::pair<int, int>;  // (lead node index, group)
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> ready;
  for (int q = 0; q < groups; ++q)
    if (lead[q] != INT32_MAX && indeg[q] == 0) ready.push({lead[q], q});
  std::vector<int> order;
  std::vector<char> placed(n, 0);
  while (!ready.empty()) {
    int q = ready.top().second;
    ready.pop();
    std::vector<int> inner = q < n ? std::vector<int>{q} : orderFrame(w, members[(size_t)(q - n)], placed);
    for (int k : inner) placed[k] = 1;
    if (q >= n) frames[(size_t)(q - n)].nodes = inner;
    order.insert(order.end(), inner.begin(), inner.end());
    for (int u : users[q])
      if (--indeg[u] == 0) ready.push({lead[u], u});
  }
  size_t total = 0;
  for (int k = 0; k < n; ++k) total += w.need[k];
  if (order.size() != total) cycleError(w, placed);
  return order;
}

}  // namespace

std::vector<int> requiredNodesInOrder(const GraphIndex& idx, const std::vector<std::string>& outputs,
                                      std::vector<WhileFrame>* framesOut) {
  Walk w{*idx.gd, idx.gd->node_size(), {}, {}, {}};
  w.deps.resize((size_t)w.n);
  w.need.assign((size_t)w.n, 0);
  w.frameOf.assign((size_t)w.n, -1);
  collectNeeded(idx, outputs, w);
  std::vector<WhileFrame> frames;
  findFrames(w, frames);
  std::vector<int> order = orderNodes(w, frames);
  if (framesOut) *framesOut = std::move(frames);
  return order;
}

}  // namespace tffe
}  // namespace atc
