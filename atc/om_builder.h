// Lowers an optimised graph to an execution plan, compiles its kernels and serialises the
// .om (see docs/om-format.md).
#pragma once
#include <cstdint>
#include <vector>

#include "atc/compile_options.h"
#include "ir/graph.h"
#include "kernels/codegen/codegen.h"

namespace atc {

// g must be verified, topologically sorted, with static shapes everywhere.
std::vector<uint8_t> buildOm(Graph& g, const CompileOptions& opts, const TargetProfile& target);

}  // namespace atc
