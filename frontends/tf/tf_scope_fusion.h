// TF scope fusion on the imported IR: TensorFlow name scopes whose decomposed arithmetic is
// one known op are replaced by that op. General passes always run; non-general ones run
// when named in --enable_scope_fusion_passes (unknown names: a warning naming them).
//   ScopeLayerNormPass (non-general): moments + batchnorm arithmetic -> LayerNormalization
//   ScopeGeluPass (general): 0.5*x*(1+erf(x/sqrt2)) and the tanh form -> Gelu arithmetic kept
//     as one scope (see docs/frontend-tf.md)
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
