// Kernels shared by the plans of a shape-range build (docs/dynamic-shapes.md, "Ranges"):
// one plan per shape of the range, and generic instances for the steps whose params change
// with the shape (the runtime hands each step its params).
#pragma once
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/codegen/codegen.h"

namespace atc {

struct RangeKernelStats {
  size_t specialised = 0;  // instances every shape uses, params baked in
  size_t generic = 0;      // generic instances (one per set of nodes with equal baked params)
  size_t replaced = 0;     // specialised instances the generic ones replace
};

// plans: the per-shape plans, whose kernel steps carry `params` (their instance's); instances:
// every instance they name. An instance that every plan uses (its params do not depend on the
// shape) stays as it is and its steps drop `params`; the others are replaced, per node, by a
// generic instance (symbol "g<N>") with the params all of the node's instances agree on baked
// in and the rest read at run time (nodes whose baked params are equal share one), except
// bounds-checked ones (an `oom` build checks against fixed buffer sizes), which stay
// specialised per shape. Rewrites the steps' symbols and returns the instances to compile.
std::vector<KernelInstance> shareKernelsAcrossRange(std::vector<nlohmann::json>& plans,
                                                    std::vector<KernelInstance> instances, RangeKernelStats* stats);

}  // namespace atc
