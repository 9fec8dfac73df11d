// See loop_schedule.h.
#include "backend/loop_schedule.h"

#include <set>
#include <unordered_map>
#include <unordered_set>

#include "support/diagnostics.h"

namespace atc {
namespace {

using Readers = std::unordered_map<const Value*, std::vector<Node*>>;

// Nodes reachable from `from` along data edges: forward (readers) or backward (producers).
std::unordered_set<Node*> reach(Node* from, bool forward, const Readers& readers) {
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

struct Loop {
  Node* begin = nullptr;
  Node* end = nullptr;
  std::unordered_set<Node*> body;  // the nodes between them, both included
  int parent = -1;                 // the innermost loop whose body holds this one
};

struct Scheduler {
  std::vector<Loop> loops;
  std::unordered_map<Node*, size_t> pos;
  std::unordered_map<Node*, int> innermost;  // the innermost loop holding a node (-1: none)

  // The loop of level `level` (-1: the graph) whose body holds n, or -1 when n lies in the
  // level directly.
  int unitLoop(Node* n, int level) const {
    auto it = innermost.find(n);
    int l = it == innermost.end() ? -1 : it->second;
    while (l != -1 && l != level && loops[(size_t)l].parent != level) l = loops[(size_t)l].parent;
    return l == level ? -1 : l;
  }

  // nodes (in a topological order) ordered so that each loop of this level has its body
  // together, between its begin and its end; the bodies ordered the same way, recursively.
  std::vector<Node*> order(const std::vector<Node*>& nodes, int level) {
    std::unordered_map<Node*, size_t> unitOf;
    std::vector<std::vector<Node*>> members;
    std::unordered_map<int, size_t> loopUnit;
    std::vector<int> unitLoopIndex;
    for (Node* n : nodes) {
      int l = unitLoop(n, level);
      if (l >= 0 && loopUnit.count(l)) {
        members[loopUnit[l]].push_back(n);
        unitOf[n] = loopUnit[l];
        continue;
      }
      unitOf[n] = members.size();
      if (l >= 0) loopUnit[l] = members.size();
      members.push_back({n});
      unitLoopIndex.push_back(l);
    }
    const size_t units = members.size();
    std::vector<std::set<size_t>> next(units);
    std::vector<int> pending(units, 0);
    for (Node* n : nodes)
      for (Value* in : n->inputs) {
        if (!in || !in->producer || !unitOf.count(in->producer)) continue;
        size_t from = unitOf[in->producer], to = unitOf[n];
        if (from != to && next[from].insert(to).second) pending[to]++;
      }
    std::set<std::pair<size_t, size_t>> ready;  // (first node's position, unit)
    for (size_t u = 0; u < units; ++u)
      if (!pending[u]) ready.insert({pos[members[u][0]], u});
    std::vector<Node*> out;
    while (!ready.empty()) {
      size_t u = ready.begin()->second;
      ready.erase(ready.begin());
      if (unitLoopIndex[u] < 0) {
        out.push_back(members[u][0]);
      } else {
        const Loop& L = loops[(size_t)unitLoopIndex[u]];
        std::vector<Node*> inner;
        for (Node* n : members[u])
          if (n != L.begin && n != L.end) inner.push_back(n);
        out.push_back(L.begin);
        for (Node* n : order(inner, unitLoopIndex[u])) out.push_back(n);
        out.push_back(L.end);
      }
      for (size_t v : next[u])
        if (--pending[v] == 0) ready.insert({pos[members[v][0]], v});
    }
    if (out.size() != nodes.size()) internalError("the loops' bodies cannot be scheduled");
    return out;
  }
};

}  // namespace

void scheduleLoops(Graph& g) {
  std::vector<Node*> all;
  for (auto& n : g.nodes()) all.push_back(n.get());
  Scheduler s;
  Readers readers;
  for (size_t i = 0; i < all.size(); ++i) {
    s.pos[all[i]] = i;
    for (Value* in : all[i]->inputs)
      if (in) readers[in].push_back(all[i]);
  }
  for (Node* b : all) {
    if (b->type != "LoopBegin") continue;
    Loop L;
    L.begin = b;
    for (Node* r : readers[b->outputs[0]])
      if (r->type == "LoopEnd" && r->inputs[0] == b->outputs[0]) L.end = L.end ? nullptr : r;
    if (!L.end) internalError("LoopBegin " + b->name + " has no single LoopEnd");
    std::unordered_set<Node*> down = reach(b, true, readers), up = reach(L.end, false, readers);
    std::unordered_set<Node*> after = reach(L.end, true, readers);
    for (Node* n : down)
      if (up.count(n))
        L.body.insert(n);
      else if (!after.count(n))
        internalError("node " + n->name + " reads loop " + b->name + "'s body");
    s.loops.push_back(std::move(L));
  }
  if (s.loops.empty()) return;
  for (size_t l = 0; l < s.loops.size(); ++l) {  // nesting: the smallest body holding the begin
    for (size_t m = 0; m < s.loops.size(); ++m) {
      if (m == l || !s.loops[m].body.count(s.loops[l].begin)) continue;
      for (Node* n : s.loops[l].body)
        if (!s.loops[m].body.count(n))
          internalError("the bodies of loops " + s.loops[l].begin->name + " and " + s.loops[m].begin->name +
                        " overlap");
      int& p = s.loops[l].parent;
      if (p < 0 || s.loops[m].body.size() < s.loops[(size_t)p].body.size()) p = (int)m;
    }
  }
  for (size_t l = 0; l < s.loops.size(); ++l)
    for (Node* n : s.loops[l].body) {
      auto it = s.innermost.find(n);
      if (it == s.innermost.end() || s.loops[l].body.size() < s.loops[(size_t)it->second].body.size())
        s.innermost[n] = (int)l;
    }
  g.setNodeOrder(s.order(all, -1));
}

}  // namespace atc
