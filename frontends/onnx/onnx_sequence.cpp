// See onnx_sequence.h.
#include "frontends/onnx/onnx_sequence.h"

#include <set>

#include "support/diagnostics.h"

namespace atc {
namespace onnxfe {
namespace {

using List = std::vector<Value*>;

struct SeqCtx {
  Graph& g;
  frontend::ImportEval& ev;
  const onnx::NodeProto& n;
  const std::string& name;
  const std::vector<Value*>& ins;
  int made = 0;

  [[noreturn]] void refuse(const std::string& why) const {
    throw AtcError("E19010", "Op [" + name + ", " + n.op_type() + "] cannot be compiled: " + why + ".",
                   "atc resolves sequences at compile time (docs/frontend-onnx.md, \"Sequences\"); positions and "
                   "split sizes must follow from constants and input shapes.");
  }
  [[noreturn]] void invalid(const std::string& why) const {
    throw AtcError("E10041", "Failed to load the model: node [" + name + "] (" + n.op_type() + ") " + why + ".",
                   "Check that the model is a valid ONNX model.");
  }
  int64_t intAttr(const std::string& key, int64_t def) const {
    for (const auto& a : n.attribute())
      if (a.name() == key) return a.i();
    return def;
  }
  Value* in(size_t i) const { return i < ins.size() ? ins[i] : nullptr; }
  std::vector<int64_t> folded(size_t i, const std::string& what) const {
    TensorPtr t = in(i) ? ev.constantOf(in(i)) : nullptr;
    if (!t) refuse("its " + what + " is not known at compile time");
    return t->toInts();
  }
  Value* op(const std::string& type, const std::vector<Value*>& xs, std::map<std::string, AttrValue> attrs = {}) {
    std::string nm = g.uniqueNodeName(name + "/" + type + std::to_string(made++));
    Value* out = g.newValue(nm);
    Node* node = g.addNode(type, nm, xs, {out});
    node->attrs = std::move(attrs);
    ev.typeOf(out);
    return out;
  }
};

// A position in [-size, size - 1] (or [-size, size] when inserting), made non-negative.
int64_t position(SeqCtx& c, size_t input, int64_t size, bool insert, int64_t def) {
  if (!c.in(input)) return def;
  std::vector<int64_t> p = c.folded(input, "position");
  if (p.size() != 1) c.invalid("has a position of " + std::to_string(p.size()) + " values");
  int64_t hi = insert ? size : size - 1;
  if (p[0] < -size || p[0] > hi)
    c.invalid("has the position " + std::to_string(p[0]) + " outside [" + std::to_string(-size) + ", " +
              std::to_string(hi) + "] for a sequence of " + std::to_string(size));
  return p[0] < 0 ? p[0] + size : p[0];
}

List splitToSequence(SeqCtx& c, Value* x) {
  const TensorType& t = c.ev.typeOf(x);
  if (!t.shapeKnown) c.refuse("the input's shape is not known");
  int64_t r = t.rank(), axis = c.intAttr("axis", 0);
  if (axis < -r || axis >= r) c.invalid("has axis " + std::to_string(axis) + " for rank " + std::to_string(r));
  if (axis < 0) axis += r;
  int64_t dim = t.shape[(size_t)axis];
  std::vector<int64_t> sizes;
  bool squeeze = false;
  if (!c.in(1)) {
    sizes.assign((size_t)dim, 1);
    squeeze = c.intAttr("keepdims", 1) == 0;
  } else {
    std::vector<int64_t> s = c.folded(1, "split");
    if (c.ev.typeOf(c.in(1)).rank() == 0) {  // a scalar: chunks of that size, the last shorter
      if (s[0] <= 0) c.invalid("has a split size " + std::to_string(s[0]));
      for (int64_t at = 0; at < dim; at += s[0]) sizes.push_back(std::min(s[0], dim - at));
    } else {
      sizes = s;
    }
  }
  int64_t sum = 0;
  for (int64_t s : sizes) {
    if (s < 0) c.invalid("has a negative split size");
    sum += s;
  }
  if (sum != dim) c.invalid("splits an axis of " + std::to_string(dim) + " into sizes summing to " + std::to_string(sum));
  List l;
  int64_t start = 0;
  auto i64 = [&](int64_t v) { return c.g.newConstant(c.name + "/idx", makeIntTensor({v}, DType::I64)); };
  for (int64_t s : sizes) {
    Value* piece = c.op("Slice", {x, i64(start), i64(start + s), i64(axis)});
    if (squeeze) piece = c.op("Squeeze", {piece, i64(axis)});
    l.push_back(piece);
    start += s;
  }
  return l;
}

Value* concatFromSequence(SeqCtx& c, const List& l) {
  if (l.empty()) c.refuse("the sequence is empty (the result has no static shape)");
  bool newAxis = c.intAttr("new_axis", 0) != 0;
  int64_t axis = c.intAttr("axis", 0);
  List parts;
  for (size_t i = 0; i < l.size(); ++i) {
    Value* e = l[i];
    parts.push_back(newAxis ? c.op("Unsqueeze", {e}, {{"axes", std::vector<int64_t>{axis}}}) : e);
  }
  return c.op("Concat", parts, {{"axis", axis}});
}

// A tensor entering a run-time sequence: its type (a shape from data: any dims of its rank).
SeqInfo tensorInfo(frontend::ImportEval& ev, Value* x) {
  SeqInfo i;
  i.any = true;
  i.type = ev.typeOf(x);
  i.mixed = !i.type.shapeKnown;
  if (x->shapeFromData)
    for (int64_t& d : i.type.shape) d = -1;
  return i;
}

// The runtime splits x (SplitToSequence by sizes only a run gives, or along an axis whose
// length only a run knows).
bool splitsAtRunTime(SeqCtx& c) {
  if (c.n.op_type() != "SplitToSequence" || !c.in(0)) return false;
  if (c.in(1) && !c.ev.constantOf(c.in(1))) return true;
  const TensorType& t = c.ev.typeOf(c.in(0));
  int64_t axis = c.intAttr("axis", 0);
  if (!t.shapeKnown || axis < -t.rank() || axis >= t.rank()) return false;  // refused or invalid below
  return t.shape[(size_t)(axis < 0 ? axis + t.rank() : axis)] < 0 || c.in(0)->shapeFromData;
}

[[noreturn]] void refuseRuntime(const SeqCtx& c) {
  c.refuse("its sequence is made at run time (a loop running in the runtime carries it, or a position or split "
           "sizes fed at run time made it), which SequenceInsert, SequenceErase, SequenceAt, SequenceLength, "
           "ConcatFromSequence and the graph's outputs can read, not " + c.n.op_type());
}

int64_t normalAxis(SeqCtx& c, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) c.invalid("has axis " + std::to_string(axis) + " for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

}  // namespace

SeqInfo mergeInfo(SeqInfo a, const SeqInfo& b) {
  a.bases.insert(b.bases.begin(), b.bases.end());
  if (!b.any) return a;
  if (!a.any) {
    SeqInfo r = b;
    r.bases = a.bases;
    return r;
  }
  a.mixed = a.mixed || b.mixed || a.type.dtype != b.type.dtype || a.type.rank() != b.type.rank();
  for (size_t k = 0; !a.mixed && k < a.type.shape.size(); ++k)
    if (a.type.shape[k] != b.type.shape[k]) a.type.shape[k] = -1;
  return a;
}

SeqInfo Sequences::infoOf(frontend::ImportEval& ev, const Value* v) const {
  auto rt = runtime_.find(v);
  if (rt != runtime_.end()) return rt->second;
  SeqInfo info;
  for (Value* e : lists_.at(v)) info = mergeInfo(info, tensorInfo(ev, e));
  return info;
}

Value* Sequences::noHandle(Graph& g, const std::string& name) {
  return adoptRuntime(g.newConstant(name + "/no_sequence", makeIntTensor({0}, DType::I64, true)), SeqInfo{});
}

std::vector<Value*> Sequences::lowerRuntime(Graph& g, frontend::ImportEval& ev, const onnx::NodeProto& n,
                                            const std::string& name, const std::vector<Value*>& ins) {
  SeqCtx c{g, ev, n, name, ins};
  const std::string& op = n.op_type();
  // the position (or split sizes) the runtime reads: int32 / int64, one value (sizes: rank <= 1)
  const bool positioned = op == "SequenceInsert" || op == "SequenceAt" || op == "SequenceErase" ||
                          op == "SplitToSequence";
  if (Value* p = positioned ? c.in(op == "SequenceInsert" ? 2 : 1) : nullptr) {
    const TensorType& t = ev.typeOf(p);
    bool isInt = t.dtype == DType::I64 || t.dtype == DType::I32;
    if (t.shapeKnown &&
        (op == "SplitToSequence" ? (!isInt || !t.isStatic() || t.rank() > 1) : (!isInt || t.numel() != 1)))
      c.invalid(op == "SplitToSequence" ? "has split sizes that are not int32 or int64 of rank 0 or 1"
                                        : "has a position that is not one int32 or int64 value");
  }
  if (op == "SplitToSequence") {
    const TensorType& t = ev.typeOf(c.in(0));
    if (!t.shapeKnown) c.refuse("the input's rank is not known");
    int64_t axis = normalAxis(c, c.intAttr("axis", 0), t.rank());
    SeqInfo info = tensorInfo(ev, c.in(0));
    info.type.shape[(size_t)axis] = c.in(1) ? -1 : 1;
    if (!c.in(1) && c.intAttr("keepdims", 1) == 0) info.type.shape.erase(info.type.shape.begin() + axis);
    Value* h = c.op("RuntimeSequenceSplit", {c.in(0), c.in(1)},
                    {{"axis", axis}, {"keepdims", c.intAttr("keepdims", 1)}});
    return {adoptRuntime(h, info)};
  }
  Value* h = handleOf(g, ev, c.in(0), name);
  SeqInfo info = infoOf(ev, h);
  if (op == "SequenceInsert") {
    if (!c.in(1) || isSequence(c.in(1))) c.refuse("it inserts something that is not a tensor");
    Value* r = c.op("RuntimeSequenceInsert", {h, c.in(1), c.in(2)});
    return {adoptRuntime(r, mergeInfo(info, tensorInfo(ev, c.in(1))))};
  }
  if (op == "SequenceErase") return {adoptRuntime(c.op("RuntimeSequenceErase", {h, c.in(1)}), info)};
  if (op == "SequenceLength") return {c.op("RuntimeSequenceLength", {h})};
  if (op != "SequenceAt" && op != "ConcatFromSequence") refuseRuntime(c);
  if (!info.any) c.refuse("its sequence is made at run time and never holds a tensor");
  if (info.mixed || !info.bases.empty())
    c.refuse("its sequence is made at run time, and the tensors it may hold " +
             std::string(info.mixed ? "differ in element type or rank"
                                    : "are not known inside the loop that makes them (read it after the loop)"));
  const int64_t dtype = (int64_t)info.type.dtype;
  if (op == "SequenceAt") {
    if (!c.in(1)) c.invalid("has no position");
    return {c.op("RuntimeSequenceAt", {h, c.in(1)}, {{"_dtype", dtype}, {"_dims", info.type.shape}})};
  }
  const int64_t newAxis = c.intAttr("new_axis", 0) != 0;
  const int64_t axis = normalAxis(c, c.intAttr("axis", 0), info.type.rank() + newAxis);
  Shape dims = info.type.shape;
  if (newAxis) dims.insert(dims.begin() + axis, -1);
  else dims[(size_t)axis] = -1;
  return {c.op("RuntimeSequenceConcat", {h},
               {{"axis", axis}, {"new_axis", newAxis}, {"_dtype", dtype}, {"_dims", std::vector<int64_t>(dims)}})};
}

Value* Sequences::handleOf(Graph& g, frontend::ImportEval& ev, Value* v, const std::string& name) {
  if (isRuntime(v)) return v;
  const std::vector<Value*>& l = lists_.at(v);
  std::string nm = g.uniqueNodeName(name + "/make_sequence");
  Value* h = g.newValue(nm);
  g.addNode("RuntimeSequenceMake", nm, l, {h});
  ev.typeOf(h);
  return adoptRuntime(h, infoOf(ev, v));
}

Value* Sequences::adopt(Graph& g, const std::string& name, std::vector<Value*> l) {
  Value* marker = g.newConstant(name + "/sequence", makeScalar(0, DType::F32));
  lists_[marker] = std::move(l);
  return marker;
}

std::vector<Value*> Sequences::lowerMap(Graph& g, frontend::ImportEval& ev, const BodyImporter& importBody,
                                        const onnx::NodeProto& n, const std::string& name,
                                        const std::vector<Value*>& ins) {
  SeqCtx c{g, ev, n, name, ins};
  const onnx::GraphProto* body = nullptr;
  for (const auto& a : n.attribute())
    if (a.name() == "body" && a.has_g()) body = &a.g();
  if (!body) c.invalid("has no body graph");
  if (!isSequence(c.in(0))) c.refuse("its first input is not a sequence made in this model");
  for (Value* v : ins)
    if (isRuntime(v)) refuseRuntime(c);
  const size_t len = listOf(ins[0]).size();
  for (Value* v : ins) {
    if (!v) c.invalid("has an absent input");
    if (isSequence(v) && listOf(v).size() != len)
      c.invalid("maps sequences of different lengths (" + std::to_string(len) + " and " +
                std::to_string(listOf(v).size()) + ")");
  }
  std::vector<List> results((size_t)n.output_size());
  for (size_t i = 0; i < len; ++i) {
    std::vector<Value*> bins;
    for (Value* v : ins) bins.push_back(isSequence(v) ? listOf(v)[i] : v);
    std::vector<Value*> outs = importBody(*body, bins, name + "/iter" + std::to_string(i));
    if (outs.size() != results.size())
      c.invalid("has a body with " + std::to_string(outs.size()) + " outputs for " +
                std::to_string(results.size()) + " node outputs");
    for (size_t k = 0; k < outs.size(); ++k) {
      if (isSequence(outs[k])) c.refuse("its body gives a sequence, not a tensor, as output " + std::to_string(k));
      results[k].push_back(outs[k]);
    }
  }
  std::vector<Value*> markers;
  for (List& l : results) markers.push_back(adopt(g, name, std::move(l)));
  return markers;
}

bool isSequenceNode(const onnx::NodeProto& n) {
  static const std::set<std::string> ops = {"SequenceEmpty", "SequenceConstruct", "SequenceInsert", "SequenceAt",
                                            "SequenceErase", "SequenceLength", "ConcatFromSequence",
                                            "SplitToSequence"};
  return (n.domain().empty() || n.domain() == "ai.onnx") && ops.count(n.op_type()) != 0;
}

std::vector<Value*> Sequences::lower(Graph& g, frontend::ImportEval& ev, const onnx::NodeProto& n,
                                     const std::string& name, const std::vector<Value*>& ins) {
  SeqCtx c{g, ev, n, name, ins};
  const std::string& op = n.op_type();
  auto seq = [&](size_t i) -> const List& {
    auto it = c.in(i) ? lists_.find(c.in(i)) : lists_.end();
    if (it == lists_.end()) c.refuse("input " + std::to_string(i) + " is not a sequence made in this model");
    return it->second;
  };
  auto make = [&](List l) { return std::vector<Value*>{adopt(g, name, std::move(l))}; };
  // the runtime's sequences: one made at run time, a position or split sizes fed at run time
  const bool rtPos = (op == "SequenceInsert" && c.in(2) && !ev.constantOf(c.in(2))) ||
                     ((op == "SequenceAt" || op == "SequenceErase") && c.in(1) && !ev.constantOf(c.in(1)));
  if (splitsAtRunTime(c) || (op != "SplitToSequence" && isSequence(c.in(0)) && (isRuntime(c.in(0)) || rtPos)))
    return lowerRuntime(g, ev, n, name, ins);
  if (op == "SequenceEmpty") return make({});
  if (op == "SequenceConstruct") {
    for (Value* v : ins)
      if (!v || isSequence(v)) c.refuse("its inputs must be tensors");
    return make(ins);
  }
  if (op == "SplitToSequence") {
    if (!c.in(0) || isSequence(c.in(0))) c.refuse("its input must be a tensor");
    return make(splitToSequence(c, c.in(0)));
  }
  List l = seq(0);
  const int64_t size = (int64_t)l.size();
  if (op == "SequenceLength") return {g.newConstant(name, makeIntTensor({size}, DType::I64, true))};
  if (op == "SequenceAt") {
    if (!c.in(1)) c.invalid("has no position");
    return {l[(size_t)position(c, 1, size, false, 0)]};
  }
  if (op == "ConcatFromSequence") return {concatFromSequence(c, l)};
  if (op == "SequenceErase") {
    if (size == 0) c.invalid("erases from an empty sequence");
    l.erase(l.begin() + position(c, 1, size, false, size - 1));
    return make(std::move(l));
  }
  // SequenceInsert
  if (!c.in(1) || isSequence(c.in(1))) c.refuse("it inserts something that is not a tensor");
  l.insert(l.begin() + position(c, 2, size, true, size), c.in(1));
  return make(std::move(l));
}

}  // namespace onnxfe
}  // namespace atc
