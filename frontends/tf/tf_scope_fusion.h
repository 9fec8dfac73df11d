// TF scope fusion on the imported IR: decomposed arithmetic that TensorFlow emits for one
// layer is replaced by that one IR op. Non-general passes run when named in
// --enable_scope_fusion_passes (unknown names: a warning naming them on stderr).
//   ScopeLayerNormPass (non-general): moments + batchnorm arithmetic -> LayerNormalization
// General scope passes (always on): none yet (a Gelu pass needs a Gelu IR op).
#pragma once
#include <string>
#include <vector>

#include "atc/compile_options.h"
#include "ir/graph.h"

namespace atc {
namespace tffe {

void runScopeFusion(Graph& g, const CompileOptions& opts);
std::vector<std::string> knownScopeFusionPasses();

}  // namespace tffe
}  // namespace atc
