// Shared by the element-wise UB-fusion passes (TbeEltwiseFusionPass, AutomaticUbFusion):
// which nodes can join a fused_eltwise group and how a group becomes one FusedEltwise node.
#pragma once
#include <map>
#include <vector>

#include "ops/fused/fused_program.h"
#include "passes/pass.h"

namespace atc {

// True if n (float32, static shapes) can be expressed in a fused_eltwise program.
bool eltwiseFusible(const Node& n);
// Appends n's computation to p; regOf maps values already in registers (external inputs,
// earlier members). Returns false if n cannot be expressed. Scalar constants become
// FE_OP_CONST ops; other inputs must be in regOf.
bool emitEltwiseNode(const Node& n, FeProgram& p, std::map<const Value*, int64_t>& regOf);
// Number of program registers n needs (upper bound).
int64_t eltwiseOpCost(const Node& n);
// External inputs (non-scalar-constant values not produced inside the group) of members.
std::vector<Value*> groupInputs(const std::vector<Node*>& members);
// Replaces members (topological order, last = root) by one FusedEltwise node producing the
// root's output. Returns the new node.
Node* buildFusedEltwise(Graph& g, const std::vector<Node*>& members);
// Groups element-wise nodes: chainsOnly merges a producer only into a consumer that has no
// other merged producer (linear chains); otherwise any single-use fusible producer joins its
// consumer's group (trees). Counts match/effect times in ctx.
bool runEltwiseGrouping(Graph& g, PassContext& ctx, bool chainsOnly);

}  // namespace atc
