#include "runtime/step_checks.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "runtime/data_dump.h"
#include "runtime/npy.h"
#include "support/file_io.h"

namespace atc {
namespace rt {
namespace {

// Index of the first byte in [p, p+n) that is not the red-zone pattern, or -1.
int64_t firstDirty(const uint8_t* p, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i)
    if (p[i] != kRedzoneByte) return (int64_t)i;
  return -1;
}

std::string argName(const StepInfo& s, size_t a) {
  if (a < s.inputs.size()) return "input " + std::to_string(a) + " (" + s.inputs[a].desc.name + ")";
  size_t o = a - s.inputs.size();
  if (o < s.outputs.size()) return "output " + std::to_string(o) + " (" + s.outputs[o].desc.name + ")";
  return "workspace";
}

}  // namespace

std::string describeOutOfBounds(const StepInfo& s, int64_t slot, bool store, int64_t off, int64_t bytes, int64_t size) {
  std::string what = std::string(store ? "stored " : "loaded ") + std::to_string(bytes) + " bytes ";
  if (slot == -2) return what + "outside its argument table (at byte " + std::to_string(off) + ")";
  if (slot < 0) {
    char addr[32];
    std::snprintf(addr, sizeof addr, "%#llx", (unsigned long long)off);
    return what + "at " + addr + ", outside every buffer of the op";
  }
  return what + "at byte " + std::to_string(off) + " of its " + argName(s, (size_t)slot) + ", a buffer of " +
         std::to_string(size) + " bytes";
}

namespace {

// Position of the first non-finite element of a float tensor, or -1; *what: "inf" / "NaN".
int64_t firstNonFinite(const StepTensor& t, const char** what) {
  const std::string& d = t.desc.dtype;
  uint64_t n = 0;
  auto half = [&](uint16_t expMask, uint16_t mantMask) -> int64_t {
    const uint16_t* p = (const uint16_t*)t.data;
    for (uint64_t i = 0; i < n; ++i)
      if ((p[i] & expMask) == expMask) return *what = (p[i] & mantMask) ? "NaN" : "inf", (int64_t)i;
    return -1;
  };
  if (d == "float32") {
    n = t.desc.bytes / 4;
    const float* p = (const float*)t.data;
    for (uint64_t i = 0; i < n; ++i)
      if (!std::isfinite(p[i])) return *what = std::isnan(p[i]) ? "NaN" : "inf", (int64_t)i;
  } else if (d == "float64") {
    n = t.desc.bytes / 8;
    const double* p = (const double*)t.data;
    for (uint64_t i = 0; i < n; ++i)
      if (!std::isfinite(p[i])) return *what = std::isnan(p[i]) ? "NaN" : "inf", (int64_t)i;
  } else if (d == "float16") {
    n = t.desc.bytes / 2;
    return half(0x7C00, 0x03FF);
  } else if (d == "bfloat16") {
    n = t.desc.bytes / 2;
    return half(0x7F80, 0x007F);
  }
  return -1;
}

}  // namespace

void fillRedzones(const std::vector<StepSpan>& spans, uint64_t rz) {
  for (const StepSpan& sp : spans) {
    if (!sp.data) continue;
    std::memset(sp.data - rz, kRedzoneByte, rz);
    std::memset(sp.data + sp.size, kRedzoneByte, rz);
  }
}

std::string checkRedzones(const StepInfo& s, const std::vector<StepSpan>& spans, uint64_t rz) {
  for (size_t a = 0; a < spans.size(); ++a) {
    const StepSpan& sp = spans[a];
    if (!sp.data) continue;
    int64_t after = firstDirty(sp.data + sp.size, rz);
    if (after >= 0)
      return "wrote past the end of its " + argName(s, a) + " of " + std::to_string(sp.size) + " bytes (byte " +
             std::to_string(sp.size + (uint64_t)after) + " changed)";
    for (uint64_t i = 1; i <= rz; ++i)  // the nearest changed byte first
      if (sp.data[-(int64_t)i] != kRedzoneByte)
        return "wrote before the start of its " + argName(s, a) + " (byte -" + std::to_string(i) + " changed)";
  }
  return "";
}

std::string checkFinite(const StepInfo& s) {
  for (size_t k = 0; k < s.outputs.size(); ++k) {
    const StepTensor& t = s.outputs[k];
    if (!t.data) continue;
    const char* what = "";
    int64_t at = firstNonFinite(t, &what);
    if (at < 0) continue;
    std::string inputs = "its inputs are finite";
    for (const StepTensor& in : s.inputs) {
      const char* w2 = "";
      if (in.data && firstNonFinite(in, &w2) >= 0) inputs = "its input " + in.desc.name + " already holds " + w2;
    }
    return "status check: output " + std::to_string(k) + " (" + t.desc.name + ", " + t.desc.dtype + ") holds " + what +
           " at element " + std::to_string(at) + "; " + inputs;
  }
  return "";
}

std::string writeExceptionDump(const std::string& dir, const std::string& model, const StepInfo& s,
                               const StepSpan& workspace, const std::string& reason, std::string* err) {
  std::string folder = dir + "/" + dumpFileStem(model.empty() ? "model" : model) + "/" + std::to_string(s.index) + "_" +
                       dumpFileStem(s.node.empty() ? "step" : s.node);
  try {
    std::string e = makeDirs(folder);
    if (!e.empty()) throw RuntimeError(e);
    nlohmann::json j;
    j["model"] = model;
    j["step"] = s.index;
    j["node"] = s.node;
    j["type"] = s.type;
    j["kernel"] = s.kernel;
    j["fused_from"] = s.fusedFrom.empty() ? std::vector<std::string>{s.node} : s.fusedFrom;
    j["reason"] = reason;
    for (int in = 1; in >= 0; --in) {
      const auto& ts = in ? s.inputs : s.outputs;
      nlohmann::json arr = nlohmann::json::array();
      for (size_t k = 0; k < ts.size(); ++k) {
        const StepTensor& t = ts[k];
        nlohmann::json x = {{"name", t.desc.name}, {"dtype", t.desc.dtype}, {"shape", t.desc.shape}};
        if (t.data && !npyDescr(t.desc.dtype).empty()) {
          std::string f = std::string(in ? "input." : "output.") + std::to_string(k) + ".npy";
          writeNpy(folder + "/" + f, t.desc.dtype, t.desc.shape, t.data, t.desc.bytes);
          x["file"] = f;
        }
        arr.push_back(x);
      }
      j[in ? "inputs" : "outputs"] = arr;
    }
    if (workspace.data && workspace.size) {
      std::ofstream w(folder + "/workspace.bin", std::ios::binary);
      w.write((const char*)workspace.data, (std::streamsize)workspace.size);
      if (!w) throw RuntimeError("cannot write " + folder + "/workspace.bin");
      j["workspace"] = {{"file", "workspace.bin"}, {"bytes", workspace.size}};
    }
    std::ofstream f(folder + "/exception_info.json");
    f << j.dump(2) << "\n";
    if (!f) throw RuntimeError("cannot write " + folder + "/exception_info.json");
  } catch (const std::exception& e) {
    *err = e.what();
    return "";
  }
  return folder;
}

}  // namespace rt
}  // namespace atc
