// ConvWinogradPass (passes/implmode/conv_winograd_pass.cpp): what other passes ask of it.
#pragma once
#include "ir/graph.h"
#include "passes/pass.h"

namespace atc {

// True when ConvWinogradPass, as configured (ATC_CONV_WINOGRAD, the fusion switch file), would
// take a float32 Conv of conv's shapes on ctx's target: its geometry, channel counts and map size
// rules alone (not its implementation mode or whether its weights are constant yet).
bool convWouldTakeWinograd(const Node& conv, const PassContext& ctx);

}  // namespace atc
