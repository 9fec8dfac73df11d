// omrun: runs an .om model (ais_bench-style options). See docs/om-format.md.
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "runtime/atc_runtime.h"
#include "runtime/data_dump.h"
#include "runtime/step_profile.h"
#include "runtime/npy.h"
#include "support/half.h"
#include "support/file_io.h"
#include "support/strings.h"

using atc::rt::Model;
using atc::rt::RuntimeError;
using atc::rt::TensorDesc;

namespace {


// Deterministic random data: floats in [-1, 1), integers in [0, 4), bools 0/1.
std::vector<uint8_t> randomInput(const TensorDesc& d, std::mt19937& rng) {
  std::vector<uint8_t> buf(d.bytes);
  size_t es = atc::rt::dtypeSizeByName(d.dtype);
  size_t n = es ? d.bytes / es : 0;
  std::uniform_real_distribution<float> uf(-1.f, 1.f);
  std::uniform_int_distribution<int> ui(0, 3);
  for (size_t i = 0; i < n; ++i) {
    uint8_t* p = buf.data() + i * es;
    const std::string& t = d.dtype;
    if (t == "float32") { float v = uf(rng); std::memcpy(p, &v, 4); }
    else if (t == "float64") { double v = uf(rng); std::memcpy(p, &v, 8); }
    else if (t == "float16") { uint16_t v = atc::floatToHalf(uf(rng)); std::memcpy(p, &v, 2); }
    else if (t == "bfloat16") { float v = uf(rng); uint32_t x; std::memcpy(&x, &v, 4); uint16_t h = (uint16_t)(x >> 16); std::memcpy(p, &h, 2); }
    else if (t == "bool" || t == "int2") { *p = (uint8_t)(ui(rng) & 1); }
    else { int64_t v = ui(rng); std::memcpy(p, &v, es); }  // little-endian integer of width es
  }
  return buf;
}

// pre: the file already read (gear selection from .npy shapes), or null.
std::vector<uint8_t> loadInput(const std::string& path, const TensorDesc& d, size_t index, atc::rt::NpyArray* pre) {
  std::string where = "input " + std::to_string(index) + " (" + d.name + ")";
  std::string expect = "expected " + d.dtype + d.shapeString() + " (" + std::to_string(d.bytes) + " bytes)";
  if (atc::endsWith(path, ".npy")) {
    atc::rt::NpyArray a = pre ? std::move(*pre) : atc::rt::readNpy(path);
    const std::string st = atc::rt::npyStorageDtype(d.dtype);
    if (st != d.dtype) expect += "; as " + st + " in a .npy file";
    if ((a.dtype != d.dtype && a.dtype != st) || a.shape != d.shape) {
      std::string got = "[";
      for (size_t i = 0; i < a.shape.size(); ++i) got += (i ? "," : "") + std::to_string(a.shape[i]);
      got += "]";
      throw RuntimeError(where + ": " + path + " holds " + a.dtype + got + ", " + expect);
    }
    const std::string bad = atc::rt::checkNpyStorageValues(d.dtype, a.data.data(), a.data.size());
    if (!bad.empty()) throw RuntimeError(where + ": " + path + ": " + bad);
    return std::move(a.data);
  }
  std::string s;  // a raw binary file of exactly the input's size; regular files only
  std::string err = atc::readFileBounded(path, d.bytes, &s);
  if (!err.empty()) throw RuntimeError(where + ": cannot open " + path + ": " + err + "; " + expect);
  if (s.size() != d.bytes)
    throw RuntimeError(where + ": " + path + " has " + std::to_string(s.size()) + " bytes, " + expect);
  return std::vector<uint8_t>(s.begin(), s.end());
}


double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  double idx = p * (double)(v.size() - 1);
  size_t lo = (size_t)std::floor(idx), hi = (size_t)std::ceil(idx);
  return v[lo] + (v[hi] - v[lo]) * (idx - (double)lo);
}

// omrun's debugging flags (docs/debugging.md): the data dump and the profiler, observing the
// model's steps through one StepObserverList.
struct DebugFlags {
  std::string dumpDir, dumpMode, dumpStep, dumpLayer, dumpConfig, profilePath;
  int exceptionDump = 1;
};

