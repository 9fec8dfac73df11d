#include "runtime/data_dump.h"

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "runtime/npy.h"
#include "support/file_io.h"

namespace atc {
namespace rt {
namespace {

void makeDirsOrThrow(const std::string& dir) {
  std::string err = makeDirs(dir);
  if (!err.empty()) throw RuntimeError("cannot create the dump folder " + dir + ": " + err);
}

}  // namespace

std::string dumpFileStem(const std::string& name) {
  std::string r;
  for (char ch : name) r += (std::isalnum((unsigned char)ch) || ch == '.' || ch == '-' || ch == '_') ? ch : '_';
  while (!r.empty() && r[0] == '.') r[0] = '_';
  if (r.empty()) r = "node";
  if (r.size() > 160) r = r.substr(0, 160);
  return r;
}

namespace {

int64_t parseIndex(const std::string& t, const std::string& entry) {
  if (t.empty() || t.size() > 12 || t.find_first_not_of("0123456789") != std::string::npos)
    throw RuntimeError("dump_step entry '" + entry + "' is not a run index or a range like 10-20");
  return std::stoll(t);
}

std::string tensorFile(const std::string& stem, const char* role, size_t k) {
  return stem + "." + role + "." + std::to_string(k) + ".npy";
}

}  // namespace

std::vector<std::pair<int64_t, int64_t>> parseDumpSteps(const std::string& text) {
  std::vector<std::pair<int64_t, int64_t>> r;
  if (text.empty()) return r;
  size_t start = 0;
  while (start <= text.size()) {
    size_t bar = text.find('|', start);
    std::string e = text.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
    std::string t;
    for (char ch : e)
      if (ch != ' ') t += ch;
    size_t dash = t.find('-');
    int64_t a, b;
    if (dash == std::string::npos) {
      a = b = parseIndex(t, e);
    } else {
      a = parseIndex(t.substr(0, dash), e);
      b = parseIndex(t.substr(dash + 1), e);
      if (a > b) throw RuntimeError("dump_step range '" + e + "' ends before it starts");
    }
    r.push_back({a, b});
    if (r.size() > 100) throw RuntimeError("dump_step has more than 100 entries");
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  return r;
}

void readDumpConfigJson(const std::string& path, DumpConfig* c) {
  std::string text, err = readFileBounded(path, 1 << 20, &text);
  if (!err.empty()) throw RuntimeError("cannot read the dump config " + path + ": " + err);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw RuntimeError("the dump config " + path + " is not valid JSON: " + e.what());
  }
  if (!j.is_object() || !j.contains("dump") || !j["dump"].is_object())
    throw RuntimeError("the dump config " + path + " has no \"dump\" object");
  const auto& d = j["dump"];
  auto str = [&](const char* key, std::string* out) {
    if (!d.contains(key)) return;
    if (!d[key].is_string()) throw RuntimeError("the dump config " + path + ": \"" + key + "\" must be a string");
    *out = d[key].get<std::string>();
  };
  str("dump_path", &c->dir);
  str("dump_mode", &c->mode);
  str("dump_step", &c->runs);
  if (d.contains("dump_list")) {
    if (!d["dump_list"].is_array()) throw RuntimeError("the dump config " + path + ": \"dump_list\" must be an array");
    for (const auto& m : d["dump_list"]) {
      if (!m.is_object() || !m.contains("layer")) continue;
      if (!m["layer"].is_array()) throw RuntimeError("the dump config " + path + ": \"layer\" must be an array");
      for (const auto& l : m["layer"]) {
        if (!l.is_string()) throw RuntimeError("the dump config " + path + ": layer names must be strings");
        c->layers.push_back(l.get<std::string>());
      }
    }
  }
}

DataDump::DataDump(const Model& model, DumpConfig config) : c_(std::move(config)), model_(model) {
  if (c_.dir.empty()) throw RuntimeError("the dump path is empty");
  if (c_.mode != "output" && c_.mode != "input" && c_.mode != "all")
    throw RuntimeError("dump_mode '" + c_.mode + "' is not output, input or all");
  ranges_ = parseDumpSteps(c_.runs);
  for (const auto& l : c_.layers)
    if (!l.empty()) layers_.insert(l);
  std::set<std::string> matched, stems;
  bool described = false;
  for (const auto& s : model.steps()) {
    if (!s.outputs.empty() || !s.inputs.empty()) described = true;
    std::string stem = dumpFileStem(s.node.empty() ? "step" + std::to_string(s.index) : s.node);
    if (!stems.insert(stem).second) stem += ".step" + std::to_string(s.index);
    stems.insert(stem);
    stepBase_[s.index] = stem;
    if (layers_.count(s.node)) matched.insert(s.node);
    for (const auto& f : s.fusedFrom)
      if (layers_.count(f)) matched.insert(f);
  }
  if (!described && !model.steps().empty())
    throw RuntimeError("the model was built by an atc without step descriptions; rebuild it to dump its tensors");
  for (const auto& l : layers_)
    if (!matched.count(l)) unmatched_.push_back(l);
  modelDir_ = c_.dir + "/" + dumpFileStem(model.name().empty() ? "model" : model.name());
  makeDirsOrThrow(modelDir_);
}

bool DataDump::runSelected(int64_t run) const {
  if (ranges_.empty()) return true;
  for (const auto& r : ranges_)
    if (run >= r.first && run <= r.second) return true;
  return false;
}

bool DataDump::stepSelected(const StepInfo& s) const {
  if (layers_.empty()) return true;
  if (layers_.count(s.node)) return true;
  for (const auto& f : s.fusedFrom)
    if (layers_.count(f)) return true;
  return false;
}

void DataDump::beginRun(int64_t run) {
  runActive_ = runSelected(run);
  if (!runActive_) return;
  makeDirsOrThrow(modelDir_ + "/" + std::to_string(run));
  runsDumped_.push_back(run);
}

void DataDump::dumpTensors(int64_t run, const StepInfo& s, bool inputs) {
  const auto& ts = inputs ? s.inputs : s.outputs;
  const std::string dir = modelDir_ + "/" + std::to_string(run) + "/";
  for (size_t k = 0; k < ts.size(); ++k) {
    const StepTensor& t = ts[k];
    if (!t.data || npyDescr(t.desc.dtype).empty()) continue;  // absent, undescribed or no numpy dtype
    writeNpy(dir + tensorFile(stepBase_.at(s.index), inputs ? "input" : "output", k), t.desc.dtype, t.desc.shape,
             t.data, t.desc.bytes);
    ++files_;
  }
}

void DataDump::beforeStep(int64_t run, const StepInfo& s) {
  if (runActive_ && c_.mode != "output" && stepSelected(s)) dumpTensors(run, s, true);
}

void DataDump::afterStep(int64_t run, const StepInfo& s, double) {
  if (runActive_ && c_.mode != "input" && stepSelected(s)) dumpTensors(run, s, false);
}

std::string DataDump::finish() {
  nlohmann::json j;
  j["model"] = model_.name();
  j["soc_version"] = model_.socVersion();
  j["dump_mode"] = c_.mode;
  j["runs"] = runsDumped_;
  j["layout"] = "<run>/<file>";
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : model_.steps()) {
    if (!stepSelected(s)) continue;
    nlohmann::json e;
    e["step"] = s.index;
    e["node"] = s.node;
    e["type"] = s.type;
    e["kernel"] = s.kernel;
    e["fused_from"] = s.fusedFrom.empty() ? std::vector<std::string>{s.node} : s.fusedFrom;
    for (int in = 1; in >= 0; --in) {
      if (in ? c_.mode == "output" : c_.mode == "input") continue;
      nlohmann::json arr = nlohmann::json::array();
      const auto& ts = in ? s.inputs : s.outputs;
      for (size_t k = 0; k < ts.size(); ++k) {
        const StepTensor& t = ts[k];
        nlohmann::json x;
        x["index"] = k;
        x["tensor"] = t.desc.name;
        x["dtype"] = t.desc.dtype;
        x["shape"] = t.desc.shape;
        if (t.data && !npyDescr(t.desc.dtype).empty()) {
          x["file"] = tensorFile(stepBase_.at(s.index), in ? "input" : "output", k);
        } else {
          x["file"] = nullptr;
          x["not_dumped"] = t.desc.name.empty() ? "absent input"
                            : !t.data          ? "the plan does not describe this tensor's buffer"
                                               : "numpy has no dtype " + t.desc.dtype;
        }
        arr.push_back(x);
      }
      e[in ? "inputs" : "outputs"] = arr;
    }
    steps.push_back(e);
  }
  j["steps"] = steps;
  std::string path = modelDir_ + "/dump_map.json", text = j.dump(1) + "\n";
  std::string err = writeFileAtomically(path, text.data(), text.size());
  if (!err.empty()) throw RuntimeError("cannot write " + path + ": " + err);
  return path;
}

}  // namespace rt
}  // namespace atc
