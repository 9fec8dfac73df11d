// TbeEltwiseFusionPass: linear chains of element-wise ops become one FusedEltwise node
// (one fused_eltwise kernel that reads the chain's inputs once and writes once).
#include "passes/ub_fusion/eltwise_group.h"

namespace atc {
bool runTbeEltwiseFusionPass(Graph& g, PassContext& ctx) { return runEltwiseGrouping(g, ctx, true); }
}  // namespace atc
