// ONNX Optional, OptionalHasElement and OptionalGetElement resolved at import
// (docs/frontend-onnx.md, "Sequences and optionals"): an optional is held here under a marker
// value (an unused constant), like a sequence (onnx_sequence.h), as a pair: `has`, a bool
// scalar IR value (a constant when the model decides it at compile time, computed when a
// run-time If chooses between a full and an empty optional), and `payload`, the tensor or the
// sequence marker it holds (null when no branch gives one).
#pragma once
#include <onnx/onnx_pb.h>

#include <map>
#include <string>
#include <vector>

#include "frontends/common/import_eval.h"
#include "ir/graph.h"

namespace atc {
namespace onnxfe {

bool isOptionalNode(const onnx::NodeProto& n);

struct OptionalValue {
  Value* has = nullptr;      // bool scalar
  Value* payload = nullptr;  // a tensor, a sequence marker, or null
};

class Optionals {
 public:
  // Lowers one optional node whose inputs are `ins` (null: absent); one value per output.
  std::vector<Value*> lower(Graph& g, frontend::ImportEval& ev, const onnx::NodeProto& n, const std::string& name,
                            const std::vector<Value*>& ins);
  // A marker standing for `o`.
  Value* adopt(Graph& g, const std::string& name, OptionalValue o);
  bool isOptional(const Value* v) const { return v && opts_.count(v) != 0; }
  const OptionalValue& get(const Value* v) const { return opts_.at(v); }

 private:
  std::map<const Value*, OptionalValue> opts_;
};

// A bool scalar constant.
Value* boolConstant(Graph& g, const std::string& name, bool v);

}  // namespace onnxfe
}  // namespace atc
