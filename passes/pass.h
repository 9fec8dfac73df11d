// What a pass is: a named function Graph& -> bool "changed", with statistics.
// See docs/passes.md for how to add one.
#pragma once
#include <cstdint>
#include <string>

#include "ir/graph.h"
#include "passes/pass_options.h"
#include "target/target_profile.h"

namespace atc {

// The counters fusion_result.json reports per pass.
struct PassStats {
  int64_t matchTimes = 0;   // times the pattern matched
  int64_t effectTimes = 0;  // times the rewrite was applied
};

// What one pipeline entry did (CompileReport, fusion_result.json).
struct PassRecord {
  std::string name;
  std::string group;
  PassStats stats;      // accumulated over runs
  int runs = 0;
  int changedRuns = 0;
  double milliseconds = 0;
  bool skipped = false; // disabled or after the stop point
  int64_t repositoryHits = 0;  // UB fusion: its fused kernels served from the kernel cache
};

// Handed to a pass while it runs.
class PassContext {
 public:
  explicit PassContext(const PassOptions& o, const TargetProfile* t = nullptr) : opts(o), target(t) {}
  const PassOptions& opts;
  // The --soc_version profile, loaded once by the driver. Null (unit tests, atc-opt without
  // --soc_version): no op-info, every dtype allowed.
  const TargetProfile* target;
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
