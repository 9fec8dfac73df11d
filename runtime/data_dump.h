// Data dump (docs/debugging.md): a StepObserver that writes the tensors of chosen steps and
// runs as .npy files named after the framework's nodes, plus dump_map.json, the index that the
// accuracy compare reads. ATC's dump options map onto DumpConfig: enable_dump + dump_path ->
// dir, dump_mode -> mode, dump_step -> runs, dump_list layers -> layers.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/atc_runtime.h"

namespace atc {
namespace rt {

struct DumpConfig {
  std::string dir;                  // dump_path: created if missing
  std::string mode = "output";      // dump_mode: output, input or all
  std::string runs;                 // dump_step: "0|5|10-20" (runs of Model::run, from 0); empty: all
  std::vector<std::string> layers;  // node names (a fused kernel matches any node it absorbed); empty: all
};

// A node name as a file name: characters other than letters, digits, '.', '-' and '_' become '_'.
std::string dumpFileStem(const std::string& name);

// Parses dump_step: indices and ranges separated by '|' (at most 100 entries, as ATC). Throws
// RuntimeError naming the bad entry.
std::vector<std::pair<int64_t, int64_t>> parseDumpSteps(const std::string& text);

// Reads an ATC-style dump config JSON ({"dump": {"dump_path", "dump_mode", "dump_step",
// "dump_list": [{"layer": [...]}]}}) into *c; fields absent from the file are left as they are.
void readDumpConfigJson(const std::string& path, DumpConfig* c);

class DataDump : public StepObserver {
 public:
  // Checks the config against the model (mode, steps, layer names) and creates the folder.
  DataDump(const Model& model, DumpConfig config);
  void beginRun(int64_t run) override;
  void beforeStep(int64_t run, const StepInfo& step) override;
  void afterStep(int64_t run, const StepInfo& step, double seconds) override;
  // Writes <dir>/<model>/dump_map.json (call after the last run). Returns its path.
  std::string finish();
  // Layer names of the config that matched no step (a warning for the user).
  const std::vector<std::string>& unmatchedLayers() const { return unmatched_; }
  size_t filesWritten() const { return files_; }

 private:
  bool runSelected(int64_t run) const;
  bool stepSelected(const StepInfo& s) const;
  void dumpTensors(int64_t run, const StepInfo& s, bool inputs);

  DumpConfig c_;
  std::string modelDir_;
  std::vector<std::pair<int64_t, int64_t>> ranges_;
  std::set<std::string> layers_;
  std::vector<std::string> unmatched_;
  std::map<size_t, std::string> stepBase_;  // step index -> file name stem (unique)
  std::vector<int64_t> runsDumped_;
  bool runActive_ = false;
  size_t files_ = 0;
  const Model& model_;
};

}  // namespace rt
}  // namespace atc
