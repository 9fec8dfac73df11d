// The registry of passes, built from passes/pass_registry.def (one line per pass).
#pragma once
#include <string>
#include <vector>

#include "passes/pass.h"

namespace atc {

#define ATC_PASS(name, fn, group, canDisable, defaultOn, desc) bool fn(Graph&, PassContext&);
#include "passes/pass_registry.def"
#undef ATC_PASS

// All passes, in pipeline order.
const std::vector<PassInfo>& allPasses();
// Null if no pass has that name.
const PassInfo* findPass(const std::string& name);

}  // namespace atc
