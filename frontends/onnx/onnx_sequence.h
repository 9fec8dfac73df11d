// ONNX sequence ops (SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceAt,
// SequenceErase, SequenceLength, ConcatFromSequence, SplitToSequence) resolved at import
// (docs/frontend-onnx.md, "Sequences"): a sequence is a compile-time list of IR values, held
// here under a marker value (an unused constant) that stands for the sequence wherever the
// model names it. Positions and split sizes must fold to constants; the tensors the model
// reads out (SequenceAt, ConcatFromSequence, SequenceLength) are ordinary IR nodes. A
// sequence that reaches a graph output or an op that is not one of these is refused
// (E19010): the runtime has tensors only.
#pragma once
#include <onnx/onnx_pb.h>

#include <map>
#include <string>
#include <vector>

#include "frontends/common/import_eval.h"
#include "ir/graph.h"

namespace atc {
namespace onnxfe {

bool isSequenceNode(const onnx::NodeProto& n);

class Sequences {
 public:
  // Lowers one sequence node whose inputs are `ins` (null: absent); one value per output.
  std::vector<Value*> lower(Graph& g, frontend::ImportEval& ev, const onnx::NodeProto& n, const std::string& name,
                            const std::vector<Value*>& ins);
  bool isSequence(const Value* v) const { return v && lists_.count(v) != 0; }

 private:
  std::map<const Value*, std::vector<Value*>> lists_;  // null element: only its existence is known
};

}  // namespace onnxfe
}  // namespace atc
