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
//   RuntimeSequenceAt(h, pos) -> y          SequenceAt; pos outside [-n, n-1] fails the run
//   RuntimeSequenceErase(h, pos?) -> h'     SequenceErase (absent: the last)
//   RuntimeSequenceConcat(h) -> y           ConcatFromSequence (axis, new_axis)
//   RuntimeSequenceSplit(x, split?) -> h    SplitToSequence (axis, keepdims) by sizes a run gives
// An element may be static, data-shaped (within a bound) or run-sized. A tensor taken out (At,
// Concat) has the type the importer worked out from what enters the sequence (attributes
// _dtype and _dims, -1 for a dim that differs between elements): static when every element has
// the same shape (the runtime checks each run's), else run-sized.
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

void checkPosition(const Node& n, const Value* p);

void inferInsert(Graph&, Node& n) {
  checkHandle(n, n.input(0), "a first input");
  checkElement(n, n.input(1));
  checkPosition(n, n.input(2));
  setHandle(n);
}

void inferHandleOnly(Graph&, Node& n) {
  checkHandle(n, n.input(0), "an input");
  setHandle(n);
}

void checkPosition(const Node& n, const Value* p) {
  if (p &&
      ((p->type.dtype != DType::I64 && p->type.dtype != DType::I32) || !p->type.isStatic() || p->type.numel() != 1))
    opError(n, "has a position that is not one int32 or int64");
}

// A tensor taken out of a sequence: the type in _dtype / _dims.
void setTaken(Node& n) {
  int64_t code = n.attrInt("_dtype", -1);
  std::vector<int64_t> dims = n.attrInts("_dims");
  if (code < 0 || code > 255 || dims.size() > (size_t)kRunSizedMaxRank) opError(n, "has no valid _dtype / _dims");
  bool run = false;
  for (int64_t d : dims) {
    if (d < -1) opError(n, "has a dim below -1 in _dims");
    run = run || d < 0;
  }
  n.outputs[0]->type = TensorType((DType)code, dims);
  n.outputs[0]->shapeFromData = run;
}

void inferAt(Graph&, Node& n) {
  checkHandle(n, n.input(0), "a first input");
  if (!n.input(1)) opError(n, "has no position");
  checkPosition(n, n.input(1));
  setTaken(n);
}

void inferErase(Graph&, Node& n) {
  checkHandle(n, n.input(0), "a first input");
  checkPosition(n, n.input(1));
  setHandle(n);
}

void inferConcat(Graph&, Node& n) {
  checkHandle(n, n.input(0), "an input");
  setTaken(n);
  if (!n.outputs[0]->shapeFromData) opError(n, "has an output that is not run-sized");
}

void inferSplit(Graph&, Node& n) {
  checkElement(n, n.input(0));
  if (const Value* s = n.input(1))
    if ((s->type.dtype != DType::I64 && s->type.dtype != DType::I32) || !s->type.isStatic() || s->type.rank() > 1)
      opError(n, "has split sizes that are not int32 or int64 of rank 0 or 1");
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
OpDef atOp() { return sequenceOp("RuntimeSequenceAt", 2, 2, inferAt); }
OpDef eraseOp() { return sequenceOp("RuntimeSequenceErase", 1, 2, inferErase); }
OpDef concatOp() { return sequenceOp("RuntimeSequenceConcat", 1, 1, inferConcat); }
OpDef splitOp() { return sequenceOp("RuntimeSequenceSplit", 1, 2, inferSplit); }

}  // namespace

ATC_REGISTER_OP(makeOp());
ATC_REGISTER_OP(insertOp());
ATC_REGISTER_OP(lengthOp());
ATC_REGISTER_OP(outputOp());
ATC_REGISTER_OP(atOp());
ATC_REGISTER_OP(eraseOp());
ATC_REGISTER_OP(concatOp());
ATC_REGISTER_OP(splitOp());

}  // namespace atc
