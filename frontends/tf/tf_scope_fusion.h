// TF scope fusion on the imported IR: decomposed arithmetic that TensorFlow emits for one
// layer is replaced by that one IR op. Non-general passes run when named in
// --enable_scope_fusion_passes (unknown names: a warning naming them on stderr).
//   ScopeLayerNormPass (non-general): moments + batchnorm arithmetic -> LayerNormalization
//   ScopeGeluPass (non-general): erf/tanh Gelu arithmetic -> Gelu
// General scope passes (always on): none (see docs/frontend-tf.md: the always-on rewrites of
// decomposed arithmetic are the graph fusion passes, which --fusion_switch_file controls).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "atc/compile_options.h"
#include "ir/graph.h"

namespace atc {
namespace tffe {

// Counters of one scope pass in the last runScopeFusion on this thread (for fusion_result.json).
struct ScopeFusionStat {
  std::string name;
  int64_t matchTimes = 0;
  int64_t effectTimes = 0;
};

void runScopeFusion(Graph& g, const CompileOptions& opts);
const std::vector<ScopeFusionStat>& lastScopeFusionStats();
std::vector<std::string> knownScopeFusionPasses();

}  // namespace tffe
}  // namespace atc
