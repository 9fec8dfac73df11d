#include "backend/step_descs.h"

#include <map>
#include <string>

namespace atc {

using json = nlohmann::json;

namespace {

// The tensors of `in` / `out` without their shapes, and the shapes.
void splitTensors(json& tensors, json* desc, json* shapes) {
  *desc = json::array();
  *shapes = json::array();
  for (auto& t : tensors) {
    if (t.is_null()) {
      desc->push_back(nullptr);
      shapes->push_back(nullptr);
      continue;
    }
    shapes->push_back(std::move(t.at("shape")));
    t.erase("shape");
    desc->push_back(std::move(t));
  }
}

}  // namespace

json compactStepDescriptions(std::vector<json>& plans, size_t* stepsCompacted) {
  json table = json::array();
  std::map<std::string, size_t> index;  // a description's JSON text -> its entry
  size_t compacted = 0;
  for (auto& p : plans)
    for (auto& s : p.at("steps")) {
      if (s.contains("control") || !s.contains("in") || !s.contains("out")) continue;
      json d = json::object();
      for (const char* key : {"node", "type", "kernel", "fused_from"})
        if (s.contains(key)) {
          d[key] = std::move(s.at(key));
          s.erase(key);
        }
      json inShapes, outShapes;
      splitTensors(s.at("in"), &d["in"], &inShapes);
      splitTensors(s.at("out"), &d["out"], &outShapes);
      s.erase("in");
      s.erase("out");
      auto it = index.emplace(d.dump(), table.size()).first;
      if (it->second == table.size()) table.push_back(std::move(d));
      s["desc"] = it->second;
      s["in_shapes"] = std::move(inShapes);
      s["out_shapes"] = std::move(outShapes);
      ++compacted;
    }
  if (stepsCompacted) *stepsCompacted = compacted;
  return table;
}

}  // namespace atc
