// The order of a graph's nodes for a plan with run-time loops (ops/control/loop_ops.cpp): the
// runtime runs the steps from a LoopBegin to its LoopEnd once per iteration, so exactly the
// loop's body must lie between them. The body is every node that depends on the LoopBegin and
// that the LoopEnd depends on; every other node is moved out (before the loop when it does
// not depend on it, after it otherwise), keeping the order stable. A loop inside another's
// body is ordered the same way inside it (its range nested in the outer one).
#pragma once
#include "ir/graph.h"

namespace atc {

// Reorders g's nodes (g topologically sorted); does nothing without loops.
void scheduleLoops(Graph& g);

}  // namespace atc
