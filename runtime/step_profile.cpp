#include "runtime/step_profile.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "support/file_io.h"

namespace atc {
namespace rt {
namespace {

double usSince(std::chrono::steady_clock::time_point origin, std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::micro>(t - origin).count();
}

nlohmann::json tensorList(const std::vector<StepTensor>& ts) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& t : ts) a.push_back(t.desc.name.empty() ? std::string("(absent)") : t.desc.dtype + t.desc.shapeString());
  return a;
}

}  // namespace

StepProfiler::StepProfiler(const Model& model, int64_t firstRun)
    : model_(model), firstRun_(firstRun), totalSec_(model.steps().size(), 0.0) {}

void StepProfiler::beginRun(int64_t run) {
  if (run < firstRun_) return;
  auto now = std::chrono::steady_clock::now();
  if (!originSet_) {
    origin_ = now;
    originSet_ = true;
  }
  runStart_ = now;
}

void StepProfiler::beforeStep(int64_t run, const StepInfo&) {
  if (run >= firstRun_) stepStart_ = std::chrono::steady_clock::now();
}

void StepProfiler::afterStep(int64_t run, const StepInfo& s, double seconds) {
  if (run < firstRun_ || s.index >= totalSec_.size()) return;
  totalSec_[s.index] += seconds;
  events_.push_back({run, s.index, usSince(origin_, stepStart_), seconds * 1e6});
}

void StepProfiler::endRun(int64_t run) {
  if (run < firstRun_) return;
  ++runs_;
  auto now = std::chrono::steady_clock::now();
  events_.push_back({run, SIZE_MAX, usSince(origin_, runStart_), usSince(runStart_, now)});
}

std::vector<StepProfiler::Row> StepProfiler::summary() const {
  double total = 0;
  for (double t : totalSec_) total += t;
  std::vector<Row> rows;
  const auto& steps = model_.steps();
  for (size_t i = 0; i < totalSec_.size(); ++i) {
    Row r{i, totalSec_[i] * 1e3, runs_ ? totalSec_[i] * 1e3 / (double)runs_ : 0.0, total > 0 ? totalSec_[i] / total : 0.0, 0.0};
    if (steps[i].flops > 0 && totalSec_[i] > 0) r.gflops = (double)steps[i].flops * (double)runs_ / totalSec_[i] / 1e9;
    rows.push_back(r);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.totalMs > b.totalMs; });
  return rows;
}

void StepProfiler::writeTrace(const std::string& path) const {
  const auto& steps = model_.steps();
  nlohmann::json ev = nlohmann::json::array();
  ev.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", {{"name", "omrun " + model_.name()}}}});
  ev.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 0}, {"args", {{"name", "runs"}}}});
  ev.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 1}, {"args", {{"name", "ops (calling thread)"}}}});
  for (const auto& e : events_) {
    nlohmann::json j;
    j["ph"] = "X";
    j["pid"] = 1;
    j["ts"] = e.startUs;
    j["dur"] = e.durUs;
    if (e.step == SIZE_MAX) {
      j["name"] = "run " + std::to_string(e.run);
      j["cat"] = "run";
      j["tid"] = 0;
    } else {
      const StepInfo& s = steps[e.step];
      j["name"] = s.node;
      j["cat"] = s.type;
      j["tid"] = 1;
      nlohmann::json a;
      a["step"] = s.index;
      a["run"] = e.run;
      a["kernel"] = s.kernel;
      a["fused_from"] = s.fusedFrom.empty() ? std::vector<std::string>{s.node} : s.fusedFrom;
      a["inputs"] = tensorList(s.inputs);
      a["outputs"] = tensorList(s.outputs);
      if (s.flops > 0 && e.durUs > 0) a["gflops"] = (double)s.flops / (e.durUs * 1e3);
      j["args"] = a;
    }
    ev.push_back(j);
  }
  nlohmann::json sum = nlohmann::json::array();
  for (const Row& r : summary()) {
    const StepInfo& s = steps[r.step];
    nlohmann::json x{{"step", r.step}, {"node", s.node}, {"type", s.type}, {"kernel", s.kernel},
                     {"total_ms", r.totalMs}, {"mean_ms", r.meanMs}, {"share", r.share}};
    if (r.gflops > 0) x["gflops"] = r.gflops;
    sum.push_back(x);
  }
  nlohmann::json doc{{"traceEvents", ev}, {"displayTimeUnit", "ms"}, {"atc_runs", runs_}, {"atc_summary", sum}};
  std::string text = doc.dump() + "\n";
  std::string err = writeFileAtomically(path, text.data(), text.size());
  if (!err.empty()) throw RuntimeError("cannot write the profile " + path + ": " + err);
}

std::string StepProfiler::summaryTable(size_t top) const {
  const auto& steps = model_.steps();
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%5s %10s %6s %8s  %-16s %s\n", "step", "ms/run", "share", "GFLOP/s", "type", "node");
  out += line;
  size_t n = 0;
  for (const Row& r : summary()) {
    if (n++ == top) break;
    const StepInfo& s = steps[r.step];
    char gf[32] = "";
    if (r.gflops > 0) std::snprintf(gf, sizeof gf, "%.1f", r.gflops);
    std::snprintf(line, sizeof line, "%5zu %10.4f %5.1f%% %8s  %-16s %s\n", r.step, r.meanMs, 100 * r.share, gf,
                  s.type.c_str(), s.node.c_str());
    out += line;
  }
  return out;
}

}  // namespace rt
}  // namespace atc
