// See loop_schedule.h.
#include "backend/loop_schedule.h"

#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "support/diagnostics.h"

namespace atc {
namespace {

// Nodes reachable from `from` along data edges: forward (readers) or backward (producers).
std::unordered_set<Node*> reach(Node* from, bool forward,
                                const std::unordered_map<const Value*, std::vector<Node*>>& readers) {
  std::unordered_set<Node*> seen = {from};
  std::vector<Node*> work = {from};
  while (!work.empty()) {
    Node* n = work.back();
    work.pop_back();
    if (forward) {
      for (Value* o : n->outputs) {
        auto it = readers.find(o);
        if (it == readers.end()) continue;
        for (Node* r : it->second)
          if (seen.insert(r).second) work.push_back(r);
      }
    } else {
      for (Value* in : n->inputs)
        if (in && in->producer && seen.insert(in->producer).second) work.push_back(in->producer);
    }
  }
  return seen;
}

}  // namespace

void scheduleLoops(Graph& g) {
  std::vector<Node*> order;
  for (auto& n : g.nodes()) order.push_back(n.get());
  std::vector<Node*> begins;
  for (Node* n : order)
    if (n->type == "LoopBegin") begins.push_back(n);
  if (begins.empty()) return;
  std::unordered_map<const Value*, std::vector<Node*>> readers;
  std::unordered_map<Node*, size_t> pos;
  for (size_t i = 0; i < order.size(); ++i) {
    pos[order[i]] = i;
    for (Value* in : order[i]->inputs)
      if (in) readers[in].push_back(order[i]);
  }
  std::unordered_map<Node*, size_t> unitOf;  // loop bodies: units 0..L-1; other nodes: one unit each
  for (size_t l = 0; l < begins.size(); ++l) {
    Node* b = begins[l];
    Node* end = nullptr;
    for (Node* r : readers[b->outputs[0]])
      if (r->type == "LoopEnd" && r->inputs[0] == b->outputs[0]) end = end ? nullptr : r;
    if (!end) internalError("LoopBegin " + b->name + " has no single LoopEnd");
    std::unordered_set<Node*> down = reach(b, true, readers), up = reach(end, false, readers);
    std::unordered_set<Node*> after = reach(end, true, readers);
    for (Node* n : down) {
      if (!up.count(n)) {
        if (!after.count(n)) internalError("node " + n->name + " reads loop " + b->name + "'s body");
        continue;
      }
      if (n != b && n->type == "LoopBegin")
        throw AtcError("E19010",
                       "Op [" + n->name +
                           "] cannot be compiled: a loop that runs at run time lies inside the body of "
                           "another one (" +
                           b->name + ").",
                       "atc runs one level of loops at run time; make the inner loop's trip count a constant so it "
                       "can be unrolled (docs/frontend-onnx.md, \"Loops at run time\").");
      if (unitOf.count(n)) internalError("node " + n->name + " lies in two loop bodies");
      unitOf[n] = l;
    }
  }
  // Kahn's algorithm over the units, each ready unit taken by its first node's position.
  size_t units = begins.size();
  std::vector<std::vector<Node*>> members(begins.size());
  for (Node* n : order) {
    auto it = unitOf.find(n);
    if (it == unitOf.end()) {
      unitOf[n] = units++;
      members.push_back({n});
    } else {
      members[it->second].push_back(n);
    }
  }
  std::vector<std::set<size_t>> next(units);
  std::vector<int> pending(units, 0);
  for (Node* n : order)
    for (Value* in : n->inputs)
      if (in && in->producer && pos.count(in->producer) && unitOf[in->producer] != unitOf[n] &&
          next[unitOf[in->producer]].insert(unitOf[n]).second)
        pending[unitOf[n]]++;
  std::set<std::pair<size_t, size_t>> ready;  // (first node's position, unit)
  for (size_t u = 0; u < units; ++u)
    if (!pending[u]) ready.insert({pos[members[u][0]], u});
  std::vector<Node*> scheduled;
  while (!ready.empty()) {
    size_t u = ready.begin()->second;
    ready.erase(ready.begin());
    scheduled.insert(scheduled.end(), members[u].begin(), members[u].end());
    for (size_t v : next[u])
      if (--pending[v] == 0) ready.insert({pos[members[v][0]], v});
  }
  if (scheduled.size() != order.size()) internalError("the loops' bodies cannot be scheduled");
  g.setNodeOrder(scheduled);
}

}  // namespace atc