void addDebugOptions(CLI::App& app, DebugFlags& f) {
  app.add_option("--dump", f.dumpDir,
                 "data dump (enable_dump + dump_path): write each step's tensors as .npy under DIR/<model>/<run>/ "
                 "with DIR/<model>/dump_map.json (docs/debugging.md)");
  app.add_option("--profile", f.profilePath,
                 "per-op profile of the timed --loop runs: a Chrome trace JSON (opens in Perfetto) with a summary "
                 "sorted by total time; the top ops are printed too");
  app.add_option("--enable_exception_dump", f.exceptionDump,
                 "1 (default): a kernel that faults or fails a check built into the model stops the run naming the op, "
                 "and its inputs, outputs and workspace are dumped under $ASCEND_WORK_PATH/extra-info/data-dump "
                 "(./extra-info/data-dump when unset); 0: off")
      ->check(CLI::IsMember({0, 1}));
  app.add_option("--dump_mode", f.dumpMode, "output (default), input or all");
  app.add_option("--dump_step", f.dumpStep, "runs to dump, counted over --warmup and --loop from 0: \"0|5|10-20\" (default: all)");
  app.add_option("--dump_layer", f.dumpLayer, "space-separated node names to dump (a fused kernel matches any node it absorbed)");
  app.add_option("--dump_config", f.dumpConfig,
                 "an ATC-style dump config JSON ({\"dump\": {\"dump_path\", \"dump_mode\", \"dump_step\", \"dump_list\"}}); "
                 "the --dump* flags override it");
}

struct Debugging {
  std::unique_ptr<atc::rt::DataDump> dump;
  std::unique_ptr<atc::rt::StepProfiler> profiler;
  atc::rt::StepObserverList observers;
};

Debugging setUpDebugging(const CLI::App& app, Model& m, int warmup, const DebugFlags& f) {
  const std::string &dumpDir = f.dumpDir, &dumpMode = f.dumpMode, &dumpStep = f.dumpStep, &dumpLayer = f.dumpLayer,
                    &dumpConfig = f.dumpConfig, &profilePath = f.profilePath;
  Debugging d;
  if (!dumpDir.empty() || !dumpConfig.empty() || app.count("--dump_mode") || app.count("--dump_step") ||
      app.count("--dump_layer")) {
    atc::rt::DumpConfig dc;
    if (!dumpConfig.empty()) atc::rt::readDumpConfigJson(dumpConfig, &dc);
    if (app.count("--dump")) dc.dir = dumpDir;
    if (app.count("--dump_mode")) dc.mode = dumpMode;
    if (app.count("--dump_step")) dc.runs = dumpStep;
    if (app.count("--dump_layer")) dc.layers = atc::splitList(dumpLayer, " ");
    if (dc.dir.empty()) throw RuntimeError("the dump options need a dump path: --dump=DIR (or dump_path in --dump_config)");
    d.dump.reset(new atc::rt::DataDump(m, dc));
    for (const auto& l : d.dump->unmatchedLayers())
      std::fprintf(stderr, "[omrun] warning: dump layer %s is not a node of the model\n", l.c_str());
    d.observers.add(d.dump.get());
  }
  if (!profilePath.empty()) {
    d.profiler.reset(new atc::rt::StepProfiler(m, warmup));
    d.observers.add(d.profiler.get());
  }
  if (f.exceptionDump) {
    const char* work = std::getenv("ASCEND_WORK_PATH");
    m.setExceptionDump(std::string(work && *work ? work : ".") + "/extra-info/data-dump");
  }
  if (d.dump && d.profiler)
    std::fprintf(stderr, "[omrun] warning: --profile with --dump: the run times include writing the dump\n");
  return d;
}

