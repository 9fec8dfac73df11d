// Layout transfer sinking on the imported TF graph (always on). Channels-last TF ops that map
// to channels-first IR ops (Conv, pools, BatchNormalization, Resize) are converted with a
// Transpose on each side; between two such layers TF graphs put layout-free element-wise ops
// (BiasAdd, Relu, Relu6, activations, per-channel or scalar Add/Mul/Sub...). This moves the
// channels-last Transposes below those ops (per-channel constants become [C,1,..] constants)
// and cancels the Transpose(to channels-first) of a Transpose(to channels-last), so that
// consecutive layers stay channels-first and the graph converts at its boundaries only.
#pragma once
#include "ir/graph.h"

namespace atc {
namespace tffe {

// Returns the number of rewrites (sunk ops + cancelled pairs).
int sinkLayoutTransposes(Graph& g);

}  // namespace tffe
}  // namespace atc
