// ONNX sequence ops (SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceAt,
// SequenceErase, SequenceLength, ConcatFromSequence, SplitToSequence, SequenceMap) resolved at import
// (docs/frontend-onnx.md, "Sequences"): a sequence is a compile-time list of IR values, held
// here under a marker value (an unused constant) that stands for the sequence wherever the
// model names it. Positions and split sizes must fold to constants; the tensors the model
// reads out (SequenceAt, ConcatFromSequence, SequenceLength) are ordinary IR nodes; SequenceMap
// imports its body once per element. Sequence graph inputs and outputs are one tensor per
// element (onnx_importer.cpp); a sequence read by any other op is refused (E19010).
// A sequence whose length or element shapes only a run knows (carried by a loop that runs in
// the runtime, or built by an insert at a run-time position) is a run-time handle instead
// (ops/control/sequence_ops.cpp): SequenceInsert and SequenceLength read it, a graph output
// gives its tensors; other readers are refused (E19010).
#pragma once
#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "frontends/common/import_eval.h"
#include "frontends/onnx/onnx_control_flow.h"
#include "ir/graph.h"

namespace atc {
namespace onnxfe {

bool isSequenceNode(const onnx::NodeProto& n);

class Sequences {
 public:
  // Lowers one sequence node whose inputs are `ins` (null: absent); one value per output.
  std::vector<Value*> lower(Graph& g, frontend::ImportEval& ev, const onnx::NodeProto& n, const std::string& name,
                            const std::vector<Value*>& ins);
  // SequenceMap: the body once per element of the sequence inputs (tensor inputs shared).
  std::vector<Value*> lowerMap(Graph& g, frontend::ImportEval& ev, const BodyImporter& importBody,
                               const onnx::NodeProto& n, const std::string& name, const std::vector<Value*>& ins);
  // A marker standing for the list `l` (a sequence graph input, a sequence an If selects).
  Value* adopt(Graph& g, const std::string& name, std::vector<Value*> l);
  bool isSequence(const Value* v) const { return v && (lists_.count(v) != 0 || runtime_.count(v) != 0); }
  // A sequence made at run time: the value is its handle.
  bool isRuntime(const Value* v) const { return v && runtime_.count(v) != 0; }
  Value* adoptRuntime(Value* handle) {
    runtime_.insert(handle);
    return handle;
  }
  // The tensors of a sequence made at compile time (not isRuntime).
  const std::vector<Value*>& listOf(const Value* v) const { return lists_.at(v); }
  // The run-time handle of sequence v: v itself, or a RuntimeSequenceMake of its tensors.
  Value* handleOf(Graph& g, frontend::ImportEval& ev, Value* v, const std::string& name);

 private:
  std::map<const Value*, std::vector<Value*>> lists_;  // null element: only its existence is known
  std::set<const Value*> runtime_;                     // handles of sequences made at run time
};

}  // namespace onnxfe
}  // namespace atc
