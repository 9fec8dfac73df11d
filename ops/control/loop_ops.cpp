// LoopBegin and LoopEnd: an ONNX Loop that atc cannot unroll (a trip count or condition known
// only at run time, or more iterations than unrolling allows) runs in the runtime
// (docs/frontend-onnx.md, "Loops at run time"). The body's nodes lie between the two, in the
// same graph:
//   LoopBegin(M?, cond?, v_initial...) -> (iteration_num, cond_in, v_in...)
//   LoopEnd(iteration_num, cond_out, v_out..., scan...) -> (v_final..., scan_outputs...)
// A v_out or scan value whose shape comes from data (within a static bound) is checked by the
// runtime: v_out must have v_in's shape, every scan value the first one's.
// attribute _carried: the number of loop-carried values. The runtime runs the steps between
// them once per iteration (backend/loop_schedule.h keeps the body's nodes there), copying
// v_out into v_in and appending each scan value; a scan output is run-sized ([iterations, ...]).
// Neither has a kernel: the lowering makes them loop control steps.
#include "ir/op_registry.h"
#include "support/diagnostics.h"

namespace atc {
namespace {

std::string typeText(const TensorType& t) { return t.shapeKnown ? t.str() : "an unknown shape"; }

void inferLoopBegin(Graph&, Node& n) {
  const int64_t carried = n.attrInt("_carried", -1);
  if (carried < 0 || (int64_t)n.inputs.size() != carried + 2 || (int64_t)n.outputs.size() != carried + 2)
    opError(n, "has inputs or outputs that do not match its _carried attribute");
  if (Value* m = n.inputs[0])
    if (m->type.dtype != DType::I64 || m->type.numel() != 1) opError(n, "has a trip count that is not one int64");
  if (Value* c = n.inputs[1])
    if (c->type.dtype != DType::Bool || c->type.numel() != 1) opError(n, "has a condition that is not one bool");
  n.outputs[0]->type = TensorType(DType::I64, {});
  n.outputs[1]->type = TensorType(DType::Bool, {});
  for (int64_t k = 0; k < carried; ++k) {
    const Value* v = n.inputs[(size_t)(2 + k)];
    if (!v) opError(n, "has an absent loop-carried value");
    if (!v->type.isStatic())
      throw AtcError("E19010",
                     "Op [" + n.name + "] cannot be compiled: the loop-carried value " + v->name + " has " +
                         typeText(v->type) + "; a loop that runs at run time needs static shapes.",
                     "Give the model's inputs static shapes with --input_shape.");
    n.outputs[(size_t)(2 + k)]->type = v->type;
  }
}

void inferLoopEnd(Graph&, Node& n) {
  const int64_t carried = n.attrInt("_carried", -1);
  const Node* begin = n.input(0) ? n.input(0)->producer : nullptr;
  if (!begin || begin->type != "LoopBegin" || carried != begin->attrInt("_carried", -2) ||
      (int64_t)n.inputs.size() < carried + 2 || (int64_t)n.outputs.size() != (int64_t)n.inputs.size() - 2)
    opError(n, "does not match its LoopBegin");
  const Value* cond = n.inputs[1];
  if (!cond || cond->type.dtype != DType::Bool || cond->type.numel() != 1)
    opError(n, "has a body whose condition output is not one bool");
  for (int64_t k = 0; k < carried; ++k) {
    const Value* in = begin->outputs[(size_t)(2 + k)];
    const Value* out = n.inputs[(size_t)(2 + k)];
    // a value whose shape comes from data (a Slice at the iteration number) has a static bound:
    // the runtime checks each iteration's shape against the carried one
    bool fits = out && !isRunSized(out) && out->type.isStatic() && out->type.dtype == in->type.dtype &&
                out->type.rank() == in->type.rank();
    for (int64_t d = 0; fits && d < in->type.rank(); ++d)
      fits = out->shapeFromData ? out->type.shape[(size_t)d] >= in->type.shape[(size_t)d]
                                : out->type.shape[(size_t)d] == in->type.shape[(size_t)d];
    if (!fits)
      throw AtcError("E19010",
                     "Op [" + n.name + "] cannot be compiled: the loop-carried value " + std::to_string(k) +
                         " enters "
                         "the body as " +
                         in->type.str() + " and leaves it as " + (out ? typeText(out->type) : std::string("nothing")) +
                         "; a loop that runs at run time keeps each carried value's type and shape.",
                     "atc unrolls loops whose trip count is a constant (docs/frontend-onnx.md, \"Control flow\"); "
                     "keep the carried values' shapes fixed, or make the trip count a constant.");
    n.outputs[(size_t)k]->type = in->type;
  }
  for (size_t k = (size_t)(2 + carried); k < n.inputs.size(); ++k) {
    const Value* s = n.inputs[k];
    if (!s || !s->type.isStatic() || isRunSized(s) || s->type.rank() + 1 > kRunSizedMaxRank)
      throw AtcError("E19010",
                     "Op [" + n.name + "] cannot be compiled: a scan output of the loop has " +
                         (s ? typeText(s->type) : std::string("no value")) +
                         " per iteration; a loop that runs at "
                         "run time needs a static shape of rank below " +
                         std::to_string(kRunSizedMaxRank) + ".",
                     "Give the model's inputs static shapes with --input_shape.");
    Value* o = n.outputs[k - 2];
    Shape shape = {-1};
    shape.insert(shape.end(), s->type.shape.begin(), s->type.shape.end());
    o->type = TensorType(s->type.dtype, shape);
    o->shapeFromData = true;  // run-sized: [iterations, ...]
  }
}

OpDef loopBegin() {
  OpDef d;
  d.type = "LoopBegin";
  d.internal = true;
  d.minInputs = 0;
  d.maxInputs = -1;
  d.minOutputs = 2;
  d.maxOutputs = -1;
  d.infer = inferLoopBegin;
  return d;
}

OpDef loopEnd() {
  OpDef d;
  d.type = "LoopEnd";
  d.internal = true;
  d.minInputs = 2;
  d.maxInputs = -1;
  d.minOutputs = 0;
  d.maxOutputs = -1;
  d.infer = inferLoopEnd;
  return d;
}

}  // namespace

ATC_REGISTER_OP(loopBegin());
ATC_REGISTER_OP(loopEnd());

}  // namespace atc
