// AutomaticUbFusion: any other connected group of element-wise ops (trees: a node whose
// several producers are single-use element-wise ops or fused groups) becomes one node.
#include "passes/ub_fusion/eltwise_group.h"

namespace atc {
bool runAutomaticUbFusion(Graph& g, PassContext& ctx) { return runEltwiseGrouping(g, ctx, false); }
}  // namespace atc
