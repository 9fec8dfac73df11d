#include "atc/driver.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <new>
#include <sstream>

#include "atc/console.h"
#include "atc/fusion_result.h"
#include "atc/fusion_switch.h"
#include "atc/om_builder.h"
#include "atc/options.h"
#include "cache/entry_file.h"
#include "runtime/om_format.h"
#include "cache/graph_cache.h"
#include "frontends/onnx/onnx_importer.h"
#include "frontends/tf/tf_importer.h"
#include "frontends/tf/tf_scope_fusion.h"
#include "ir/error.h"
#include "kernels/codegen/codegen.h"
#include "atc/mode_json.h"
#include "passes/pass_manager.h"

namespace atc {

namespace {

class PhaseTimer {
 public:
  explicit PhaseTimer(std::string name) : name_(std::move(name)), t0_(std::chrono::steady_clock::now()) {}
  ~PhaseTimer() {
    if (!logEnabled(LogLevel::Info)) return;
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f ms", ms);
    logInfo("phase " + name_ + ": " + buf);
  }

 private:
  std::string name_;
  std::chrono::steady_clock::time_point t0_;
};

[[noreturn]] void outputError(const std::string& output, const std::string& reason) {
  throw AtcError("E10001", "Value [" + output + "] for parameter [--output] is invalid. Reason: " + reason,
                 "Set --output to a path prefix in an existing, writable folder (.om is appended).");
}

std::string parentDir(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

void checkStaticInputs(const Graph& g) {
  for (auto* in : g.inputs) {
    if (in->type.isStatic()) continue;
    throw AtcError("E10001",
                   "Value [" + in->type.str() + "] of input [" + in->name +
                       "] is invalid. Reason: the input has a dynamic or unknown shape, and dynamic shapes "
                       "are not supported in this version.",
                   "Fix the shape with --input_shape=\"" + in->name + ":d0,d1,...\".");
  }
}

// The temporary file being written, removed by the signal handler if atc is interrupted.
char g_tmpPath[4096];
volatile sig_atomic_t g_tmpActive = 0;

void onFatalSignal(int sig) {
  if (g_tmpActive) ::unlink(g_tmpPath);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void installSignalCleanup() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, onFatalSignal);
}

bool wantsHelp(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "--h" || a == "-h" || a == "-help") return true;
  }
  return false;
}

}  // namespace

void checkOutputPath(const std::string& output) {
  if (output.empty()) outputError(output, "the value is empty.");
  if (output.back() == '/') outputError(output, "it names a folder; --output is a path prefix such as out/model.");
  struct stat st;
  if (::stat(output.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    outputError(output, "it is an existing folder; --output is a path prefix such as out/model.");
  std::string dir = parentDir(output);
  if (::stat(dir.c_str(), &st) != 0) outputError(output, "the folder [" + dir + "] does not exist.");
  if (!S_ISDIR(st.st_mode)) outputError(output, "[" + dir + "] is not a folder.");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) outputError(output, "the folder [" + dir + "] is not writable.");
  // access() says yes to root everywhere: really create (and remove) a file there.
  std::string probe = output + ".om.probe." + std::to_string((long)::getpid());
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST) return;  // someone else's leftover: the folder is writable enough
    outputError(output, "the folder [" + dir + "] is not writable (" + std::strerror(errno) + ").");
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

void checkModelFile(const std::string& model) {
  const char* sol = "Check that --model names an existing, readable model file.";
  struct stat st;
  if (::stat(model.c_str(), &st) != 0)
    throw AtcError("E10041", "Failed to load the model from [" + model + "]. Reason: the file does not exist.", sol);
  if (!S_ISREG(st.st_mode))
    throw AtcError("E10041", "Failed to load the model from [" + model + "]. Reason: it is not a regular file.", sol);
  std::ifstream f(model, std::ios::binary);
  char c;
  if (!f || !f.read(&c, 1)) {
    if (f.is_open() && st.st_size == 0)
      throw AtcError("E10041", "Failed to load the model from [" + model + "]. Reason: the file is empty.", sol);
    throw AtcError("E10041", "Failed to load the model from [" + model + "]. Reason: the file cannot be read.", sol);
  }
}

void writeFileAtomically(const std::string& path, const void* data, size_t size) {
  std::string tmp = path + ".tmp." + std::to_string((long)::getpid());
  if (tmp.size() < sizeof g_tmpPath) {
    std::memcpy(g_tmpPath, tmp.c_str(), tmp.size() + 1);
    g_tmpActive = 1;
  }
  struct ClearTmp {
    ~ClearTmp() { g_tmpActive = 0; }
  } clearTmp;
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) outputError(path, std::string("cannot create [") + tmp + "]: " + std::strerror(errno) + ".");
  const uint8_t* p = static_cast<const uint8_t*>(data);
  size_t left = size;
  std::string err;
  while (left > 0 && err.empty()) {
    ssize_t w = ::write(fd, p, left);
    if (w < 0) {
      if (errno == EINTR) continue;
      err = std::string("write failed: ") + std::strerror(errno);
    } else {
      p += w;
      left -= (size_t)w;
    }
  }
  // No fsync: like compilers and linkers, atc relies on write-to-temp + rename for atomicity
  // (no reader ever sees a partial .om); flushing 50 MB to disk cost more than a warm build.
  if (::close(fd) != 0 && err.empty()) err = std::string("close failed: ") + std::strerror(errno);
  if (err.empty() && ::rename(tmp.c_str(), path.c_str()) != 0)
    err = std::string("rename failed: ") + std::strerror(errno);
  if (!err.empty()) {
    ::unlink(tmp.c_str());
    outputError(path, err + ".");
  }
}