// DIR/output_<i>.npy (or .bin), the folder created when missing, and DIR/outputs.json: per
// output its index, name, dtype, shape and file (a sequence output y is y[0], y[1], ...:
// docs/frontend-onnx.md, "Sequences and optionals").
void writeOutputs(const std::string& outDir, const std::string& outfmt, const Model& m) {
  const std::vector<TensorDesc>& outs = m.lastOutputs();
  std::string err = atc::makeDirs(outDir);
  if (!err.empty()) throw RuntimeError("cannot create output folder " + outDir + ": " + err);
  // every tensor written: a plain output, or each tensor of a sequence made at run time
  std::vector<atc::rt::StepTensor> files;
  std::vector<std::string> names;
  nlohmann::json index = nlohmann::json::array();
  for (size_t i = 0; i < outs.size(); ++i) {
    std::vector<atc::rt::StepTensor> ts = {{outs[i], m.outputData(i)}};
    if (outs[i].sequence) ts = m.sequenceOutput(i);
    for (size_t k = 0; k < ts.size(); ++k) {
      std::string base = "output_" + std::to_string(i) + (outs[i].sequence ? "_" + std::to_string(k) : "");
      std::string file = base + (outfmt == "BIN" ? ".bin" : ".npy");
      index.push_back({{"index", i}, {"name", ts[k].desc.name}, {"dtype", ts[k].desc.dtype},
                       {"shape", ts[k].desc.shape}, {"file", file}});
      files.push_back(ts[k]);
      names.push_back(outDir + "/" + file);
    }
  }
  std::ofstream idx(outDir + "/outputs.json");
  idx << index.dump(1) << "\n";
  if (!idx) throw RuntimeError("cannot write " + outDir + "/outputs.json");
  for (size_t i = 0; i < files.size(); ++i) {
    const TensorDesc& d = files[i].desc;
    if (outfmt == "BIN") {
      std::ofstream f(names[i], std::ios::binary);
      f.write((const char*)files[i].data, (std::streamsize)d.bytes);
      if (!f) throw RuntimeError("cannot write " + names[i]);
    } else {
      atc::rt::writeNpy(names[i], d.dtype, d.shape, files[i].data, d.bytes);
    }
  }
}

// ais_bench's gear flags (docs/dynamic-shapes.md).
struct GearFlags {
  std::string batch, hw, dims, shape;
};

std::vector<int64_t> parseIntList(const std::string& text, const std::string& flag) {
  std::vector<int64_t> v;
  for (auto& t : atc::split(atc::trim(text), ',')) {
    int64_t x = 0;
    if (!atc::parseInt64(atc::trim(t), &x) || x < 0)
      throw RuntimeError(flag + "=" + text + ": [" + t + "] is not a non-negative integer");
    v.push_back(x);
  }
  return v;
}

// "name:d0,d1;name2:..." -> one shape per model input (inputs not named keep gear 0's shape,
// which every gear shares for a static input).
std::vector<std::vector<int64_t>> parseNamedShapes(const std::string& text, const std::string& flag, const Model& m) {
  const auto& ins = m.gears()[0].inputs;
  std::vector<std::vector<int64_t>> shapes;
  for (auto& d : ins) shapes.push_back(d.shape);
  for (auto& item : atc::split(atc::trim(text), ';')) {
    if (atc::trim(item).empty()) continue;
    size_t colon = item.rfind(':');
    if (colon == std::string::npos) throw RuntimeError(flag + "=" + text + ": [" + item + "] is not name:d0,d1,...");
    std::string name = atc::trim(item.substr(0, colon));
    size_t k = 0;
    while (k < ins.size() && ins[k].name != name) ++k;
    if (k == ins.size()) throw RuntimeError(flag + "=" + text + ": the model has no input named " + name);
    shapes[k] = parseIntList(item.substr(colon + 1), flag);
  }
  return shapes;
}

void addGearOptions(CLI::App& app, GearFlags& f) {
  app.add_option("--dymBatch", f.batch, "batch size: the gear of a model built with --dynamic_batch_size");
  app.add_option("--dymHW", f.hw, "H,W: the gear of a model built with --dynamic_image_size");
  app.add_option("--dymDims", f.dims, "\"name:d0,d1;...\": input shapes of one gear of a model built with --dynamic_dims");
  app.add_option("--dymShape", f.shape, "\"name:d0,d1;...\": input shapes; chooses the gear of a dynamic model that has them");
}

