// See loop_steps.h.
#include "backend/loop_steps.h"

#include "support/diagnostics.h"

namespace atc {

nlohmann::json loopControlStep(const LoweredNode& L, BufferPlan& bp) {
  const Node& n = *L.node;
  nlohmann::json s, args = nlohmann::json::array(), bytes = nlohmann::json::array();
  auto add = [&](const Value* v, bool input) {
    args.push_back(v ? nlohmann::json(bp.regionOf(v, input)) : nlohmann::json(nullptr));
    bytes.push_back(v && !isRunSized(v) ? std::max<int64_t>(v->type.byteSize(), 0) : 0);
  };
  for (const Value* in : n.inputs) add(in, true);
  for (const Value* o : n.outputs) add(o, false);
  const bool begin = n.type == "LoopBegin";
  const int64_t carried = n.attrInt("_carried", 0);
  s["control"] = begin ? "loop_begin" : "loop_end";
  s["node"] = n.name;
  s["type"] = n.type;
  s["carried"] = carried;
  if (!begin) {  // the scan outputs: run-sized, [iterations, per-iteration dims...]
    nlohmann::json sizes = nlohmann::json::array(), dims = nlohmann::json::array();
    nlohmann::json carriedDims = nlohmann::json::array(), shapeAt = nlohmann::json::array();
    for (size_t k = (size_t)carried; k < n.outputs.size(); ++k) {
      const Value* scan = n.inputs[k + 2];
      sizes.push_back(n.inputs.size() + k);
      dims.push_back(scan->type.shape);  // the bound of a value whose shape comes from data
      bytes[n.inputs.size() + k] = std::max<int64_t>(scan->type.byteSize(), 0);
    }
    for (int64_t k = 0; k < carried; ++k) {  // what is copied: the carried value's type
      carriedDims.push_back(n.outputs[(size_t)k]->type.shape);
      bytes[(size_t)(2 + k)] = std::max<int64_t>(n.outputs[(size_t)k]->type.byteSize(), 0);
    }
    for (const Value* in : n.inputs)  // where a value shaped by data has its actual dims
      shapeAt.push_back(in && in->shapeFromData && !isRunSized(in) ? dataShapeOffset(in->type) : -1);
    s["sizes"] = sizes;
    s["scan_dims"] = dims;
    s["carried_dims"] = carriedDims;
    s["shape_at"] = shapeAt;
  }
  s["args"] = args;
  s["bytes"] = bytes;
  return s;
}

void pairLoopSteps(nlohmann::json& steps) {
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].value("control", std::string()) != "loop_begin") continue;
    const int64_t carried = steps[i].at("carried").get<int64_t>();
    const auto& iter = steps[i].at("args")[(size_t)(2 + carried)];  // the iteration number's buffer
    size_t j = i + 1;
    while (j < steps.size() &&
           !(steps[j].value("control", std::string()) == "loop_end" && steps[j].at("args")[0] == iter))
      ++j;
    if (j == steps.size()) internalError("loop step " + std::to_string(i) + " has no end");
    steps[i]["end"] = j;
    steps[j]["begin"] = i;
  }
}

}  // namespace atc
