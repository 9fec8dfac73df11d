// See sequence_steps.h.
#include "backend/sequence_steps.h"

#include "support/diagnostics.h"

namespace atc {

nlohmann::json sequenceControlStep(const LoweredNode& L, BufferPlan& bp) {
  const Node& n = *L.node;
  static const std::map<std::string, std::string> kinds = {{"RuntimeSequenceMake", "seq_make"},
                                                           {"RuntimeSequenceInsert", "seq_insert"},
                                                           {"RuntimeSequenceLength", "seq_length"},
                                                           {"RuntimeSequenceOutput", "seq_output"}};
  auto kind = kinds.find(n.type);
  if (kind == kinds.end()) internalError("no sequence step for " + n.type);
  nlohmann::json s, args = nlohmann::json::array(), tensors = nlohmann::json::array();
  // per argument: its dtype, its dims (a bound when shaped by data) and where its actual dims
  // are: "shape_at" in its buffer (shaped by data), "run" (a run-sized buffer's dims slot)
  auto add = [&](const Value* v, bool input) {
    if (!v) {
      args.push_back(nullptr);
      tensors.push_back(nullptr);
      return;
    }
    args.push_back(bp.regionOf(v, input));
    nlohmann::json t;
    t["dtype"] = dtypeName(v->type.dtype);
    t["dtype_code"] = (int)v->type.dtype;
    t["dims"] = v->type.shape;
    if (isRunSized(v)) t["run"] = true;
    else if (v->shapeFromData) t["shape_at"] = dataShapeOffset(v->type);
    tensors.push_back(t);
  };
  for (const Value* in : n.inputs) add(in, true);
  for (const Value* o : n.outputs) add(o, false);
  s["control"] = kind->second;
  s["node"] = n.name;
  s["type"] = n.type;
  s["args"] = args;
  s["tensors"] = tensors;
  if (n.type == "RuntimeSequenceOutput") s["allow_none"] = n.attrInt("allow_none", 0) != 0;
  return s;
}

}  // namespace atc
