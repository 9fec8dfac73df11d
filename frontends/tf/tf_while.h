// TF1 while loops (tf.while_loop as frozen: Enter, Merge, LoopCond, Switch, NextIteration,
// Exit, one frame per loop), unrolled while the graph is imported (docs/frontend-tf.md,
// "Control flow"): the frame's nodes are converted once per iteration, the Merges reading
// the Enters' values first and the NextIterations' values after, until the loop condition,
// folded at compile time (frontends/common/import_eval.h), is false; the Exits then give the
// loop variables' last values. A condition that depends on run-time input values, or a loop
// that would add more than kMaxUnrolledNodes nodes, makes a loop that runs at run time
// (LoopBegin / LoopEnd, docs/frontend-tf.md); the TensorArrays it carries are dense tensors.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "frontends/common/import_eval.h"
#include "frontends/tf/tf_graph_walk.h"
#include "ir/graph.h"

namespace atc {
namespace tffe {

constexpr int64_t kMaxUnrolledNodes = 20000;  // nodes one loop may add (as for ONNX Loop)
constexpr int kMaxIterations = 10000;

// What the unroller needs from the importer.
struct FrameHooks {
  // The outputs slot of a node (overwritten each iteration).
  std::function<std::vector<Value*>&(const std::string& node)> outputs;
  // The value a node's input names (E10041 for a bad output index).
  std::function<Value*(const std::string& input, const tfproto::NodeDef& user)> lookup;
  // Converts an ordinary node (its inputs already in their slots).
  std::function<void(const tfproto::NodeDef&)> convert;
  Value* dead = nullptr;  // the value of an untaken Switch side
  // TensorArray flows among a run-time loop's variables (tf_tensor_array.h): carried as dense
  // tensors. denseFlow(flow, probe, at): the dense tensor for flow (probe: the flow the body
  // gave on the first values; nodes named after `at`); adoptDense(v, like).
  std::function<bool(Value*)> isArrayFlow;
  std::function<Value*(Value* flow, Value* probe, const tfproto::NodeDef& at)> denseFlow;
  std::function<void(Value* v, const Value* like)> adoptDense;
};

void unrollWhileFrame(Graph& g, const GraphIndex& idx, const WhileFrame& frame, frontend::ImportEval& ev,
                      const FrameHooks& hooks);

}  // namespace tffe
}  // namespace atc