// Chooses the gear from the flags, else from the .npy inputs' shapes, else from the raw
// inputs' sizes when exactly one gear fits them. pre[i]: file i read when it is an .npy.
void chooseGear(Model& m, const GearFlags& f, const std::vector<std::string>& files,
                std::vector<std::unique_ptr<atc::rt::NpyArray>>& pre) {
  int given = !f.batch.empty() + !f.hw.empty() + !f.dims.empty() + !f.shape.empty();
  if (given > 1) throw RuntimeError("--dymBatch, --dymHW, --dymDims and --dymShape are mutually exclusive");
  if (given == 1 && m.dynamicKind().empty())
    throw RuntimeError("the model is static (built without dynamic gears); remove --dymBatch/--dymHW/--dymDims/--dymShape. "
                       "It accepts " + m.acceptedShapes());
  if (!f.batch.empty()) {
    if (m.dynamicKind() != "batch")
      throw RuntimeError("--dymBatch needs a model built with --dynamic_batch_size; this one has " + m.dynamicKind() +
                         " gears: " + m.acceptedShapes());
    m.setGear(m.findGearByDims(parseIntList(f.batch, "--dymBatch")));
  } else if (!f.hw.empty()) {
    if (m.dynamicKind() != "image_size")
      throw RuntimeError("--dymHW needs a model built with --dynamic_image_size; this one has " + m.dynamicKind() +
                         " gears: " + m.acceptedShapes());
    m.setGear(m.findGearByDims(parseIntList(f.hw, "--dymHW")));
  } else if (!f.dims.empty()) {
    m.setGear(m.findGear(parseNamedShapes(f.dims, "--dymDims", m)));
  } else if (!f.shape.empty()) {
    m.setGear(m.findGear(parseNamedShapes(f.shape, "--dymShape", m)));
  } else if (!m.dynamicKind().empty()) {
    if (files.empty())
      throw RuntimeError("the model has " + m.dynamicKind() + " gears; choose one with --dymBatch, --dymHW or --dymDims, "
                         "or give --input files of one gear's shapes. It accepts " + m.acceptedShapes());
    size_t n = m.gears()[0].inputs.size();
    if (files.size() != n) return;  // the count check names the inputs
    bool allNpy = true;
    for (auto& p : files) allNpy = allNpy && atc::endsWith(p, ".npy");
    if (allNpy) {
      std::vector<std::vector<int64_t>> shapes;
      for (size_t i = 0; i < n; ++i) {
        pre[i].reset(new atc::rt::NpyArray(atc::rt::readNpy(files[i])));
        shapes.push_back(pre[i]->shape);
      }
      m.setGear(m.findGear(shapes));
      return;
    }
    std::vector<size_t> fits;  // raw files: the gears whose byte counts they match
    std::vector<uint64_t> sizes;
    for (auto& p : files) {
      struct stat st;
      if (::stat(p.c_str(), &st) != 0) throw RuntimeError("cannot open input " + p + ": " + std::strerror(errno));
      sizes.push_back((uint64_t)st.st_size);
    }
    for (size_t g = 0; g < m.gears().size(); ++g) {
      bool ok = true;
      for (size_t i = 0; i < n && ok; ++i) ok = sizes[i] == m.gears()[g].inputs[i].bytes;
      if (ok) fits.push_back(g);
    }
    if (fits.size() != 1)  // (an .npy among raw files counts its header: give all as .npy)
      throw RuntimeError(std::string("the input files' sizes ") + (fits.empty() ? "fit no gear" : "fit several gears") +
                         " of the model; choose one with --dymBatch, --dymHW or --dymDims. It accepts " + m.acceptedShapes());
    m.setGear(fits[0]);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"omrun: run an offline model (.om) built by atc"};
  std::string modelPath, inputList, outDir, summaryPath, outfmt = "NPY", verifyKey;
  int loop = 1, warmup = 0, threads = 0, device = 0;
  app.add_option("--model,-m", modelPath, "the .om model")->required();
  app.add_option("--input,-i", inputList, "comma-separated .npy or raw .bin files, in model-input order (random data if absent)");
  app.add_option("--output,-o", outDir,
                 "folder for output_<i>.npy and outputs.json, their names and shapes (created if missing)");
  app.add_option("--outfmt", outfmt, "output format: NPY (default) or BIN")->check(CLI::IsMember({"NPY", "BIN"}));
  app.add_option("--loop", loop, "timed runs (default 1)")->check(CLI::Range(1, 1 << 30));
  app.add_option("--warmup", warmup, "untimed runs before timing (default 0)")->check(CLI::Range(0, 1 << 30));
  app.add_option("--threads", threads, "kernel threads (default: number of cores)")->check(CLI::Range(0, 4096));
  app.add_option("--summary", summaryPath, "write a JSON latency summary to this file");
  app.add_option("--device", device, "accepted for ais_bench compatibility (ignored)");
  app.add_option("--verify_key", verifyKey,
                 "Ed25519 public key (PEM): run the model only if atc --sign_key signed it with the matching key");
  GearFlags gearFlags;
  addGearOptions(app, gearFlags);
  DebugFlags dbgFlags;
  addDebugOptions(app, dbgFlags);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  }

  try {
    atc::rt::LoadOptions lo;
    lo.threads = threads;
    lo.verifyKey = verifyKey;
    if (app.count("--verify_key") && verifyKey.empty()) throw RuntimeError("--verify_key is empty: give the path of a PEM public key");
    std::unique_ptr<Model> m = Model::load(modelPath, lo);
    std::vector<std::string> files = atc::splitList(inputList, ",");
    std::vector<std::unique_ptr<atc::rt::NpyArray>> pre(files.size());
    const std::pair<const char*, const std::string*> gearOpts[] = {
        {"--dymBatch", &gearFlags.batch}, {"--dymHW", &gearFlags.hw}, {"--dymDims", &gearFlags.dims}, {"--dymShape", &gearFlags.shape}};
    for (auto& [flag, value] : gearOpts)
      if (app.count(flag) && atc::trim(*value).empty()) throw RuntimeError(std::string(flag) + " is empty");
    chooseGear(*m, gearFlags, files, pre);
    const auto& ins = m->inputs();
    const auto& outs = m->outputs();
    if (!inputList.empty() && files.size() != ins.size()) {
      std::string exp;
      for (size_t i = 0; i < ins.size(); ++i)
        exp += (i ? ", " : "") + ins[i].name + ": " + ins[i].dtype + ins[i].shapeString();
      throw RuntimeError("the model has " + std::to_string(ins.size()) + " input(s) (" + exp + "), got " +
                         std::to_string(files.size()) + " file(s) in --input");
    }
    if (!m->dynamicKind().empty()) {
      std::printf("[omrun] gear %zu (%s %s)\n", m->gear(), m->dynamicKind().c_str(),
                  atc::joinInts(m->gears()[m->gear()].dims).c_str());
    }
    std::vector<std::vector<uint8_t>> inData;
    std::mt19937 rng(1234);
    for (size_t i = 0; i < ins.size(); ++i)
      inData.push_back(files.empty() ? randomInput(ins[i], rng) : loadInput(files[i], ins[i], i, pre[i].get()));
    std::vector<const void*> inPtr;
    std::vector<void*> outPtr(outs.size(), nullptr);  // the outputs are read where the model keeps them
    for (auto& d : inData) inPtr.push_back(d.data());

    Debugging dbg = setUpDebugging(app, *m, warmup, dbgFlags);
    std::unique_ptr<atc::rt::DataDump>& dump = dbg.dump;
    std::unique_ptr<atc::rt::StepProfiler>& profiler = dbg.profiler;
    if (!dbg.observers.empty()) m->setStepObserver(&dbg.observers);
    for (int i = 0; i < warmup; ++i) m->run(inPtr, outPtr);
    std::vector<double> lat;
    for (int i = 0; i < loop; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      m->run(inPtr, outPtr);
      lat.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }

    m->setStepObserver(nullptr);
    if (profiler) {
      profiler->writeTrace(dbgFlags.profilePath);
      std::printf("[omrun] profile of %lld run(s): %s\n%s", (long long)profiler->runsRecorded(), dbgFlags.profilePath.c_str(),
                  profiler->summaryTable(15).c_str());
    }
    if (dump) {
      std::string map = dump->finish();
      std::printf("[omrun] dump: %zu file(s), index %s\n", dump->filesWritten(), map.c_str());
    }
    if (!outDir.empty()) writeOutputs(outDir, outfmt, *m);
    double mn = *std::min_element(lat.begin(), lat.end());
    double mean = 0;
    for (double x : lat) mean += x;
    mean /= (double)lat.size();
    double med = percentile(lat, 0.5), p99 = percentile(lat, 0.99);
    if (!summaryPath.empty()) {
      nlohmann::json j;
      j["latency_ms"] = {{"min", mn}, {"median", med}, {"mean", mean}, {"p99", p99}};
      j["loop"] = loop;
      j["warmup"] = warmup;
      j["threads"] = m->threads();
      j["model"] = modelPath;
      std::ofstream f(summaryPath);
      f << j.dump(4) << "\n";
      if (!f) throw RuntimeError("cannot write " + summaryPath);
    }
    std::printf("[omrun] model %s: %zu input(s), %zu output(s), threads %d, loop %d: latency ms min %.4f median %.4f mean %.4f p99 %.4f\n",
                modelPath.c_str(), ins.size(), outs.size(), m->threads(), loop, mn, med, mean, p99);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[omrun] error: %s\n", e.what());
    return 1;
  }
}
