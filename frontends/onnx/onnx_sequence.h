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

// What compile time knows of the tensors a run-time sequence may hold: their dtype and dims
// (-1 where they differ) when they share a dtype and rank, and the loop body inputs whose
// tensors it may hold too (not known until the loop's body has been imported).
struct SeqInfo {
  bool any = false;    // it may hold a tensor
  bool mixed = false;  // of different dtypes or ranks (or of unknown type)
  TensorType type;
  std::set<const Value*> bases;
};
SeqInfo mergeInfo(SeqInfo a, const SeqInfo& b);

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
  // A run-time handle standing for no sequence (an empty optional's).
  Value* noHandle(Graph& g, const std::string& name);
  // A sequence made at run time: the value is its handle.
  bool isRuntime(const Value* v) const { return v && runtime_.count(v) != 0; }
  Value* adoptRuntime(Value* handle, SeqInfo info) {
    runtime_[handle] = std::move(info);
    return handle;
  }
  // What is known of the tensors of sequence v (a list: its elements' types).
  SeqInfo infoOf(frontend::ImportEval& ev, const Value* v) const;
  // The tensors of a sequence made at compile time (not isRuntime).
  const std::vector<Value*>& listOf(const Value* v) const { return lists_.at(v); }
  // The run-time handle of sequence v: v itself, or a RuntimeSequenceMake of its tensors.
  Value* handleOf(Graph& g, frontend::ImportEval& ev, Value* v, const std::string& name);

 private:
  std::map<const Value*, std::vector<Value*>> lists_;  // sequences made at compile time
  std::map<const Value*, SeqInfo> runtime_;            // handles of sequences made at run time
  std::vector<Value*> lowerRuntime(Graph& g, frontend::ImportEval& ev, const onnx::NodeProto& n,
                                   const std::string& name, const std::vector<Value*>& ins);
};

}  // namespace onnxfe
}  // namespace atc
