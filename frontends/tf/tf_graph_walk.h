// GraphDef structure helpers: input references, node index, pruning to the requested
// outputs with cycle detection, stable topological order.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "frontends/tf/tf_graph.pb.h"

namespace atc {
namespace tffe {

struct InputRef {
  std::string node;
  int index = 0;
  bool control = false;  // "^node"
};
InputRef parseInputRef(const std::string& s);

// True for TF1 control-flow op types (Switch, Merge, Enter, Exit, NextIteration, LoopCond,
// TensorArray*...).
bool isControlFlowOp(const std::string& op);
// The ops of a while loop frame that the unroller (tf_while.h) handles: Enter, Exit,
// NextIteration, LoopCond (and the Ref forms).
bool isWhileLoopOp(const std::string& op);

struct GraphIndex {
  const tfproto::GraphDef* gd = nullptr;
  std::map<std::string, int> byName;
  // Throws E10041 on duplicate names.
  explicit GraphIndex(const tfproto::GraphDef& g);
  const tfproto::NodeDef* find(const std::string& name) const;
};

// A TF1 while loop: the nodes of one frame, from its Enters (frame_name) forward to its Exits,
// in a topological order of the loop body (the NextIteration -> Merge back edges left out).
struct WhileFrame {
  std::string name;
  std::vector<int> nodes;
};

// Indices of the nodes the given output nodes need through data inputs (control
// dependencies carry no data and are dropped), in a stable topological order (GraphDef order
// where free). The nodes of a while loop come together, in the frame's order (its back edges
// left out), and are listed in *frames. Throws E10041 for a missing input node or a cycle;
// E19010 for a cycle through control-flow ops that is no while frame, and for nested loops.
std::vector<int> requiredNodesInOrder(const GraphIndex& idx, const std::vector<std::string>& outputs,
                                      std::vector<WhileFrame>* frames = nullptr);

}  // namespace tffe
}  // namespace atc
