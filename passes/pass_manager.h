// Runs a pipeline of registered passes with statistics and the debug switches:
//   ATC_PRINT_IR_AFTER=name[,name]|all  print the IR to stderr after those passes
//   ATC_DISABLE_PASSES=a,b              switch passes off (not those that cannot be)
//   ATC_STOP_AFTER_PASSES=N             run only the first N passes (+ required ones)
//   ATC_VERIFY_EACH=0                   do not verify after each changing pass
// (applyPassDebugEnv copies them into PassOptions; the manager reads PassOptions.)
#pragma once
#include <string>
#include <vector>

#include "passes/pass.h"

namespace atc {

class PassManager {
 public:
  PassManager(const PassOptions& opts, const TargetProfile* target = nullptr);
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
  const PassOptions& opts_;
  const TargetProfile* target_;
  std::vector<std::string> pipeline_;
  std::vector<std::string> disabled_;
  std::vector<PassRecord> records_;
};

// Reads the ATC_* debug environment variables into opts (unset ones change nothing).
void applyPassDebugEnv(PassOptions& opts);

// The default pipeline with opts' switches applied; returns its records.
std::vector<PassRecord> runDefaultPipeline(Graph& g, const PassOptions& opts, const TargetProfile* target = nullptr);

}  // namespace atc
