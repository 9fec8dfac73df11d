// What a pass is: a named function Graph& -> bool "changed", with statistics.
// See docs/passes.md for how to add one.
#pragma once
#include <cstdint>
#include <string>

#include "atc/compile_options.h"
#include "ir/graph.h"

namespace atc {

// The counters fusion_result.json reports per pass.
struct PassStats {
  int64_t matchTimes = 0;   // times the pattern matched
  int64_t effectTimes = 0;  // times the rewrite was applied
};

// Handed to a pass while it runs.
class PassContext {
 public:
  explicit PassContext(const CompileOptions& o) : opts(o) {}
  const CompileOptions& opts;
  PassStats stats;  // the running pass's counters (the manager accumulates them)
  std::string passName;
  // --log=debug messages, prefixed with the pass name. Use them to say why a pattern
  // matched but did not take effect.
  void debug(const std::string& msg) const;
  void info(const std::string& msg) const;
};

using PassFn = bool (*)(Graph&, PassContext&);

struct PassInfo {
  const char* name;         // unique, used by switches (ATC_DISABLE_PASSES, switch files)
  PassFn run;
  const char* group;        // "cleanup", "graph_fusion", "ub_fusion", "precision", "layout", "lower"
  bool canDisable;          // false: stays on whatever the switches say
  bool defaultOn;           // in the default pipeline unless switched off
  const char* description;
};

}  // namespace atc
