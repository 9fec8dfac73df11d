// ONNX If, Loop and Scan, lowered at import into ordinary IR nodes (docs/frontend-onnx.md,
// "Control flow"):
// - If with a condition that folds to a constant: the taken branch, inlined.
// - If with a run-time condition: both branches inlined and each output selected with Where
//   (if-conversion); the branches' outputs must have the same static shape and type.
// - Loop whose trip count and conditions fold to constants: unrolled, scan outputs stacked.
// - Scan (opset 8 with a batch axis and no sequence_lens, opset 9+): unrolled over the scan
//   axis, whose length is static.
// What does not fit is refused (E19010) with the reason; it needs run-time control flow.
#pragma once
#include <onnx/onnx_pb.h>

#include <functional>
#include <string>
#include <vector>

#include "frontends/common/import_eval.h"
#include "ir/graph.h"

namespace atc {
namespace onnxfe {

// Imports a body graph into the IR: its inputs bound to `inputs`, its values named under
// `prefix`, outer names resolved in the enclosing scopes. Returns its outputs' values.
using BodyImporter = std::function<std::vector<Value*>(
    const onnx::GraphProto& body, const std::vector<Value*>& inputs, const std::string& prefix)>;

// If-conversion of one output of a run-time If whose branches give a sequence or an optional
// (onnx_composite.h); returns null when both give tensors.
using BranchSelector = std::function<Value*(Value* cond, Value* thenV, Value* elseV, const std::string& name)>;
// Sequences and optionals carried by a loop that runs in the runtime (onnx_composite.h): they
// travel as run-time sequence handles (ops/control/sequence_ops.cpp).
struct CompositeCarrier {
  std::function<bool(const Value*)> is;          // a sequence or an optional
  std::function<bool(const Value*)> isOptional;  // an optional
  // The handle standing for sequence or optional v (E19010 for an optional tensor).
  std::function<Value*(Value* v, const std::string& name)> toHandle;
  // A handle as a sequence made at run time, or as an optional of one (0: holds none). from:
  // the handles whose tensors it may hold (empty: a loop body's input); loopInput: the body
  // input that a loop's final value extends (else null).
  std::function<Value*(Value* h, bool optional, const std::string& name, const std::vector<Value*>& from,
                       const Value* loopInput)>
      fromHandle;
};

// Where(cond, t, e) for one If output, refused (E19010, naming the If node `name`) unless both
// branches give the same static type; t itself when both branches give the same value.
Value* ifConvert(Graph& g, frontend::ImportEval& ev, Value* cond, Value* t, Value* e, const std::string& name,
                 const std::string& what);

// If, Loop or Scan in the default domain.
bool isControlFlowNode(const onnx::NodeProto& n);

// Largest number of nodes the bodies of a model's control flow may add in all (each Loop and
// Scan checks its iterations x body size first; the importer counts every body imported, so
// nested loops are bounded too). Unrolled iterations whose kernels differ (a folded iteration
// number) each compile: about 0.15 s per distinct kernel on one core.
constexpr int64_t kMaxUnrolledNodes = 20000;

// Lowers one control-flow node whose inputs are `ins` (null: absent); returns one value per
// output of n. `name`: the node's unique name, the prefix of everything made.
std::vector<Value*> lowerControlFlow(Graph& g, frontend::ImportEval& ev, const BodyImporter& importBody,
                                     const BranchSelector& select, const CompositeCarrier& composite,
                                     const onnx::NodeProto& n, const std::string& name,
                                     const std::vector<Value*>& ins, int64_t opset);

}  // namespace onnxfe
}  // namespace atc
