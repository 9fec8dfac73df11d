#include "atc/fusion_switch.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "atc/console.h"
#include "support/diagnostics.h"
#include "support/file_io.h"
#include "support/strings.h"
#include "passes/pass_registry.h"

namespace atc {

namespace {

const char* kSolution =
    "Write the file as {\"Switch\":{\"GraphFusion\":{\"ALL\":\"off\",\"PassName\":\"on\"},"
    "\"UBFusion\":{...}}} or as lines PassName:off, with values on or off only.";

[[noreturn]] void bad(const std::string& path, const std::string& reason) {
  invalidParamCode("E10003", "fusion_switch_file", path, reason, kSolution);
}


bool parseOnOff(const std::string& v, const std::string& path, const std::string& name) {
  if (v == "on") return true;
  if (v == "off") return false;
  bad(path, "the value [" + v + "] of [" + name + "] is neither on nor off.");
}

void addEntry(FusionSwitches& sw, const std::string& section, const std::string& name, bool on,
              const std::string& path) {
  if (name.empty()) bad(path, "a pass name is empty.");
  if (name == "ALL") {
    if (sw.allValue.count(section)) bad(path, "ALL is given twice in " + section + ".");
    sw.allValue[section] = on ? "on" : "off";
    return;
  }
  auto& m = sw.exact[section];
  if (m.count(name)) bad(path, "pass [" + name + "] is given twice in " + section + ".");
  m[name] = on;
}

FusionSwitches parseJson(const std::string& text, const std::string& path) {
  // Duplicate keys are errors: track the keys of every open object.
  std::vector<std::set<std::string>> keys;
  std::string dup;
  nlohmann::json::parser_callback_t cb = [&](int, nlohmann::json::parse_event_t ev, nlohmann::json& j) {
    using E = nlohmann::json::parse_event_t;
    if (ev == E::object_start) keys.emplace_back();
    else if (ev == E::object_end && !keys.empty()) keys.pop_back();
    else if (ev == E::key && !keys.empty()) {
      std::string k = j.get<std::string>();
      if (!keys.back().insert(k).second && dup.empty()) dup = k;
    }
    return true;
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text, cb);
  } catch (const nlohmann::json::exception& e) {
    bad(path, std::string("the JSON is malformed (") + e.what() + ").");
  }
  if (!dup.empty()) bad(path, "key [" + dup + "] is given twice.");
  if (!j.is_object() || !j.contains("Switch") || !j["Switch"].is_object())
    bad(path, "the JSON has no \"Switch\" object.");
  FusionSwitches sw;
  for (auto& [sec, body] : j["Switch"].items()) {
    if (sec != "GraphFusion" && sec != "UBFusion")
      bad(path, "section [" + sec + "] is unknown (GraphFusion or UBFusion).");
    if (!body.is_object()) bad(path, "section [" + sec + "] is not an object.");
    for (auto& [name, v] : body.items()) {
      if (!v.is_string()) bad(path, "the value of [" + name + "] is not a string (on or off).");
      addEntry(sw, sec, trim(name), parseOnOff(trim(v.get<std::string>()), path, name), path);
    }
  }
  return sw;
}

FusionSwitches parseLines(const std::string& text, const std::string& path) {
  FusionSwitches sw;
  std::istringstream is(text);
  std::string line;
  int no = 0;
  while (std::getline(is, line)) {
    ++no;
    size_t hash = line.find('#');
    if (hash != std::string::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos)
      bad(path, "line " + std::to_string(no) + " [" + line + "] is not PassName:on|off.");
    std::string name = trim(line.substr(0, colon));
    bool on = parseOnOff(trim(line.substr(colon + 1)), path, name);
    // The line form applies to both groups: one entry, recorded once.
    addEntry(sw, "Lines", name, on, path);
  }
  if (sw.allValue.count("Lines")) {
    sw.allValue["GraphFusion"] = sw.allValue["UBFusion"] = sw.allValue["Lines"];
    sw.allValue.erase("Lines");
  }
  for (auto& [name, on] : sw.exact["Lines"]) sw.exact["GraphFusion"][name] = sw.exact["UBFusion"][name] = on;
  sw.exact.erase("Lines");
  return sw;
}

const char* sectionOf(const PassInfo& p) {
  std::string g = p.group;
  if (g == "graph_fusion") return "GraphFusion";
  if (g == "ub_fusion") return "UBFusion";
  return nullptr;
}

void warn(const std::string& msg) {
  // Shown whatever --log says: the user's switch does nothing.
  if (logEnabled(LogLevel::Warning)) logWarning(msg);
  else std::fprintf(stderr, "[WARNING] %s\n", msg.c_str());
}

}  // namespace

FusionSwitches parseFusionSwitchText(const std::string& text, const std::string& path) {
  std::string t = trim(text);
  FusionSwitches sw = (!t.empty() && t[0] == '{') ? parseJson(t, path) : parseLines(t, path);
  for (auto& [sec, m] : sw.exact)
    for (auto& [name, on] : m) {
      (void)on;
      const PassInfo* p = findPass(name);
      bool known = p && sectionOf(*p) != nullptr;
      if (!known && std::find(sw.unknownNames.begin(), sw.unknownNames.end(), name) == sw.unknownNames.end())
        sw.unknownNames.push_back(name);
    }
  return sw;
}

FusionSwitches loadFusionSwitchFile(const std::string& path) {
  std::string text, err = readOptionFile(path, 1u << 20, &text);
  if (!err.empty()) invalidParam("fusion_switch_file", path, err + ".", "Set --fusion_switch_file to an existing, readable file.");
  return parseFusionSwitchText(text, path);
}

void applyFusionSwitches(const FusionSwitches& sw, PassOptions& opts) {
  for (auto& name : sw.unknownNames)
    warn("fusion switch file: pass [" + name + "] is not a fusion pass of this compiler; its switch is ignored.");
  for (auto& p : allPasses()) {
    const char* sec = sectionOf(p);
    if (!sec) continue;
    int decision = -1;  // -1 default, 0 off, 1 on
    auto a = sw.allValue.find(sec);
    if (a != sw.allValue.end()) decision = a->second == "on";
    auto e = sw.exact.find(sec);
    if (e != sw.exact.end()) {
      auto it = e->second.find(p.name);
      if (it != e->second.end()) decision = it->second;
    }
    if (decision == 0) {
      if (!p.canDisable) {
        bool exact = e != sw.exact.end() && e->second.count(p.name);
        if (exact) warn(std::string("fusion switch file: pass [") + p.name + "] cannot be switched off; it stays on.");
        continue;
      }
      opts.disabledPasses.push_back(p.name);
    } else if (decision == 1 && !p.defaultOn) {
      opts.enabledPasses.push_back(p.name);
    }
  }
}

}  // namespace atc
