// Runs a pipeline of registered passes with statistics and the debug switches:
//   ATC_PRINT_IR_AFTER=name[,name]|all  print the IR to stderr after those passes
//   ATC_DISABLE_PASSES=a,b              switch passes off (not those that cannot be)
//   ATC_STOP_AFTER_PASSES=N             run only the first N passes (+ required ones)
//   ATC_VERIFY_EACH=0                   do not verify after each changing pass
// (applyPassDebugEnv copies them into CompileOptions; the manager reads CompileOptions.)
#pragma once
#include <string>
#include <vector>

#include "atc/compile_options.h"
#include "passes/pass.h"

namespace atc {

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

class PassManager {
 public:
  explicit PassManager(const CompileOptions& opts);
  // Every default-on pass of the registry, in registry order.
  void addDefaultPipeline();
  // Appends a pass; throws AtcError E10001 for an unknown name.
  void addPass(const std::string& name);
  // Switches a pass off. Returns false (and changes nothing) for a pass that cannot be
  // switched off. Throws AtcError E10001 for an unknown name.
  bool disable(const std::string& name);
  bool isEnabled(const std::string& name) const;
  // Runs the pipeline; true if some pass changed the graph. Errors of passes propagate.
  bool run(Graph& g);
  // One record per pipeline entry, in pipeline order.
  const std::vector<PassRecord>& records() const { return records_; }
  std::vector<std::string> pipeline() const;

 private:
  const CompileOptions& opts_;
  std::vector<std::string> pipeline_;
  std::vector<std::string> disabled_;
  std::vector<PassRecord> records_;
};

// Reads the ATC_* debug environment variables into opts (unset ones change nothing).
void applyPassDebugEnv(CompileOptions& opts);

// The default pipeline with opts' switches applied; returns its records.
std::vector<PassRecord> runDefaultPipeline(Graph& g, const CompileOptions& opts);

}  // namespace atc
