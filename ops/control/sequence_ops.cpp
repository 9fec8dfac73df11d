// Sequences made at run time (docs/frontend-onnx.md, "Sequences at run time"): a sequence that
// a loop running in the runtime carries, or that an insert at a run-time position builds, has
// a length and element shapes only a run knows. The IR holds it as a handle, an int64 scalar
// the runtime gives out (0: no sequence, an empty optional); its tensors live in the
// runtime's sequence store for the run. Ordinary ops may move a handle (a run-time If's Where
// selects one, a loop copies it); only these ops, run by the runtime itself as sequence
// control steps (backend/sequence_steps.h), make or read one:
//   RuntimeSequenceMake(x...) -> h          a sequence of copies of the tensors (none: empty)
//   RuntimeSequenceInsert(h, x, pos?) -> h' h with a copy of x inserted at pos (absent: at
//                                           the end); pos outside [-n, n] fails the run
//   RuntimeSequenceLength(h) -> n           int64 scalar
//   RuntimeSequenceOutput(h) -> h           a graph output: the runtime gives its tensors;
//                                           attribute allow_none=1: h may be 0 (an optional)
// An element may be static, data-shaped (within a bound) or run-sized.
#include "ir/op_registry.h"

namespace atc {
namespace {

void checkHandle(const Node& n, const Value* h, const std::string& what) {
  if (!h || h->type.dtype != DType::I64 || !h->type.isStatic() || h->type.numel() != 1)
    opError(n, "has " + what + " that is not a sequence handle (one int64)");
}

void setHandle(Node& n) {
  n.outputs[0]->type = TensorType(DType::I64, {});
  n.outputs[0]->shapeFromData = false;
}

void checkElement(const Node& n, const Value* x) {
  if (!x || !x->type.shapeKnown) opError(n, "has an element without a known rank");
  if (x->type.rank() > kRunSizedMaxRank) opError(n, "has an element of rank above " + std::to_string(kRunSizedMaxRank));
}

void inferMake(Graph&, Node& n) {
  for (const Value* x : n.inputs) checkElement(n, x);
  setHandle(n);
}

void inferInsert(Graph&, Node& n) {
  checkHandle(n, n.input(0), "a first input");
  checkElement(n, n.input(1));
  if (const Value* p = n.input(2))
    if ((p->type.dtype != DType::I64 && p->type.dtype != DType::I32) || !p->type.isStatic() || p->type.numel() != 1)
      opError(n, "has a position that is not one int32 or int64");
  setHandle(n);
}

void inferHandleOnly(Graph&, Node& n) {
  checkHandle(n, n.input(0), "an input");
  setHandle(n);
}

OpDef sequenceOp(const std::string& type, int minIn, int maxIn, std::function<void(Graph&, Node&)> infer) {
  OpDef d;
  d.type = type;
  d.internal = true;
  d.minInputs = minIn;
  d.maxInputs = maxIn;
  d.infer = std::move(infer);
  d.readsRunSized = true;
  return d;
}

OpDef makeOp() { return sequenceOp("RuntimeSequenceMake", 0, -1, inferMake); }
OpDef insertOp() { return sequenceOp("RuntimeSequenceInsert", 2, 3, inferInsert); }
OpDef lengthOp() { return sequenceOp("RuntimeSequenceLength", 1, 1, inferHandleOnly); }
OpDef outputOp() { return sequenceOp("RuntimeSequenceOutput", 1, 1, inferHandleOnly); }

}  // namespace

ATC_REGISTER_OP(makeOp());
ATC_REGISTER_OP(insertOp());
ATC_REGISTER_OP(lengthOp());
ATC_REGISTER_OP(outputOp());

}  // namespace atc
