// See tf_while.h.
#include "frontends/tf/tf_while.h"

#include <map>
#include <set>

#include "frontends/tf/tf_convert.h"
#include "support/diagnostics.h"

namespace atc {
namespace tffe {
namespace {

bool opIs(const tfproto::NodeDef& n, const char* a) { return n.op() == a || n.op() == std::string("Ref") + a; }

// The loop's structure: its LoopCond and, for each loop variable, the Merge's inputs.
struct LoopShape {
  const tfproto::NodeDef* loopCond = nullptr;
  struct Var {
    std::string init;  // the Merge input from the Enter side
    std::string next;  // the NextIteration node
  };
  std::map<std::string, Var> vars;  // by Merge name
};

[[noreturn]] void refuse(const WhileFrame& f, const std::string& why, const std::string& fix) {
  throw AtcError("E19010", "No parser can convert the TF1 control flow construct (while loop) of frame [" + f.name +
                               "]: " + why + ".",
                 fix);
}

LoopShape analyse(const GraphIndex& idx, const WhileFrame& f) {
  LoopShape s;
  std::map<std::string, bool> member;
  for (int k : f.nodes) member[idx.gd->node(k).name()] = true;
  for (int k : f.nodes) {
    const auto& n = idx.gd->node(k);
    if (opIs(n, "LoopCond")) {
      if (s.loopCond)
        refuse(f, "it has two LoopCond nodes ([" + s.loopCond->name() + "], [" + n.name() + "])",
               "Check that the model is a valid frozen TensorFlow graph.");
      s.loopCond = &n;
    }
    if (!opIs(n, "Merge")) continue;
    LoopShape::Var v;
    int dataInputs = 0;
    for (const auto& in : n.input()) {
      InputRef r = parseInputRef(in);
      if (r.control) continue;
      ++dataInputs;
      const auto* src = idx.find(r.node);
      if (src && opIs(*src, "NextIteration") && member.count(r.node))
        v.next = r.node;
      else
        v.init = in;
    }
    if (v.next.empty()) continue;  // a tf.cond Merge inside the body
    if (v.init.empty() || dataInputs != 2)
      refuse(f, "its Merge [" + n.name() + "] does not join one Enter value and one NextIteration",
             "Check that the model is a valid frozen TensorFlow graph.");
    s.vars[n.name()] = v;
  }
  if (!s.loopCond)
    refuse(f, "it has no LoopCond node (a cycle through Enter/Merge/NextIteration without a loop condition)",
           "Check that the model is a valid frozen TensorFlow graph, or cut the graph with --out_nodes.");
  return s;
}

// The condition's value at this iteration (*pred); *frameDead when the whole loop lies on an
// untaken side. False when only a run knows it.
bool foldCondition(Value* v, frontend::ImportEval& ev, Value* dead, bool* pred, bool* frameDead) {
  if (v == dead) {
    *frameDead = true;
    *pred = false;
    return true;
  }
  TensorPtr c = ev.constantOf(v);
  if (!c || c->type.numel() != 1) return false;
  *pred = c->intAt(0) != 0;
  return true;
}

// Input i of a frame node (E10041 when it has none).
Value* frameInput(const FrameHooks& h, const tfproto::NodeDef& n, int i) {
  if (i >= n.input_size()) invalidNode(n, "input " + std::to_string(i) + " is missing");
  return h.lookup(n.input(i), n);
}

// The frame converted once with each loop variable's Merge giving merges[name], the Switches
// sending the values on to the body; returns the LoopCond's input.
Value* convertPass(Graph& g, const GraphIndex& idx, const WhileFrame& f, const LoopShape& shape,
                   const FrameHooks& h, const std::map<std::string, Value*>& merges) {
  const std::string lcName = shape.loopCond->name();
  Value* cond = nullptr;
  for (int k : f.nodes) {
    const auto& n = idx.gd->node(k);
    auto in = [&](int i) { return frameInput(h, n, i); };
    auto& out = h.outputs(n.name());
    if (opIs(n, "Enter") || opIs(n, "NextIteration")) {
      out = {in(0)};
    } else if (opIs(n, "Merge") && shape.vars.count(n.name())) {
      out = {merges.at(n.name()), g.newConstant(n.name() + ":1", makeIntTensor({1}, DType::I32, true))};
    } else if (opIs(n, "LoopCond")) {
      out = {in(0)};
      cond = out[0];
    } else if (opIs(n, "Switch") && n.input_size() == 2 && parseInputRef(n.input(1)).node == lcName) {
      out = {h.dead, in(0)};
    } else if (opIs(n, "Exit")) {
      out = {h.dead};
    } else {
      h.convert(n);
    }
  }
  return cond;
}

// A loop whose condition only a run knows, or too long to unroll: LoopBegin, the frame's body,
// the condition on the next values, LoopEnd (ops/control/loop_ops.cpp); the Exits take the
// final values. The nodes the passes leave unused (a body on the initial values, a second one
// on the next values) are dead code.
void runtimeWhile(Graph& g, const GraphIndex& idx, const WhileFrame& f, const LoopShape& shape,
                  const FrameHooks& h) {
  std::map<std::string, Value*> init, in, next;
  for (const auto& [merge, var] : shape.vars) init[merge] = h.lookup(var.init, *idx.find(merge));
  Value* c0 = convertPass(g, idx, f, shape, h, init);
  if (c0 == h.dead) return;  // the whole loop lies on an untaken side: its Exits stay dead
  std::set<std::string> arrays;  // loop variables that are TensorArray flows: dense tensors
  for (auto& [merge, v] : init)
    if (h.isArrayFlow && h.isArrayFlow(v)) {
      arrays.insert(merge);
      v = h.denseFlow(v, h.outputs(shape.vars.at(merge).next).at(0), *idx.find(merge));
    }
  std::vector<Value*> beginIns = {nullptr, c0};
  std::vector<Value*> bodyIns = {g.newValue(f.name + "/iteration"), g.newValue(f.name + "/cond")};
  for (const auto& [merge, v] : init) {
    beginIns.push_back(v);
    bodyIns.push_back(in[merge] = g.newValue(merge + "/in"));
    if (arrays.count(merge)) h.adoptDense(in[merge], v);
  }
  Node* begin = g.addNode("LoopBegin", g.uniqueNodeName(f.name + "/begin"), beginIns, bodyIns);
  begin->attrs["_carried"] = (int64_t)init.size();
  convertPass(g, idx, f, shape, h, in);
  for (const auto& [merge, var] : shape.vars) {
    next[merge] = h.outputs(var.next).at(0);
    if (next[merge] == h.dead)
      refuse(f, "the loop variable of Merge [" + merge + "] has no value after an iteration",
             "Check that the model is a valid frozen TensorFlow graph.");
    if (arrays.count(merge)) next[merge] = h.denseFlow(next[merge], nullptr, *idx.find(merge));
  }
  Value* c1 = convertPass(g, idx, f, shape, h, next);
  std::vector<Value*> endIns = {bodyIns[0], c1}, finals;
  for (const auto& [merge, v] : next) {
    endIns.push_back(v);
    finals.push_back(g.newValue(merge + "/final"));
    if (arrays.count(merge)) h.adoptDense(finals.back(), init[merge]);
  }
  Node* end = g.addNode("LoopEnd", g.uniqueNodeName(f.name + "/end"), endIns, finals);
  end->attrs["_carried"] = (int64_t)init.size();
  for (int k : f.nodes) {  // Exit(Switch(Merge, LoopCond):0): the Merge's final value
    const auto& n = idx.gd->node(k);
    if (!opIs(n, "Exit")) continue;
    const auto* sw = idx.find(parseInputRef(n.input(0)).node);
    auto it = sw && n.input_size() > 0 ? shape.vars.find(parseInputRef(sw->input(0)).node) : shape.vars.end();
    if (it == shape.vars.end())
      refuse(f, "its Exit [" + n.name() + "] does not read a loop variable's Switch",
             "Check that the model is a valid frozen TensorFlow graph.");
    h.outputs(n.name()) = {finals[(size_t)std::distance(shape.vars.begin(), it)]};
  }
}

bool unrollFrame(Graph& g, const GraphIndex& idx, const WhileFrame& f, frontend::ImportEval& ev, const FrameHooks& h,
                 const LoopShape& shape) {
  const std::string lcName = shape.loopCond->name();
  const size_t nodesBefore = g.nodes().size();
  std::map<std::string, Value*> next;  // loop variable values for the next iteration, by Merge
  bool pred = true, frameDead = false;
  for (int iter = 0; pred; ++iter) {
    for (int k : f.nodes) {
      const auto& n = idx.gd->node(k);
      auto in = [&](int i) { return frameInput(h, n, i); };
      auto& out = h.outputs(n.name());
      if (opIs(n, "Enter")) {
        if (iter == 0) out = {in(0)};
      } else if (opIs(n, "Merge") && shape.vars.count(n.name())) {
        Value* v = iter == 0 ? h.lookup(shape.vars.at(n.name()).init, n) : next[n.name()];
        out = {v, g.newConstant(n.name() + ":1", makeIntTensor({iter == 0 ? 0 : 1}, DType::I32, true))};
      } else if (opIs(n, "LoopCond")) {
        out = {in(0)};
        if (!foldCondition(out[0], ev, h.dead, &pred, &frameDead)) return false;
      } else if (opIs(n, "Switch") && n.input_size() == 2 && parseInputRef(n.input(1)).node == lcName) {
        Value* data = in(0);
        out = frameDead ? std::vector<Value*>{h.dead, h.dead}
                        : (pred ? std::vector<Value*>{h.dead, data} : std::vector<Value*>{data, h.dead});
      } else if (opIs(n, "NextIteration") || opIs(n, "Exit")) {
        out = {in(0)};
      } else {
        h.convert(n);
      }
    }
    if (!pred) break;
    for (const auto& [merge, var] : shape.vars) {
      Value* v = h.outputs(var.next).at(0);
      if (v == h.dead)
        refuse(f, "the loop variable of Merge [" + merge + "] has no value after iteration " + std::to_string(iter),
               "Check that the model is a valid frozen TensorFlow graph.");
      next[merge] = v;
    }
    if ((int64_t)(g.nodes().size() - nodesBefore) > kMaxUnrolledNodes || iter + 1 >= kMaxIterations) return false;
  }
  return true;
}
}  // namespace

void unrollWhileFrame(Graph& g, const GraphIndex& idx, const WhileFrame& f, frontend::ImportEval& ev,
                      const FrameHooks& h) {
  LoopShape shape = analyse(idx, f);
  // Unrolled while the condition folds and the budget holds; else the loop runs at run time
  // (the iterations unrolled so far become dead code).
  if (!unrollFrame(g, idx, f, ev, h, shape)) runtimeWhile(g, idx, f, shape, h);
}

}  // namespace tffe
}  // namespace atc
