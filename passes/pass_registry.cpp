#include "passes/pass_registry.h"

#include "support/diagnostics.h"

namespace atc {

const std::vector<PassInfo>& allPasses() {
  static const std::vector<PassInfo> passes = {
#define ATC_PASS(name, fn, group, canDisable, defaultOn, desc) \
  PassInfo{#name, &fn, group, canDisable, defaultOn, desc},
#include "passes/pass_registry.def"
#undef ATC_PASS
  };
  return passes;
}

const PassInfo* findPass(const std::string& name) {
  for (auto& p : allPasses())
    if (name == p.name) return &p;
  return nullptr;
}

}  // namespace atc