void runCompile(const CompileOptions& optsIn) {
  CompileOptions opts = optsIn;
  applyPassDebugEnv(opts);
  if (opts.mode == 1) {
    writeOmJson(opts.om, opts.json);  // atc/mode_json.h
    return;
  }
  if (opts.mode != 0)
    throw AtcError("E10001", "Value [" + std::to_string(opts.mode) +
                                 "] for parameter [--mode] is invalid. Reason: only mode 0 is implemented.",
                   "Use --mode=0.");
  // Cheap checks first: a bad --output or model path must not cost a whole compile.
  checkOutputPath(opts.output);
  checkModelFile(opts.model);
  if (!opts.fusionSwitchFile.empty()) applyFusionSwitches(loadFusionSwitchFile(opts.fusionSwitchFile), opts);
  TargetProfile target;
  {
    PhaseTimer t("target profile");
    target = loadTargetProfile(opts.socVersion);
  }
  logInfo("target " + target.name + ": triple " + target.triple + ", cpu " + target.cpu);
  // Whole-model cache (--graph_compiler_cache_dir, docs/cache.md).
  std::string graphEntry;
  if (!opts.graphCompilerCacheDir.empty()) {
    std::string key = cache::graphCacheKey(opts.model, opts.cmdline,
                                           target.triple + "|" + target.cpu + "|" + target.features,
                                           codegenVersionTag() + "; om " + std::to_string(om::kFormatVersion));
    if (!key.empty()) graphEntry = cache::graphCacheEntryPath(opts.graphCompilerCacheDir, key);
    std::vector<uint8_t> cached;
    cache::ReadResult r = graphEntry.empty() ? cache::ReadResult::Missing : cache::readEntry(graphEntry, cached);
    if (r == cache::ReadResult::Ok) {
      PhaseTimer t("write");
      writeFileAtomically(opts.output + ".om", cached.data(), cached.size());
      logInfo("whole-model cache hit " + graphEntry + ": wrote " + opts.output + ".om");
      return;
    }
    if (r == cache::ReadResult::Corrupt) cache::warnOnce("whole-model cache entry " + graphEntry + " fails its checksum; rebuilding it");
  }
  std::unique_ptr<Graph> g;
  {
    PhaseTimer t("import");
    g = opts.framework == 3 ? importTf(opts) : importOnnx(opts);
  }
  if (!g) internalError("the frontend returned no graph");
  logInfo("imported graph " + g->name + ": " + std::to_string(g->nodes().size()) + " nodes, " +
          std::to_string(g->inputs.size()) + " inputs, " + std::to_string(g->outputs.size()) + " outputs");
  checkStaticInputs(*g);
  std::vector<PassRecord> passRecords;
  {
    PhaseTimer t("passes");
    passRecords = runDefaultPipeline(*g, opts);
  }
  if (opts.framework == 3)  // TF scope fusion passes that ran in the frontend report as graph fusions
    for (const auto& s : tffe::lastScopeFusionStats()) {
      PassRecord r;
      r.name = s.name;
      r.group = "graph_fusion";
      r.stats.matchTimes = s.matchTimes;
      r.stats.effectTimes = s.effectTimes;
      r.runs = 1;
      r.changedRuns = s.effectTimes ? 1 : 0;
      passRecords.push_back(r);
    }
  if (opts.exportCompileStat == 2) writeFusionResult(passRecords);
  logInfo("optimised graph: " + std::to_string(g->nodes().size()) + " nodes");
  if (logEnabled(LogLevel::Info)) logInfo(precisionSummaryTable(*g));
  std::vector<uint8_t> om;
  {
    PhaseTimer t("build om");
    om = buildOm(*g, opts, target);
  }
  {
    PhaseTimer t("write");
    writeFileAtomically(opts.output + ".om", om.data(), om.size());
  }
  logInfo("wrote " + opts.output + ".om (" + std::to_string(om.size()) + " bytes)");
  if (!graphEntry.empty()) {
    std::string err = cache::writeEntry(graphEntry, om);
    if (!err.empty()) cache::warnOnce("cannot store the model into --graph_compiler_cache_dir (" + err + ")");
  }
  if (opts.exportCompileStat == 1) {
    countRepositoryHits(*g, opts.kernelCacheReport.get(), passRecords);
    writeFusionResult(passRecords);
  }
}

int runAtcCommandLine(int argc, const char* const* argv, std::ostream& out) {
  try {
    if (wantsHelp(argc, argv)) {
      out << atcHelpText();
      out.flush();
      return 0;
    }
    out << kStartMessage << std::endl;
    installSignalCleanup();
    CompileOptions opts;
    std::ostringstream helpSink;
    if (!parseCommandLine(argc, argv, opts, helpSink)) {
      out << helpSink.str();
      return 0;
    }
    setLogLevel(opts.log);
    runCompile(opts);
    out << kSuccessMessage << std::endl;
    return 0;
  } catch (const AtcError& e) {
    printFailure(out, e);
  } catch (const std::bad_alloc&) {
    printFailure(out, AtcError("E19999", "Internal error: out of memory.",
                               "Free memory or build a smaller model, then retry."));
  } catch (const std::exception& e) {
    printFailure(out, AtcError("E19999", std::string("Internal error: ") + e.what(),
                               "Report this with the model and the command line."));
  } catch (...) {
    printFailure(out, AtcError("E19999", "Internal error: unknown exception.",
                               "Report this with the model and the command line."));
  }
  return 1;
}

}  // namespace atc
