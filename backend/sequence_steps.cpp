// See sequence_steps.h.
#include "backend/sequence_steps.h"

#include "support/diagnostics.h"

namespace atc {

nlohmann::json sequenceControlStep(const LoweredNode& L, BufferPlan& bp) {
  const Node& n = *L.node;
  static const std::map<std::string, std::string> kinds = {{"RuntimeSequenceMake", "seq_make"},
                                                           {"RuntimeSequenceInsert", "seq_insert"},
                                                           {"RuntimeSequenceLength", "seq_length"},
                                                           {"RuntimeSequenceOutput", "seq_output"},
                                                           {"RuntimeSequenceAt", "seq_at"},
                                                           {"RuntimeSequenceErase", "seq_erase"},
                                                           {"RuntimeSequenceConcat", "seq_concat"},
                                                           {"RuntimeSequenceSplit", "seq_split"}};
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
  if (n.type == "RuntimeSequenceConcat" || n.type == "RuntimeSequenceSplit") s["axis"] = n.attrInt("axis", 0);
  if (n.type == "RuntimeSequenceConcat") s["new_axis"] = n.attrInt("new_axis", 0) != 0;
  if (n.type == "RuntimeSequenceSplit") s["keepdims"] = n.attrInt("keepdims", 1) != 0;
  // a run-sized output taken out of a sequence: this step sizes it
  if ((n.type == "RuntimeSequenceAt" || n.type == "RuntimeSequenceConcat") && isRunSized(n.outputs[0]))
    s["sizes"] = std::vector<size_t>{n.inputs.size()};
  return s;
}

}  // namespace atc
