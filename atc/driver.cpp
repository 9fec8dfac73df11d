#include "atc/driver.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <new>
#include <sstream>

#include <nlohmann/json.hpp>

#include "atc/console.h"
#include "frontends/common/import_cache.h"
#include "atc/fusion_result.h"
#include "atc/fusion_switch.h"
#include "backend/om_builder.h"
#include "atc/options.h"
#include "cache/entry_file.h"
#include "runtime/om_format.h"
#include "runtime/om_signature.h"
#include "cache/graph_cache.h"
#include "frontends/onnx/onnx_importer.h"
#include "frontends/tf/tf_importer.h"
#include "support/diagnostics.h"
#include "kernels/codegen/codegen.h"
#include "kernels/codegen/host_cpu.h"
#include "support/checked_math.h"
#include "support/file_io.h"
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
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.3f ms, RSS %.1f MB, peak %.1f MB", ms, statusMB("VmRSS:"), statusMB("VmHWM:"));
    logInfo("phase " + name_ + ": " + buf);
  }
  // A field of /proc/self/status in MB (0 where there is none).
  static double statusMB(const char* field) {
    FILE* f = std::fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    double kb = 0;
    size_t n = std::strlen(field);
    while (std::fgets(line, sizeof line, f))
      if (std::strncmp(line, field, n) == 0) kb = std::atof(line + n);
    std::fclose(f);
    return kb / 1024.0;
  }

 private:
  std::string name_;
  std::chrono::steady_clock::time_point t0_;
};

[[noreturn]] void outputError(const std::string& output, const std::string& reason) {
  invalidParam("output", output, reason, "Set --output to a path prefix in an existing, writable folder (.om is appended).");
}

