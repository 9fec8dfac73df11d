// Sequences and optionals at the edges of the graph and across a run-time If
// (docs/frontend-onnx.md, "Sequences and optionals"). The runtime has tensors only, so:
// - a sequence graph input `x` is one tensor input per element, `x[0]`, `x[1]`, ...: its
//   length and element shapes are declared with --input_shape="x[0]:d0,d1;x[1]:..." (an
//   empty sequence: "x[]:");
// - an optional graph input holds a value unless --input_shape declares it empty ("x[]:"):
//   a tensor input `x`, or the elements `x[i]` of the sequence it holds;
// - a sequence graph output `y` is the outputs `y[0]`, `y[1]`, ...; an optional output is
//   `y[has]` (bool scalar: whether it holds a value on this run) followed by its value,
//   `y[value]` for a tensor or `y[0]`, `y[1]`, ... for a sequence (present only when some
//   branch gives one; read it only when `y[has]` is true);
// - a run-time If choosing between sequences selects element by element (same length and
//   element types), between optionals selects `has` and the values;
// - a sequence made at run time (onnx_sequence.h) is a handle: a graph output `y` of one gives
//   its tensors `y[0]`, `y[1]`, ... (as many as the run made); a run-time If selects between
//   handles; a loop running in the runtime carries a sequence or an optional of one as a handle
//   (0: the optional holds none).
#pragma once
#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "frontends/common/import_eval.h"
#include "frontends/onnx/onnx_optional.h"
#include "frontends/onnx/onnx_sequence.h"
#include "ir/graph.h"

namespace atc {
namespace onnxfe {

// The IR type of a tensor-typed graph input (E19010 for element types atc lacks).
TensorType tensorInputType(const std::string& name, const onnx::TypeProto_Tensor& t);

class Composites {
 public:
  Sequences seqs;
  Optionals opts;

  bool isComposite(const Value* v) const { return seqs.isSequence(v) || opts.isOptional(v); }
  // Whether node n may read v: a tensor, or a run-time sequence handle read by the runtime's
  // loop and sequence ops or by a Where / Equal made here (a selection, an optional's `has`).
  bool mayRead(const Node& n, const Value* v) const {
    if (!isComposite(v)) return true;
    if (!seqs.isRuntime(v)) return false;
    return n.type == "LoopBegin" || n.type == "LoopEnd" || n.type.rfind("RuntimeSequence", 0) == 0 ||
           handleReaders_.count(&n) != 0;
  }
  // A sequence or optional graph input: its tensor inputs appended to `inputs`, the marker
  // returned; null for a tensor input. `consumed`: --input_shape entries used here only.
  Value* importInput(Graph& g, const onnx::ValueInfoProto& in,
                     const std::map<std::string, std::vector<int64_t>>& shapes, std::vector<Value*>* inputs,
                     std::set<std::string>* consumed);
  // The tensors graph output `v` (named `name` in the model) becomes, appended to `outputs`.
  void flattenOutput(Graph& g, Value* v, const std::string& name, std::vector<Value*>* outputs);
  // If-conversion of sequences and optionals (BranchSelector); null for two tensors.
  Value* select(Graph& g, frontend::ImportEval& ev, Value* cond, Value* t, Value* e, const std::string& name);
  // A sequence or an optional of one as a run-time handle, and back (CompositeCarrier).
  Value* toHandle(Graph& g, frontend::ImportEval& ev, Value* v, const std::string& name);
  // fromHandle's `from`: the handles whose tensors h may hold (none: h is a loop body's input);
  // loopInput: the loop body input those may extend (a loop's final value).
  Value* fromHandle(Graph& g, frontend::ImportEval& ev, Value* h, bool optional, const std::string& name,
                    const std::vector<Value*>& from, const Value* loopInput);

 private:
  Value* node(Graph& g, frontend::ImportEval& ev, const std::string& type, const std::vector<Value*>& ins,
              const std::string& name);
  std::set<const Node*> handleReaders_;
  std::vector<Value*> elementInputs(Graph& g, const std::string& name, const onnx::TypeProto& elem,
                                    const std::map<std::string, std::vector<int64_t>>& shapes,
                                    std::vector<Value*>* inputs, std::set<std::string>* consumed);
};

}  // namespace onnxfe
}  // namespace atc
