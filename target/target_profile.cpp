// Target profiles: JSON data in kernels/targets/*.json (also embedded into the binary),
// user profiles from $ATC_TARGETS_PATH, and "native" resolved from the host CPU (given by
// the caller: kernels/codegen/host_cpu.h asks LLVM).
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "support/diagnostics.h"
#include "support/file_io.h"
#include "support/strings.h"
#include "target/target_profile.h"

extern "C" {
struct AtcBuiltinTarget {
  const char* name;
  const char* json;
};
extern const AtcBuiltinTarget atc_builtin_targets[];
}

namespace atc {
namespace {

constexpr size_t kMaxProfileBytes = 16u << 20;

#ifndef ATC_TARGETS_DIR
#define ATC_TARGETS_DIR ""
#endif

std::vector<std::string> searchDirs() {
  std::vector<std::string> dirs;
  if (const char* p = std::getenv("ATC_TARGETS_PATH")) {
    std::stringstream ss(p);
    std::string d;
    while (std::getline(ss, d, ':'))
      if (!d.empty()) dirs.push_back(d);
  }
  if (std::string(ATC_TARGETS_DIR).size()) dirs.push_back(ATC_TARGETS_DIR);
  return dirs;
}

std::vector<std::string> jsonStemsIn(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > 5 && n.compare(n.size() - 5, 5, ".json") == 0) out.push_back(n.substr(0, n.size() - 5));
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

bool readFile(const std::string& path, std::string* out) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return false;  // absent: try the next folder
  std::string err = readFileBounded(path, kMaxProfileBytes, out);
  if (!err.empty())
    invalidFileContent("target profile " + path, err + ".", "Fix the profile file (see docs/targets.md).");
  return true;
}

std::string joinFeatures(const nlohmann::json& f) {
  if (f.is_string()) return f.get<std::string>();
  std::string s;
  if (f.is_array())
    for (auto& x : f) {
      if (!s.empty()) s += ",";
      s += x.get<std::string>();
    }
  return s;
}

// "bf16_path": absent, the features' path; "none"; "dpbf16" where the features give dpbf16 or amx
// (an AMX target may keep to the vector dot products); "amx" where they give amx.
std::string bf16PathOfProfile(const nlohmann::json& j, const std::string& computed, const std::string& name,
                              const std::string& where) {
  if (!j.contains("bf16_path")) return computed;
  const nlohmann::json& v = j["bf16_path"];
  const std::string s = v.is_string() ? v.get<std::string>() : "";
  if (s != "none" && s != "dpbf16" && s != "amx")
    throw AtcError("E10003", "Target profile [" + name + "] in " + where + ": \"bf16_path\" must be \"none\", \"dpbf16\" or \"amx\".",
                   "Fix the profile file (see docs/targets.md).");
  if ((s == "dpbf16" && computed == "none") || (s == "amx" && computed != "amx"))
    throw AtcError("E10003", "Target profile [" + name + "] in " + where + ": \"bf16_path\" is \"" + s +
                       "\" but its features do not enable " + (s == "amx" ? "AMX-BF16 and AVX512-BF16" : "AVX512-BF16") +
                       " with 512-bit vectors.",
                   s == "amx" ? "Add +amx-tile, +amx-bf16, +avx512bf16 (and +avx512f) to \"features\" or set \"bf16_path\" to \"dpbf16\" or \"none\"."
                              : "Add +avx512bf16 (and +avx512f) to \"features\" or set \"bf16_path\" to \"none\".");
  return s;
}

// "int8_path": absent, the features' path (vnni512 needs 512-bit vectors: with "vector_bits"
// 256 an AVX-512 target takes vnni256 where it also has AVX-VNNI); "none"; or the features'
// own path named again.
std::string int8PathOfProfile(const nlohmann::json& j, const TargetProfile& p, const std::string& name,
                              const std::string& where) {
  std::string computed = int8PathOfFeatures(p.features);
  if ((computed == "vnni512" || computed == "amx") && p.vectorBits < 512)
    computed = int8PathOfFeatures(p.features + ",-avx512vnni");
  if (!j.contains("int8_path")) return computed;
  const nlohmann::json& v = j["int8_path"];
  const std::string s = v.is_string() ? v.get<std::string>() : "";
  if (s != "none" && s != "vnni512" && s != "vnni256" && s != "avx2" && s != "amx")
    throw AtcError("E10003", "Target profile [" + name + "] in " + where +
                       ": \"int8_path\" must be \"none\", \"vnni512\", \"vnni256\", \"avx2\" or \"amx\".",
                   "Fix the profile file (see docs/targets.md).");
  if (s == "vnni512" && computed == "amx") return s;  // an AMX target may keep to vpdpbusd
  if (s == "avx2" && computed != "none") return s;     // any AVX2 target may take the widening path
  if (s == "amx" && computed != "amx")
    throw AtcError("E10003", "Target profile [" + name + "] in " + where +
                       ": \"int8_path\" is \"amx\" but its features do not enable AMX-INT8 and AVX512-VNNI with 512-bit vectors.",
                   "Add +amx-tile, +amx-int8, +avx512vnni (and +avx512f) to \"features\" or set \"int8_path\" to \"vnni512\" or \"none\".");
  if (s != "none" && s != computed)
    throw AtcError("E10003", "Target profile [" + name + "] in " + where + ": \"int8_path\" is \"" + s +
                       "\" but its features give \"" + computed + "\".",
                   s == "vnni512"   ? "Add +avx512vnni and +avx512f to \"features\" or set \"int8_path\" to \"none\"."
                   : s == "avx2" ? "Add +avx2 to \"features\" or set \"int8_path\" to \"none\"."
                                 : "Add +avxvnni to \"features\" or set \"int8_path\" to \"none\".");
  return s;
}

TargetProfile parseProfile(const std::string& name, const std::string& text, const std::string& where,
                           const HostCpu& host) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw AtcError("E10003", "Target profile [" + name + "] in " + where + " is not valid JSON: " + e.what(),
                   "Fix the profile file (see docs/targets.md).");
  }
  if (!j.is_object() || !j.contains("triple") || !j.contains("cpu"))
    throw AtcError("E10003", "Target profile [" + name + "] in " + where + " needs \"triple\" and \"cpu\".",
                   "Fix the profile file (see docs/targets.md).");
  TargetProfile p;
  p.name = name;
  p.triple = j["triple"].get<std::string>();
  p.cpu = j["cpu"].get<std::string>();
  p.features = joinFeatures(j.value("features", nlohmann::json::array()));
  p.opInfo = j.value("op_info", nlohmann::json::object());
  if (p.triple == "native") p.triple = host.triple;
  if (p.cpu == "native") {
    p.cpu = host.cpu;
    std::string extra = p.features;
    p.features = host.features;
    if (!extra.empty()) p.features += (p.features.empty() ? "" : ",") + extra;
  }
  p.vectorBits = vectorBitsOfFeatures(p.features);
  if (j.contains("vector_bits")) {
    const nlohmann::json& vb = j["vector_bits"];
    if (!vb.is_number_integer() || (vb.get<int64_t>() != 256 && vb.get<int64_t>() != 512))
      throw AtcError("E10003", "Target profile [" + name + "] in " + where + ": \"vector_bits\" must be 256 or 512.",
                     "Fix the profile file (see docs/targets.md).");
    p.vectorBits = (int)vb.get<int64_t>();
    if (p.vectorBits == 512 && vectorBitsOfFeatures(p.features) != 512)
      throw AtcError("E10003", "Target profile [" + name + "] in " + where +
                         ": \"vector_bits\" is 512 but its features do not enable AVX-512 (+avx512f).",
                     "Add +avx512f to \"features\" or set \"vector_bits\" to 256.");
  }
  p.int8Path = int8PathOfProfile(j, p, name, where);
  p.bf16Path = bf16PathOfProfile(j, p.vectorBits >= 512 ? bf16PathOfFeatures(p.features) : "none", name, where);
  return p;
}

}  // namespace