std::string parentDir(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

void checkStaticInputs(const Graph& g) {
  for (auto* in : g.inputs) {
    if (!in->type.sizeFits())
      invalidParamCode("E10002", "input_shape", in->name + ":" + in->type.str(),
                       "the input's size overflows or exceeds " + std::to_string(kMaxTensorBytes) + " bytes.",
                       "Give the input a shape of a size the machine can hold with --input_shape.");
    if (in->type.isStatic()) continue;
    invalidValue("input [" + in->name + "]", in->type.str(),
                 "the input has a dynamic or unknown shape; a model is compiled for fixed shapes or for gears of them.",
                 "Fix the shape with --input_shape=\"" + in->name + ":d0,d1,...\", or mark the dims that change with -1 "
                 "and list their values with --dynamic_batch_size, --dynamic_image_size or --dynamic_dims.");
  }
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

void writeOutputFile(const std::string& path, const void* data, size_t size) {
  AtomicWrite how;
  how.removeOnSignal = true;
  std::string err = writeFileAtomically(path, data, size, how);
  if (!err.empty()) outputError(path, err + ".");
}

namespace {

// Whole-model cache (--graph_compiler_cache_dir, docs/cache.md): the entry's key and path.
struct GraphCacheEntry {
  std::string key, path;  // empty: no whole-model cache
};
GraphCacheEntry graphCacheEntry(const AtcOptions& opts, const TargetProfile& target) {
  // kernel_meta is written while kernels compile: a build that asks for it is never served whole.
  if (opts.output.graphCompilerCacheDir.empty() || !opts.backend.kernelMetaDir.empty()) return {};
  std::string key = cache::graphCacheKey(opts.import.model, opts.cmdline,
                                         target.triple + "|" + target.cpu + "|" + target.features + "|" + std::to_string(target.vectorBits),
                                         codegenVersionTag() + "; om " + std::to_string(om::kFormatVersion) +
                                             (opts.output.signKeyPem.empty() ? "" : "; signed"));
  if (key.empty()) return {};
  return {key, cache::graphCacheEntryPath(opts.output.graphCompilerCacheDir, key)};
}

// --sign_key (runtime/om_signature.h): a build with --sign_key reserves a SIGNATURE partition,
// signed in place; so are its whole-model cache entries. An entry without one is copied.
AtcError signError(const om::OmError& e) {
  return AtcError("E19999", std::string("Internal error: cannot sign the model: ") + e.what(),
                  "Check --sign_key; report this with the command line if the key is valid.");
}

void signModelInPlace(uint8_t* om, size_t size, const std::string& pem) {
  try {
    om::signOmInPlace(om, size, pem, "--sign_key");
  } catch (const om::OmError& e) {
    throw signError(e);
  }
}

// Signs a cached .om: in place when it has a SIGNATURE partition (returns false), else into
// *signedCopy (returns true).
bool signModel(uint8_t* om, size_t size, const std::string& pem, std::vector<uint8_t>* signedCopy) {
  try {
    om::OmView v = om::parseOm(om, size, "the model to sign");
    if (v.header.flags & om::kFlagSigned) {
      om::signOmInPlace(om, size, pem, "--sign_key");
      return false;
    }
    *signedCopy = om::signOm(std::vector<uint8_t>(om, om + size), pem, "--sign_key");
    return true;
  } catch (const om::OmError& e) {
    throw signError(e);
  }
}

// Writes the cached .om when the entry is valid and records this key; true on a hit.
bool serveFromGraphCache(const GraphCacheEntry& e, const std::string& omPath, const std::string& signKeyPem) {
  if (e.path.empty()) return false;
  const std::string& entry = e.path;
  std::vector<uint8_t> payload;  // the entry's one copy in memory (the .om at `off`)
  size_t off = 0;
  cache::ReadResult r = cache::readEntry(entry, payload);
  if (r == cache::ReadResult::Ok && !cache::graphCacheOmOffset(e.key, payload, &off)) {
    cache::warnOnce("whole-model cache entry " + entry + " holds another build's model; rebuilding it");
    return false;
  }
  if (r == cache::ReadResult::Ok) {
    PhaseTimer t("write");
    if (!signKeyPem.empty()) {
      std::vector<uint8_t> copy;  // only for an entry stored without a SIGNATURE partition
      if (signModel(payload.data() + off, payload.size() - off, signKeyPem, &copy)) {
        writeOutputFile(omPath, copy.data(), copy.size());
        logInfo("whole-model cache hit " + entry + ": wrote " + omPath);
        return true;
      }
    }
    writeOutputFile(omPath, payload.data() + off, payload.size() - off);
    logInfo("whole-model cache hit " + entry + ": wrote " + omPath);
    return true;
  }
  if (r == cache::ReadResult::Corrupt) cache::warnOnce("whole-model cache entry " + entry + " fails its checksum; rebuilding it");
  return false;
}

std::unique_ptr<Graph> importModel(const ImportOptions& opts) {
  PhaseTimer t("import");
  std::unique_ptr<Graph> g = opts.framework == 3 ? importTf(opts) : importOnnx(opts);
  if (!g) internalError("the frontend returned no graph");
  logInfo("imported graph " + g->name + ": " + std::to_string(g->nodes().size()) + " nodes, " +
          std::to_string(g->inputs.size()) + " inputs, " + std::to_string(g->outputs.size()) + " outputs");
  checkStaticInputs(*g);
  return g;
}

// Imports graph i (a dynamic model's gear i with its static shapes) and runs the passes;
// the first graph's pass records go to report.
std::unique_ptr<Graph> compileGraph(const AtcOptions& opts, const TargetProfile& target, size_t i, CompileReport& report) {
  std::unique_ptr<Graph> g;
  if (opts.dynamic.any()) {
    logInfo("gear " + std::to_string(i) + ": " + gearLabel(opts.dynamic, i));
    g = importModel(gearImportOptions(opts.import, opts.dynamic, i));  // (sharing opts.import.cache)
  } else {
    g = importModel(opts.import);
  }
  {
    PhaseTimer t("passes");
    std::vector<PassRecord> records = runDefaultPipeline(*g, opts.passes, &target);
    if (i == 0) report.passes = std::move(records);
  }
  if (i == 0 && opts.output.exportCompileStat == 2) writeFusionResult(report.passes);
  logInfo("optimised graph: " + std::to_string(g->nodes().size()) + " nodes");
  if (logEnabled(LogLevel::Info)) logInfo(precisionSummaryTable(*g));
  return g;
}

}  // namespace

void runCompile(const AtcOptions& optsIn, CompileReport* reportOut) {
  AtcOptions opts = optsIn;
  applyPassDebugEnv(opts.passes);
  if (opts.mode == 1) {
    writeOmJson(opts.om, opts.json);  // atc/mode_json.h
    return;
  }
  if (opts.mode != 0) invalidParam("mode", std::to_string(opts.mode), "only mode 0 is implemented.", "Use --mode=0.");
  // Cheap checks first: a bad --output or model path must not cost a whole compile.
  const std::string omPath = opts.output.output + ".om";
  checkOutputPath(opts.output.output);
  checkModelFile(opts.import.model);
  if (int n = removeStaleTemporaries(omPath)) logInfo("removed " + std::to_string(n) + " temporary file(s) of killed builds");
  TargetProfile target;
  {
    PhaseTimer t("target profile");
    target = loadTargetProfile(opts.socVersion, hostCpu());
  }
  logInfo("target " + target.name + ": triple " + target.triple + ", cpu " + target.cpu);
  GraphCacheEntry graphEntry = graphCacheEntry(opts, target);
  if (serveFromGraphCache(graphEntry, omPath, opts.output.signKeyPem)) return;
  CompileReport local;
  CompileReport& report = reportOut ? *reportOut : local;
  // The .om: one graph, or one per gear of a dynamic model (docs/dynamic-shapes.md), each
  // imported with its static shapes and compiled in full; the builder keeps their plans and
  // one copy of their weights. The passes of the first graph are the ones reported.
  opts.backend.releaseConstants = true;
  opts.backend.reserveSignature = !opts.output.signKeyPem.empty();
  OmBuilder builder(opts.backend, target);
  std::unique_ptr<Graph> g;  // the first graph (fusion_result.json's repository hits)
  const size_t graphs = opts.dynamic.any() ? opts.dynamic.gears.size() : 1;
  if (opts.dynamic.any()) {
    // one model imported per shape: parsed once, its weights the same objects in every graph
    opts.import.cache = std::make_shared<ImportCache>();
    std::vector<std::pair<std::string, std::vector<int64_t>>> shapes;
    for (auto& name : opts.import.inputShapeOrder) shapes.push_back({name, opts.import.inputShapes.at(name)});
    nlohmann::json ranges;  // a range build: each input's lowest and highest shape
    if (opts.dynamic.kind == "range") {
      ranges = nlohmann::json::array();
      for (auto& [name, shape] : shapes) {
        std::vector<int64_t> lo = shape, hi = shape;
        size_t next = 0;
        for (auto& n2 : opts.import.inputShapeOrder)
          for (size_t k = 0; k < opts.import.inputShapes.at(n2).size(); ++k)
            if (opts.import.inputShapes.at(n2)[k] == -1) {
              if (n2 == name) lo[k] = opts.dynamic.gears.front()[next], hi[k] = opts.dynamic.gears.back()[next];
              ++next;
            }
        ranges.push_back({{"name", name}, {"min", lo}, {"max", hi}});
      }
    }
    builder.setDynamic(opts.dynamic.option, opts.dynamic.kind, shapes, ranges);
  }
  for (size_t i = 0; i < graphs; ++i) {
    try {
      std::unique_ptr<Graph> gi = compileGraph(opts, target, i, report);
      {
        PhaseTimer t("plan");
        builder.addGraph(*gi, opts.dynamic.any() ? opts.dynamic.gears[i] : std::vector<int64_t>{});
      }
      if (i == 0) g = std::move(gi);
    } catch (const AtcError& e) {
      if (!opts.dynamic.any()) throw;
      throw AtcError(e.code(), "gear " + std::to_string(i) + " (" + gearLabel(opts.dynamic, i) + "): " + e.message(),
                     e.solution() + (opts.dynamic.kind == "range"
                                         ? " Every shape of the range must compile: narrow the range."
                                         : " Every gear must compile: drop the gears this model cannot take."));
    }
  }
  opts.import.cache.reset();  // the original weights: the builder holds what the plans read
  // The .om image: calloc'd pages, written once; the weights move into it (peak memory near
  // one copy of the weights, docs/security.md).
  std::unique_ptr<uint8_t, void (*)(void*)> image(nullptr, std::free);
  size_t omSize = 0;
  {
    PhaseTimer t("build om");
    omSize = builder.finish(&report.kernelCache, [&image](size_t n) {
      image.reset((uint8_t*)std::calloc(n ? n : 1, 1));
      if (!image) throw std::bad_alloc();
      return image.get();
    });
    if (opts.backend.reserveSignature) signModelInPlace(image.get(), omSize, opts.output.signKeyPem);
  }
  {
    PhaseTimer t("write");
    writeOutputFile(omPath, image.get(), omSize);
  }
  logInfo("wrote " + omPath + " (" + std::to_string(omSize) + " bytes)");
  if (!graphEntry.path.empty()) {
    std::string err = cache::storeGraphCacheEntry(graphEntry.path, graphEntry.key, image.get(), omSize);
    if (!err.empty()) cache::warnOnce("cannot store the model into --graph_compiler_cache_dir (" + err + ")");
  }
  if (opts.output.exportCompileStat == 1) {
    countRepositoryHits(*g, report.kernelCache, report.passes);
    writeFusionResult(report.passes);
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
    AtcOptions opts;
    std::ostringstream helpSink;
    if (!parseCommandLine(argc, argv, opts, helpSink)) {
      out << helpSink.str();
      return 0;
    }
    setLogLevel(opts.log);
    if (opts.mode == 6) {
      out << omInfoText(opts.om);
    } else {
      runCompile(opts);
      if (opts.output.displayModelInfo) out << omInfoText(opts.output.output + ".om");
    }
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
