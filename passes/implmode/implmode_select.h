// Implementation-mode selection (docs/implmode.md): which kernel variant each node uses,
// from --op_precision_mode (ini), --op_select_implmode and --optypelist_for_implmode.
// The pass (impl_mode_selection.cpp) stores the choice as node attributes "_impl_mode" and
// "_impl_mode_reason"; op lowerings read it through implVariantOf() (impl_variant.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "passes/pass_options.h"
#include "ir/graph.h"

namespace atc {

// Modes an op type implements ("high_performance" first = its default); empty: one
// implementation only (no choice).
const std::vector<std::string>& implModesOf(const std::string& opType);

// The built-in lists of --op_select_implmode=high_precision / high_performance.
const std::vector<std::string>& builtinImplList(const std::string& mode);

struct ImplChoice {
  std::string mode;    // empty: the op has one implementation (attributes not set)
  std::string reason;  // e.g. "op_precision_mode [ByNodeName] line 4"
};

// Resolves the mode of one node. names: the node's name then its original names (fusion).
ImplChoice resolveImplMode(const ImplModeOptions& o, const std::string& opType,
                           const std::vector<std::string>& names);

}  // namespace atc
