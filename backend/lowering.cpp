#include "backend/lowering.h"

#include "ops/elementwise/eltwise_common.h"
#include "support/diagnostics.h"

namespace atc {

namespace {
// Values whose shape depends on input values (Value::shapeFromData) have a static upper bound
// only. An element-wise op over one, with scalars for its other operands, runs over its actual
// elements (eltwiseOverDataShape); other readers are refused until shapes are inferred at run
// time (docs/dynamic-shapes.md).
const Value* dataShapedInput(const Node& n) {
  for (const Value* in : n.inputs)
    if (in && in->shapeFromData) return in;
  return nullptr;
}

[[noreturn]] void refuseDataShapedInput(const Node& n, const Value* in) {
  if (isRunSized(in)) throw runSizedReaderError(n, *in);
  const Node* p = in->producer;  // the op that decides the shape, before element-wise ops over it
  for (const Value* up = p ? dataShapedInput(*p) : nullptr; up && up->producer; up = dataShapedInput(*p))
    p = up->producer;
  throw AtcError("E19010",
                 "Op [" + n.name + "] (" + n.type + ") reads " + in->name + ", whose shape depends on input values" +
                     (p ? " (Op [" + p->name + "] (" + p->type + ") decides it at run time)" : std::string()) +
                     "; such a value can only be a graph output or feed element-wise ops whose other operands "
                     "are scalars yet.",
                 "Make the input that decides the shape a constant (TopK's k, Compress's condition, Reduce's "
                 "axes...), or end the graph at this value.");
}
}  // namespace

std::vector<LoweredNode> lowerGraph(Graph& g, const TargetProfile& target, PackCache* packs, bool rangeBuild) {
  std::vector<LoweredNode> lowered;
  LowerState state;  // every input slot and graph output counts as a use (ir/op_registry.h)
  state.shared = packs;
  state.rangeBuild = rangeBuild;
  for (auto& np : g.nodes())
    for (auto* in : np->inputs)
      if (in) state.uses[in]++;
  for (auto* o : g.outputs) state.uses[o]++;
  for (auto& np : g.nodes()) {
    Node& n = *np;
    // the runtime's loop steps (backend/loop_schedule.h ordered the body) and sequence steps
    if (isLoopControl(n) || isSequenceControl(n)) {
      LoweredNode L;
      L.node = &n;
      L.control = true;
      lowered.push_back(std::move(L));
      continue;
    }
    const Value* dsIn = dataShapedInput(n);
    if (dsIn && !isRunSized(dsIn) && !n.outputs.empty() && !n.outputs[0]->shapeFromData) refuseDataShapedInput(n, dsIn);
    LoweredNode L;
    L.node = &n;
    bool allConst = !n.outputs.empty();
    bool runSized = false;
    for (auto* o : n.outputs) {
      if (isRunSized(o) && o->type.shapeKnown && o->type.rank() <= kRunSizedMaxRank) {
        runSized = true;
        allConst = false;
        continue;
      }
      if (!o->type.isStatic())
        throw AtcError("E19999", "Output " + o->name + " of node " + n.name + " (" + n.type + ") has no static shape.",
                       "Give static shapes with --input_shape.");
      if (!o->isConstant()) allConst = false;
    }
    if (allConst) {
      L.skip = true;
      lowered.push_back(std::move(L));
      continue;
    }
    const OpDef* d = OpRegistry::instance().find(n.type);
    if (!d || !d->lower)
      throw AtcError("E19999", "Op type " + n.type + " (node " + n.name + ") has no kernel for target " + target.name + ".",
                     "This op is not supported by the code generator yet.");
    LowerCtx ctx(g, n, &state);
    ctx.cubeRows = target.cubeRows();
    ctx.int8Path = target.int8PathCode();
    ctx.int8Amx = target.int8Amx();
    ctx.bf16Dot = target.bf16Dot();
    ctx.bf16Amx = target.bf16Amx();
    if (dsIn && isRunSized(dsIn)) {  // element-wise ops, and readers whose kernel reads the dims
      if (!eltwiseOverRunSized(n, [&] { return d->lower(ctx); }, &L.call)) {
        L.call = d->lower(ctx);
        if (!L.call.readsRunSized) refuseDataShapedInput(n, dsIn);
      }
    } else {
      L.call = d->lower(ctx);
      if (dsIn && !eltwiseOverDataShape(n, L.call)) refuseDataShapedInput(n, dsIn);
    }
    if (runSized != L.call.sizesOutputs)
      internalError("node " + n.name + " (" + n.type + "): its outputs are " + (runSized ? "" : "not ") +
                    "run-sized, its kernel " + L.call.kernel + (L.call.sizesOutputs ? " sizes" : " does not size") +
                    " them");
    if (L.call.workspaceBytes < 0) internalError("negative workspace for node " + n.name);
    lowered.push_back(std::move(L));
  }
  g.pruneValues();  // constants replaced by packed copies everywhere
  return lowered;
}

}  // namespace atc
