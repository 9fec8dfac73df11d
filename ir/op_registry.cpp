#include "ir/op_registry.h"

#include <set>

#include <algorithm>

#include "support/checked_math.h"
#include "support/diagnostics.h"

namespace atc {

const char* opCategoryName(OpCategory c) {
  switch (c) {
    case OpCategory::Elementwise: return "elementwise";
    case OpCategory::Reduce: return "reduce";
    case OpCategory::Cube: return "cube";
    case OpCategory::Pool: return "pool";
    case OpCategory::DataMove: return "datamove";
    case OpCategory::Shape: return "shape";
    case OpCategory::Misc: return "misc";
  }
  return "misc";
}

namespace {
// One fewer node reads `v`; a constant nobody reads any more gives its memory back (the value
// itself goes at the next Graph::pruneValues).
void dropUse(LowerState* st, Value* v) {
  if (!st || !v) return;
  auto it = st->uses.find(v);
  if (it == st->uses.end() || --it->second > 0) return;
  for (auto p = st->packed.begin(); p != st->packed.end();)  // never reached through the memo again
    p = p->first.first == v->constant.get() ? st->packed.erase(p) : std::next(p);
  v->constant.reset();
}
}  // namespace

void LowerCtx::replaceConstInput(size_t i, TensorPtr data, const std::string& how) {
  Value* old = node.inputs.at(i);
  if (state && state->shared && !how.empty() && old && old->constant)
    state->shared->packed[{old->constant.get(), how}] = {old->constant, data};
  Value* v = graph.newConstant(node.name + "_packed" + std::to_string(i), std::move(data));
  if (state) {
    state->uses[v] = 1;
    if (!how.empty() && old && old->constant) state->packed[{old->constant.get(), how}] = v;
  }
  node.inputs.at(i) = v;
  dropUse(state, old);
}

bool LowerCtx::usePackedInput(size_t i, const std::string& how) {
  Value* old = node.inputs.at(i);
  if (!state || !old || !old->constant) return false;
  auto it = state->packed.find({old->constant.get(), how});
  if (it == state->packed.end()) {
    if (!state->shared) return false;
    auto sh = state->shared->packed.find({old->constant.get(), how});
    if (sh == state->shared->packed.end()) return false;
    Value* v = graph.newConstant(node.name + "_packed" + std::to_string(i), sh->second.second);
    state->uses[v] = 1;
    state->packed[{old->constant.get(), how}] = v;
    node.inputs.at(i) = v;
    dropUse(state, old);
    return true;
  }
  node.inputs.at(i) = it->second;
  state->uses[it->second]++;
  dropUse(state, old);
  return true;
}

OpRegistry& OpRegistry::instance() {
  static OpRegistry r;
  return r;
}

void OpRegistry::add(OpDef def) {
  for (auto& d : defs_)
    if (d.type == def.type) internalError("op registered twice: " + def.type);
  defs_.push_back(std::move(def));
}

const OpDef* OpRegistry::find(const std::string& type) const {
  for (auto& d : defs_)
    if (d.type == type) return &d;
  return nullptr;
}

std::vector<std::string> OpRegistry::types() const {
  std::vector<std::string> r;
  for (auto& d : defs_) r.push_back(d.type);
  std::sort(r.begin(), r.end());
  return r;
}

[[noreturn]] void opError(const Node& n, const std::string& what) {
  throw AtcError("E19999", "Op [" + n.name + "] of type [" + n.type + "] is invalid: " + what,
                 "Check the model's attributes and input shapes for this node.");
}

void checkArity(const Node& n) {
  const OpDef* d = OpRegistry::instance().find(n.type);
  if (!d) throw AtcError("E19010", "No parser is registered for op type [" + n.type + "].",
                         "Remove or replace the unsupported operator.");
  int nin = (int)n.inputs.size();
  // Trailing absent optional inputs do not count.
  while (nin > 0 && n.inputs[nin - 1] == nullptr) --nin;
  if (nin < d->minInputs || (d->maxInputs >= 0 && nin > d->maxInputs))
    opError(n, "has " + std::to_string(nin) + " inputs");
  // Required inputs (ONNX puts them first) must be present: "" marks an absent optional one.
  for (int i = 0; i < d->minInputs && i < nin; ++i)
    if (!n.inputs[i]) opError(n, "input " + std::to_string(i) + " is required but absent (\"\")");
  int nout = (int)n.outputs.size();
  if (nout < d->minOutputs || (d->maxOutputs >= 0 && nout > d->maxOutputs))
    opError(n, "has " + std::to_string(nout) + " outputs");
}

namespace {
// Ops that take the cast-only formats (ir/dtype.h: float8, float4, int4, int2...): the
// conversions and the ops that move bytes without arithmetic. Any other op reading or making
// such a value is refused before it could compute on bit patterns.
bool takesCastOnlyTypes(const std::string& t) {
  static const std::set<std::string> ops = {"Cast",    "CastLike",  "BitCast",  "QuantizeLinear", "DequantizeLinear",
                                            "Identity", "Reshape",  "Flatten",  "Squeeze",        "Unsqueeze",
                                            "Transpose", "Concat",  "Split",    "Slice",          "Gather",
                                            "Expand",   "Tile",     "Shape",    "Size"};
  return ops.count(t) > 0;
}

void checkCastOnlyTypes(const Node& n) {
  if (takesCastOnlyTypes(n.type)) return;
  auto check = [&](const Value* v) {
    if (v && isCastOnly(v->type.dtype))
      throw AtcError("E19010",
                     "Op [" + n.name + "] of type [" + n.type + "] would compute on " + v->name + " of element type " +
                         dtypeName(v->type.dtype) + ", which only Cast, CastLike, QuantizeLinear, DequantizeLinear "
                         "and data movement take.",
                     "Cast the value to float (or an 8-bit integer type) before this op.");
  };
  for (const Value* v : n.inputs) check(v);
  for (const Value* v : n.outputs) check(v);
}
}  // namespace

// A run-sized value (docs/dynamic-shapes.md) read by an op that cannot read one.
void checkRunSizedReaders(const Node& n, const OpDef& d) {
  if (d.category == OpCategory::Elementwise || d.readsRunSized) return;
  for (const Value* in : n.inputs)
    if (isRunSized(in)) throw runSizedReaderError(n, *in);
}

AtcError runSizedReaderError(const Node& n, const Value& in) {
  const Node* p = in.producer;
  return AtcError("E19010",
                  "Op [" + n.name + "] (" + n.type + ") reads " + in.name + ", whose size each run decides (Op [" +
                      (p ? p->name + "] (" + p->type : std::string("?] (?")) +
                      ") computes its shape from input values); such a value can only be a graph output or "
                      "feed element-wise ops, Shape, Size and Slice yet.",
                  "Make the input that decides the shape a constant (Expand's shape, Resize's scales or sizes, "
                  "OneHot's depth...), or end the graph at this value.");
}

void inferNode(Graph& g, Node& n) {
  checkArity(n);
  const OpDef* d = OpRegistry::instance().find(n.type);
  checkRunSizedReaders(n, *d);
  checkCastOnlyTypes(n);
  // Each inference decides afresh whether an output's shape comes from data: an input that has
  // become a constant since (folded shape arithmetic) makes a run-sized output static.
  for (Value* o : n.outputs)
    if (o && d->infer) o->shapeFromData = false;
  if (d->infer) d->infer(g, n);
  checkCastOnlyTypes(n);
  // An element-wise op over a value whose shape depends on data, of the same bound: the same
  // (backend/lowering.cpp runs it over the actual elements where it can, refuses it otherwise).
  if (d->category == OpCategory::Elementwise && n.outputs.size() == 1 && n.outputs[0]) {
    bool ds = false;
    for (const Value* in : n.inputs) ds = ds || (in && in->shapeFromData && in->type.shape == n.outputs[0]->type.shape);
    n.outputs[0]->shapeFromData = ds;
  }
  for (Value* o : n.outputs)
    if (o && !o->type.sizeFits())
      opError(n, "output " + o->name + " of type " + o->type.str() + " is too large (its size overflows or exceeds " +
                     std::to_string(kMaxTensorBytes) + " bytes)");
}

void inferGraph(Graph& g) {
  for (auto& n : g.nodes()) inferNode(g, *n);
}

Shape broadcastShapes(const std::vector<Shape>& shapes, const Node& n) {
  size_t rank = 0;
  for (auto& s : shapes) rank = std::max(rank, s.size());
  Shape r(rank, 1);
  for (auto& s : shapes) {
    size_t off = rank - s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t d = s[i], &o = r[off + i];
      if (d == 1) continue;
      if (o == 1) o = d;
      else if (d == -1 || o == -1) o = (o == -1) ? d : o;
      else if (o != d) opError(n, "shapes cannot be broadcast");
    }
  }
  return r;
}

int64_t normalizeAxis(int64_t axis, int64_t rank, const Node& n) {
  // Valid axes are [-rank, rank-1]: a scalar (rank 0) has none.
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    opError(n, "axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank) +
                   (rank == 0 ? " (the input is a scalar and has no axes)" : ""));
  return a;
}

}  // namespace atc