std::string int8PathOfFeatures(const std::string& features) {
  bool vnni = false, avxVnni = false, tile = false, amxInt8 = false, avx2 = false;
  for (const std::string& f : split(features, ',')) {
    if (f == "+avx2" || f == "-avx2") avx2 = f[0] == '+';
    if (f == "+avx512vnni" || f == "-avx512vnni") vnni = f[0] == '+';
    if (f == "+avxvnni" || f == "-avxvnni") avxVnni = f[0] == '+';
    if (f == "+amx-tile" || f == "-amx-tile") tile = f[0] == '+';
    if (f == "+amx-int8" || f == "-amx-int8") amxInt8 = f[0] == '+';
  }
  if (vnni && vectorBitsOfFeatures(features) == 512) return tile && amxInt8 ? "amx" : "vnni512";
  return avxVnni ? "vnni256" : avx2 ? "avx2" : "none";
}

std::string bf16PathOfFeatures(const std::string& features) {
  bool bf16 = false, tile = false, amxBf16 = false;
  for (const std::string& f : split(features, ',')) {
    if (f == "+avx512bf16" || f == "-avx512bf16") bf16 = f[0] == '+';
    if (f == "+amx-tile" || f == "-amx-tile") tile = f[0] == '+';
    if (f == "+amx-bf16" || f == "-amx-bf16") amxBf16 = f[0] == '+';
  }
  if (!bf16 || vectorBitsOfFeatures(features) != 512) return "none";
  return tile && amxBf16 ? "amx" : "dpbf16";
}

int vectorBitsOfFeatures(const std::string& features) {
  bool avx512 = false, noEvex512 = false;
  for (const std::string& f : split(features, ',')) {  // the last mention of a feature wins
    if (f == "+avx512f" || f == "-avx512f") avx512 = f[0] == '+';
    if (f == "+evex512" || f == "-evex512") noEvex512 = f[0] == '-';
  }
  return avx512 && !noEvex512 ? 512 : 256;
}

std::vector<std::string> knownTargetNames() {
  std::set<std::string> names;
  for (auto& d : searchDirs())
    for (auto& n : jsonStemsIn(d)) names.insert(n);
  for (const AtcBuiltinTarget* t = atc_builtin_targets; t->name; ++t) names.insert(t->name);
  return std::vector<std::string>(names.begin(), names.end());
}

TargetProfile loadTargetProfile(const std::string& socVersion, const HostCpu& host) {
  bool plainName = !socVersion.empty() && socVersion.find('/') == std::string::npos &&
                   socVersion.find("..") == std::string::npos;
  if (plainName) {
    for (auto& d : searchDirs()) {
      std::string text, path = d + "/" + socVersion + ".json";
      if (readFile(path, &text)) return parseProfile(socVersion, text, path, host);
    }
    for (const AtcBuiltinTarget* t = atc_builtin_targets; t->name; ++t)
      if (socVersion == t->name) return parseProfile(socVersion, t->json, "the built-in profiles", host);
  }
  invalidParam("soc_version", socVersion, "unknown target; known targets: " + join(knownTargetNames()),
               "Pass one of the known targets, or add a profile <name>.json to a folder in $ATC_TARGETS_PATH.");
}

}  // namespace atc
