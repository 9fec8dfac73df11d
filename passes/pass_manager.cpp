#include "passes/pass_manager.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "support/log.h"
#include "support/diagnostics.h"
#include "support/strings.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/pass_registry.h"

namespace atc {

void PassContext::debug(const std::string& msg) const { logDebug("pass " + passName + ": " + msg); }
void PassContext::info(const std::string& msg) const { logInfo("pass " + passName + ": " + msg); }

namespace {

std::string knownPassNames() {
  std::string s;
  for (auto& p : allPasses()) s += (s.empty() ? "" : ", ") + std::string(p.name);
  return s;
}

const PassInfo& requirePass(const std::string& name, const std::string& where) {
  const PassInfo* p = findPass(name);
  if (!p)
    invalidValue(where, name, "no pass has this name.", "Use one of: " + knownPassNames() + ".");
  return *p;
}



bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

PassManager::PassManager(const PassOptions& opts, const TargetProfile* target) : opts_(opts), target_(target) {
  for (auto& name : opts.disabledPasses) {
    if (!disable(name))
      logWarning("pass " + name + " cannot be switched off; it stays on");
  }
  for (auto& name : opts.debug.printIrAfter) requirePass(name, "ATC_PRINT_IR_AFTER");
}

void PassManager::addDefaultPipeline() {
  for (auto& p : allPasses())
    if (p.defaultOn || contains(opts_.enabledPasses, p.name)) addPass(p.name);
}

void PassManager::addPass(const std::string& name) {
  const PassInfo& p = requirePass(name, "the pass pipeline");
  pipeline_.push_back(p.name);
  PassRecord r;
  r.name = p.name;
  r.group = p.group;
  records_.push_back(r);
}

bool PassManager::disable(const std::string& name) {
  const PassInfo& p = requirePass(name, "ATC_DISABLE_PASSES");
  if (!p.canDisable) return false;
  if (!contains(disabled_, name)) disabled_.push_back(name);
  return true;
}

bool PassManager::isEnabled(const std::string& name) const { return !contains(disabled_, name); }

std::vector<std::string> PassManager::pipeline() const { return pipeline_; }

bool PassManager::run(Graph& g) {
  bool anyChange = false;
  int executed = 0;
  for (size_t i = 0; i < pipeline_.size(); ++i) {
    const PassInfo& p = *findPass(pipeline_[i]);
    PassRecord& rec = records_[i];
    bool stopped = opts_.debug.stopAfterPasses >= 0 && executed >= opts_.debug.stopAfterPasses;
    if (p.canDisable && (!isEnabled(p.name) || stopped)) {
      rec.skipped = true;
      logInfo(std::string("pass ") + p.name + ": skipped (" +
              (stopped ? "after the stop point" : "switched off") + ")");
      continue;
    }
    PassContext ctx(opts_, target_);
    ctx.passName = p.name;
    auto t0 = std::chrono::steady_clock::now();
    bool changed = p.run(g, ctx);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    ++executed;
    rec.runs++;
    rec.changedRuns += changed ? 1 : 0;
    rec.stats.matchTimes += ctx.stats.matchTimes;
    rec.stats.effectTimes += ctx.stats.effectTimes;
    rec.milliseconds += ms;
    anyChange = anyChange || changed;
    if (logEnabled(LogLevel::Info)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.3f ms", ms);
      logInfo(std::string("pass ") + p.name + ": " + (changed ? "changed" : "unchanged") +
              ", match_times=" + std::to_string(ctx.stats.matchTimes) +
              ", effect_times=" + std::to_string(ctx.stats.effectTimes) + ", nodes=" +
              std::to_string(g.nodes().size()) + ", " + buf);
    }
    if (opts_.debug.printIrAfterAll || contains(opts_.debug.printIrAfter, p.name)) {
      std::string text = std::string("// ---- IR after pass ") + p.name +
                         (changed ? " (changed)" : " (unchanged)") + " ----\n" + printGraph(g);
      std::fwrite(text.data(), 1, text.size(), stderr);
      std::fflush(stderr);
    }
    if (changed && opts_.debug.verifyEach) verifyGraph(g, VerifyOptions{}, std::string("after pass ") + p.name);
  }
  return anyChange;
}

void applyPassDebugEnv(PassOptions& opts) {
  if (const char* e = std::getenv("ATC_PRINT_IR_AFTER")) {
    for (auto& n : splitList(e)) {
      if (n == "all") opts.debug.printIrAfterAll = true;
      else opts.debug.printIrAfter.push_back(n);
    }
  }
  if (const char* e = std::getenv("ATC_DISABLE_PASSES"))
    for (auto& n : splitList(e)) opts.disabledPasses.push_back(n);
  if (const char* e = std::getenv("ATC_STOP_AFTER_PASSES")) {
    char* end = nullptr;
    long v = std::strtol(e, &end, 10);
    if (!*e || *end || v < 0)
      invalidValue("environment variable [ATC_STOP_AFTER_PASSES]", e, "it must be a non-negative integer.",
                   "Set ATC_STOP_AFTER_PASSES to a number of passes, or unset it.");
    opts.debug.stopAfterPasses = (int)v;
  }
  if (const char* e = std::getenv("ATC_VERIFY_EACH")) opts.debug.verifyEach = std::string(e) != "0";
}

std::vector<PassRecord> runDefaultPipeline(Graph& g, const PassOptions& opts, const TargetProfile* target) {
  PassManager pm(opts, target);
  pm.addDefaultPipeline();
  pm.run(g);
  return pm.records();
}

}  // namespace atc
