// Backend phase 1: every node of the optimised graph lowered to a kernel call (op table's
// lower function), or marked as skipped (all outputs constant).
#pragma once
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/op_registry.h"
#include "target/target_profile.h"

namespace atc {

struct LoweredNode {
  Node* node = nullptr;
  KernelCall call;
  bool skip = false;  // outputs all constant, or aliased onto input 0 (memory plan)
  bool control = false;  // a control step of the runtime (loop, sequence), no kernel
};

// A loop control node (ops/control/loop_ops.cpp).
inline bool isLoopControl(const Node& n) { return n.type == "LoopBegin" || n.type == "LoopEnd"; }
// A node on a sequence made at run time (ops/control/sequence_ops.cpp).
inline bool isSequenceControl(const Node& n) { return n.type.rfind("RuntimeSequence", 0) == 0; }

// g must have static shapes everywhere (E19999 otherwise). packs: packed weights shared with
// the other graphs of the build (gears, ranges), null for none; rangeBuild: LowerState's.
std::vector<LoweredNode> lowerGraph(Graph& g, const TargetProfile& target, PackCache* packs = nullptr,
                                    bool rangeBuild = false);

}  // namespace atc
