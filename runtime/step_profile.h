// Per-op profiling (docs/debugging.md): a StepObserver that times every step of the runs it
// sees and writes a Chrome trace (chrome://tracing or https://ui.perfetto.dev) with a summary
// sorted by total time, GFLOP/s for cube ops. omrun --profile=FILE.json uses it.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/atc_runtime.h"

namespace atc {
namespace rt {

class StepProfiler : public StepObserver {
 public:
  // Runs before `firstRun` (omrun's --warmup runs) are not recorded.
  explicit StepProfiler(const Model& model, int64_t firstRun = 0);
  void beginRun(int64_t run) override;
  void beforeStep(int64_t run, const StepInfo& step) override;
  void afterStep(int64_t run, const StepInfo& step, double seconds) override;
  void endRun(int64_t run) override;

  struct Row {  // one step over the recorded runs
    size_t step;
    double totalMs, meanMs, share, gflops;  // gflops 0: not a cube op
  };
  std::vector<Row> summary() const;  // sorted by total time, largest first
  int64_t runsRecorded() const { return runs_; }
  // The trace: one complete event per step and run (name = node, cat = op type, args = kernel,
  // fused_from, input and output dtypes and shapes, GFLOP/s) and one per run, plus
  // "atc_summary" (the summary rows). Throws RuntimeError when it cannot be written.
  void writeTrace(const std::string& path) const;
  // The summary as a text table (the `top` largest rows).
  std::string summaryTable(size_t top) const;

 private:
  struct Event {
    int64_t run;
    size_t step;  // SIZE_MAX: the whole run
    double startUs, durUs;
  };
  const Model& model_;
  int64_t firstRun_;
  int64_t runs_ = 0;
  std::chrono::steady_clock::time_point origin_, stepStart_, runStart_;
  bool originSet_ = false;
  std::vector<double> totalSec_;
  std::vector<Event> events_;
};

// Forwards to several observers in order (omrun with both --dump and --profile).
class StepObserverList : public StepObserver {
 public:
  void add(StepObserver* o) { list_.push_back(o); }
  bool empty() const { return list_.empty(); }
  void beginRun(int64_t run) override {
    for (auto* o : list_) o->beginRun(run);
  }
  void beforeStep(int64_t run, const StepInfo& s) override {
    for (auto* o : list_) o->beforeStep(run, s);
  }
  void afterStep(int64_t run, const StepInfo& s, double sec) override {
    for (auto* o : list_) o->afterStep(run, s, sec);
  }
  void endRun(int64_t run) override {
    for (auto* o : list_) o->endRun(run);
  }

 private:
  std::vector<StepObserver*> list_;
};

}  // namespace rt
}  // namespace atc
