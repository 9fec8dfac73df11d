// See tf_while.h.
#include "frontends/tf/tf_while.h"

#include <map>

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

// The condition's value at this iteration; *dead when the whole loop lies on an untaken side.
bool foldCondition(const WhileFrame& f, const tfproto::NodeDef& lc, Value* v, frontend::ImportEval& ev, int iter,
                   Value* dead, bool* frameDead) {
  if (v == dead) {
    *frameDead = true;
    return false;
  }
  TensorPtr c = ev.constantOf(v);
  if (!c || c->type.numel() != 1)
    refuse(f, "its condition [" + lc.name() + "] is not known at compile time at iteration " + std::to_string(iter) +
                  ": the number of iterations depends on run-time input values, and loops are unrolled when the "
                  "graph is compiled",
           "Make the trip count follow from constants and input shapes (--input_shape), or cut the graph with "
           "--out_nodes.");
  return c->intAt(0) != 0;
}

}  // namespace

void unrollWhileFrame(Graph& g, const GraphIndex& idx, const WhileFrame& f, frontend::ImportEval& ev,
                      const FrameHooks& h) {
  LoopShape shape = analyse(idx, f);
  const std::string lcName = shape.loopCond->name();
  const size_t nodesBefore = g.nodes().size();
  std::map<std::string, Value*> next;  // loop variable values for the next iteration, by Merge
  bool pred = true, frameDead = false;
  for (int iter = 0; pred; ++iter) {
    for (int k : f.nodes) {
      const auto& n = idx.gd->node(k);
      auto in = [&](int i) {
        if (i >= n.input_size()) invalidNode(n, "input " + std::to_string(i) + " is missing");
        return h.lookup(n.input(i), n);
      };
      auto& out = h.outputs(n.name());
      if (opIs(n, "Enter")) {
        if (iter == 0) out = {in(0)};
      } else if (opIs(n, "Merge") && shape.vars.count(n.name())) {
        Value* v = iter == 0 ? h.lookup(shape.vars[n.name()].init, n) : next[n.name()];
        out = {v, g.newConstant(n.name() + ":1", makeIntTensor({iter == 0 ? 0 : 1}, DType::I32, true))};
      } else if (opIs(n, "LoopCond")) {
        out = {in(0)};
        pred = foldCondition(f, n, out[0], ev, iter, h.dead, &frameDead);
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
    if ((int64_t)(g.nodes().size() - nodesBefore) > kMaxUnrolledNodes || iter + 1 >= kMaxIterations)
      refuse(f, "unrolling it stopped after " + std::to_string(iter + 1) + " iterations and " +
                    std::to_string(g.nodes().size() - nodesBefore) + " nodes (at most " +
                    std::to_string(kMaxUnrolledNodes) + " nodes and " + std::to_string(kMaxIterations) +
                    " iterations are unrolled)",
             "Shorten the loop, or cut the graph with --out_nodes.");
  }
}

}  // namespace tffe
}  // namespace atc
