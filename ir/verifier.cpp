#include "ir/verifier.h"

#include <algorithm>
#include <map>
#include <set>

#include "support/diagnostics.h"
#include "ir/op_registry.h"

namespace atc {

namespace {

// Returns the name of one node on a cycle, or "" if the node graph is acyclic.
std::string findCycle(const Graph& g) {
  std::map<const Node*, std::vector<const Node*>> preds;
  std::vector<const Node*> order;
  std::set<const Node*> inGraph;
  for (auto& n : g.nodes()) inGraph.insert(n.get());
  for (auto& n : g.nodes()) {
    order.push_back(n.get());
    for (auto* in : n->inputs)
      if (in && in->producer && inGraph.count(in->producer)) preds[n.get()].push_back(in->producer);
  }
  std::map<const Node*, int> state;  // 0 new, 1 on stack, 2 done
  for (const Node* root : order) {
    if (state[root]) continue;
    std::vector<std::pair<const Node*, size_t>> stack{{root, 0}};
    state[root] = 1;
    while (!stack.empty()) {
      auto& [n, i] = stack.back();
      auto& ps = preds[n];
      if (i < ps.size()) {
        const Node* p = ps[i++];
        if (state[p] == 1) return p->name;
        if (state[p] == 0) {
          state[p] = 1;
          stack.push_back({p, 0});
        }
      } else {
        state[n] = 2;
        stack.pop_back();
      }
    }
  }
  return "";
}

}  // namespace

std::vector<std::string> verifyGraphProblems(const Graph& g, const VerifyOptions& opts) {
  std::vector<std::string> p;
  std::set<const Value*> defined;
  std::set<const Node*> nodeSet;
  for (auto& n : g.nodes()) nodeSet.insert(n.get());
  std::set<std::string> inputNames;
  for (auto* v : g.inputs) {
    if (!v) { p.push_back("a graph input is null"); continue; }
    if (v->isConstant()) p.push_back("graph input %" + v->name + " is a constant");
    if (v->producer && nodeSet.count(v->producer))
      p.push_back("graph input %" + v->name + " is produced by node " + v->producer->name);
    if (!inputNames.insert(v->name).second) p.push_back("graph input %" + v->name + " is listed twice");
    if (opts.requireStaticShapes && !v->type.isStatic())
      p.push_back("graph input %" + v->name + " has no static type (" + v->type.str() + ")");
    defined.insert(v);
  }
  std::set<std::string> nodeNames, valueNames;
  for (auto* v : g.inputs) if (v) valueNames.insert(v->name);
  std::string cycleNode = findCycle(g);
  if (!cycleNode.empty()) p.push_back("the graph has a cycle through node " + cycleNode);
  for (auto& up : g.nodes()) {
    const Node& n = *up;
    std::string where = "node " + n.name + " (" + n.type + ")";
    if (!nodeNames.insert(n.name).second) p.push_back("node name " + n.name + " is used twice");
    if (opts.checkOpTable) {
      const OpDef* d = OpRegistry::instance().find(n.type);
      if (!d) {
        p.push_back(where + ": op type is not registered");
      } else {
        int nin = (int)n.inputs.size();
        while (nin > 0 && !n.inputs[nin - 1]) --nin;
        if (nin < d->minInputs || (d->maxInputs >= 0 && nin > d->maxInputs))
          p.push_back(where + ": " + std::to_string(nin) + " inputs, expected " +
                      std::to_string(d->minInputs) + ".." +
                      (d->maxInputs < 0 ? std::string("*") : std::to_string(d->maxInputs)));
        int nout = (int)n.outputs.size();
        if (nout < d->minOutputs || (d->maxOutputs >= 0 && nout > d->maxOutputs))
          p.push_back(where + ": " + std::to_string(nout) + " outputs, expected " +
                      std::to_string(d->minOutputs) + ".." +
                      (d->maxOutputs < 0 ? std::string("*") : std::to_string(d->maxOutputs)));
      }
    }
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const Value* in = n.inputs[i];
      if (!in) continue;
      if (in->isConstant() && !in->producer) continue;
      if (!defined.count(in))
        p.push_back(where + ": input " + std::to_string(i) + " %" + in->name +
                    " is used before it is defined (or never defined)");
    }
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      const Value* o = n.outputs[i];
      if (!o) { p.push_back(where + ": output " + std::to_string(i) + " is null"); continue; }
      if (o->producer != &n || o->producerIndex != (int)i)
        p.push_back(where + ": output %" + o->name + " does not point back to its producer");
      if (defined.count(o)) p.push_back(where + ": output %" + o->name + " is defined twice");
      // A node output may carry a known value (Shape, Size): not an error.
      if (!valueNames.insert(o->name).second && !defined.count(o))
        p.push_back(where + ": value name %" + o->name + " is used twice");
      if (opts.requireStaticShapes && !o->type.isStatic() && !(isRunSized(o) && o->type.shapeKnown))
        p.push_back(where + ": output %" + o->name + " has no static type (" + o->type.str() + ")");
      defined.insert(o);
    }
  }
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const Value* o = g.outputs[i];
    if (!o) { p.push_back("graph output " + std::to_string(i) + " is null"); continue; }
    if (!defined.count(o) && !o->isConstant())
      p.push_back("graph output %" + o->name + " is not defined");
    if (opts.requireStaticShapes && !o->type.isStatic() && !(isRunSized(o) && o->type.shapeKnown))
      p.push_back("graph output %" + o->name + " has no static type (" + o->type.str() + ")");
  }
  if (g.outputs.empty()) p.push_back("the graph has no outputs");
  return p;
}

void verifyGraph(const Graph& g, const VerifyOptions& opts, const std::string& where) {
  auto problems = verifyGraphProblems(g, opts);
  if (problems.empty()) return;
  std::string msg = "The graph is invalid" + (where.empty() ? std::string() : " " + where) + ": ";
  for (size_t i = 0; i < problems.size() && i < 20; ++i) msg += (i ? "; " : "") + problems[i];
  if (problems.size() > 20) msg += "; ... (" + std::to_string(problems.size() - 20) + " more)";
  internalError(msg);
}

}  // namespace atc
