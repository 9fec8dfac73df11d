// See onnx_composite.h.
#include "frontends/onnx/onnx_composite.h"

#include <algorithm>

#include "frontends/onnx/onnx_control_flow.h"
#include "frontends/onnx/onnx_tensor.h"
#include "support/diagnostics.h"

namespace atc {
namespace onnxfe {
namespace {

const char* kSequenceSolution =
    "Declare the elements with --input_shape=\"NAME[0]:d0,d1;NAME[1]:d0,d1\" (one entry per element, numbered from "
    "0; an empty sequence: \"NAME[]:\"); see docs/frontend-onnx.md, \"Sequences and optionals\".";

std::string solutionFor(const std::string& name) {
  std::string s = kSequenceSolution;
  for (size_t at = s.find("NAME"); at != std::string::npos; at = s.find("NAME", at + name.size()))
    s.replace(at, 4, name);
  return s;
}

// The element numbers of the --input_shape entries "name[i]" (any order), or -1 for one that
// is not a number.
std::vector<int64_t> declaredElements(const std::string& name,
                                      const std::map<std::string, std::vector<int64_t>>& shapes) {
  std::vector<int64_t> idx;
  const std::string prefix = name + "[";
  for (auto it = shapes.lower_bound(prefix); it != shapes.end() && it->first.compare(0, prefix.size(), prefix) == 0;
       ++it) {
    std::string rest = it->first.substr(prefix.size());
    if (rest.size() < 2 || rest.back() != ']') continue;  // "name[]" or another input's name
    rest.pop_back();
    bool digits =
        rest.size() <= 9 && std::all_of(rest.begin(), rest.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    idx.push_back(digits ? std::stoll(rest) : -1);
  }
  std::sort(idx.begin(), idx.end());
  return idx;
}

Value* copyTo(Graph& g, Value* x, const std::string& name) {
  Value* out = g.newValue(name);
  g.addNode("Identity", g.uniqueNodeName(name), {x}, {out});
  return out;
}

// A new value named `name` (the model's name for an output; a placeholder that held it takes
// the new value's generated name).
Value* outputNamed(Graph& g, const std::string& name) {
  Value* out = g.newValue(name);
  if (out->name != name)
    if (Value* held = g.findValue(name)) g.swapNames(out, held);
  return out;
}

[[noreturn]] void refuseSelect(const std::string& name, const std::string& why) {
  throw AtcError("E19010",
                 "Op [" + name + ", If] cannot be compiled: its condition is only known at run time and " + why + ".",
                 "atc lowers control flow at compile time (docs/frontend-onnx.md, \"Sequences and optionals\").");
}

}  // namespace

TensorType tensorInputType(const std::string& name, const onnx::TypeProto_Tensor& t) {
  TensorType tt;
  if (!dtypeFromOnnx(t.elem_type(), &tt.dtype))
    throw AtcError(
        "E19010",
        "Input [" + name + "] has the element type " + onnxTypeName(t.elem_type()) + ", which is not supported.",
        "Use numeric or bool inputs.");
  if (t.has_shape()) {
    tt.shapeKnown = true;
    for (const auto& d : t.shape().dim())
      tt.shape.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : -1);
  }
  return tt;
}

std::vector<Value*> Composites::elementInputs(Graph& g, const std::string& name, const onnx::TypeProto& elem,
                                              const std::map<std::string, std::vector<int64_t>>& shapes,
                                              std::vector<Value*>* inputs, std::set<std::string>* consumed) {
  if (!elem.has_tensor_type())
    throw AtcError("E19010", "Input [" + name + "] is a sequence of sequences, maps or optionals.",
                   "Use a sequence of tensors.");
  std::vector<int64_t> idx = declaredElements(name, shapes);
  if (shapes.count(name + "[]")) {
    if (!idx.empty())
      throw AtcError("E10002",
                     "Parameter [--input_shape] declares the sequence [" + name + "] empty (\"" + name +
                         "[]:\") and gives it elements too.",
                     solutionFor(name));
    consumed->insert(name + "[]");
    return {};
  }
  if (idx.empty())
    throw AtcError("E10002",
                   "Input [" + name +
                       "] is a sequence, and [--input_shape] does not say how many tensors "
                       "it holds or their shapes.",
                   solutionFor(name));
  for (size_t i = 0; i < idx.size(); ++i)
    if (idx[i] != (int64_t)i)
      throw AtcError("E10002",
                     "Parameter [--input_shape] numbers the elements of the sequence [" + name +
                         "] other than 0, 1, 2, ... (element " + std::to_string(i) +
                         " is missing or a name is not a number).",
                     solutionFor(name));
  std::vector<Value*> l;
  for (size_t i = 0; i < idx.size(); ++i) {
    std::string en = name + "[" + std::to_string(i) + "]";
    Value* v = g.newValue(en, tensorInputType(en, elem.tensor_type()));
    inputs->push_back(v);
    l.push_back(v);
  }
  return l;
}

Value* Composites::importInput(Graph& g, const onnx::ValueInfoProto& in,
                               const std::map<std::string, std::vector<int64_t>>& shapes, std::vector<Value*>* inputs,
                               std::set<std::string>* consumed) {
  const onnx::TypeProto& tp = in.type();
  const std::string& name = in.name();
  if (tp.has_tensor_type()) return nullptr;
  if (tp.has_sequence_type())
    return seqs.adopt(g, name, elementInputs(g, name, tp.sequence_type().elem_type(), shapes, inputs, consumed));
  if (!tp.has_optional_type())
    throw AtcError("E19010",
                   "Input [" + name +
                       "] is not a tensor, a sequence or an optional (maps and sparse "
                       "tensors are not supported).",
                   "Use tensor inputs.");
  const onnx::TypeProto& elem = tp.optional_type().elem_type();
  if (elem.has_tensor_type() && shapes.count(name + "[]")) {  // declared empty
    consumed->insert(name + "[]");
    return opts.adopt(g, name, {boolConstant(g, name + "/has", false), nullptr});
  }
  Value* payload = nullptr;
  if (elem.has_tensor_type()) {
    payload = g.newValue(name, tensorInputType(name, elem.tensor_type()));
    inputs->push_back(payload);
  } else if (elem.has_sequence_type()) {
    if (shapes.count(name + "[]") && declaredElements(name, shapes).empty()) {  // an optional holding nothing
      consumed->insert(name + "[]");
      return opts.adopt(g, name, {boolConstant(g, name + "/has", false), nullptr});
    }
    payload = seqs.adopt(g, name, elementInputs(g, name, elem.sequence_type().elem_type(), shapes, inputs, consumed));
  } else {
    throw AtcError("E19010", "Input [" + name + "] is an optional of a map or of an optional.",
                   "Use an optional tensor or sequence.");
  }
  return opts.adopt(g, name, {boolConstant(g, name + "/has", true), payload});
}

Value* Composites::node(Graph& g, frontend::ImportEval& ev, const std::string& type, const std::vector<Value*>& ins,
                        const std::string& name) {
  std::string nm = g.uniqueNodeName(name);
  Value* out = g.newValue(nm);
  handleReaders_.insert(g.addNode(type, nm, ins, {out}));
  ev.typeOf(out);
  return out;
}

Value* Composites::toHandle(Graph& g, frontend::ImportEval& ev, Value* v, const std::string& name) {
  if (seqs.isSequence(v)) return seqs.handleOf(g, ev, v, name);
  const OptionalValue& o = opts.get(v);
  TensorPtr has = ev.constantOf(o.has);
  if (!o.payload || (has && has->intAt(0) == 0)) return seqs.noHandle(g, name);
  if (!seqs.isSequence(o.payload))
    throw AtcError("E19010",
                   "Optional [" + name + "] holds a tensor, and a loop that runs in the runtime carries only tensors, "
                   "sequences and optionals of sequences.",
                   "Carry the tensor itself, or make the loop's trip count a constant (docs/frontend-onnx.md).");
  Value* h = seqs.handleOf(g, ev, o.payload, name);
  if (has) return h;
  return seqs.adoptRuntime(node(g, ev, "Where", {o.has, h, seqs.noHandle(g, name)}, name + "/optional_handle"),
                           seqs.infoOf(ev, h));
}

Value* Composites::fromHandle(Graph& g, frontend::ImportEval& ev, Value* h, bool optional, const std::string& name,
                              const std::vector<Value*>& from, const Value* loopInput) {
  SeqInfo info;
  if (from.empty()) info.bases.insert(h);  // a loop body's input: what the loop puts in is not known yet
  for (Value* v : from) info = mergeInfo(info, seqs.infoOf(ev, v));
  if (loopInput) info.bases.erase(loopInput);
  seqs.adoptRuntime(h, info);
  if (!optional) return h;
  Value* none = node(g, ev, "Equal", {h, seqs.noHandle(g, name)}, name + "/is_none");
  return opts.adopt(g, name, {node(g, ev, "Not", {none}, name + "/has"), h});
}

void Composites::flattenOutput(Graph& g, Value* v, const std::string& name, std::vector<Value*>* outputs) {
  if (seqs.isRuntime(v)) {  // its tensors: the runtime's (Model::sequenceOutput)
    Node* n = g.addNode("RuntimeSequenceOutput", g.uniqueNodeName(name + "/sequence"), {v}, {outputNamed(g, name)});
    return outputs->push_back(n->outputs[0]);
  }
  if (seqs.isSequence(v)) {
    const std::vector<Value*>& l = seqs.listOf(v);
    for (size_t i = 0; i < l.size(); ++i) outputs->push_back(copyTo(g, l[i], name + "[" + std::to_string(i) + "]"));
    return;
  }
  if (!opts.isOptional(v)) {
    outputs->push_back(v);
    return;
  }
  const OptionalValue& o = opts.get(v);
  outputs->push_back(copyTo(g, o.has, name + "[has]"));
  if (seqs.isRuntime(o.payload)) {  // no tensors when it holds none
    Value* h = g.newValue(g.uniqueNodeName(name + "/handle"));
    handleReaders_.insert(g.addNode("Where", h->name, {o.has, o.payload, seqs.noHandle(g, name)}, {h}));
    Node* n = g.addNode("RuntimeSequenceOutput", g.uniqueNodeName(name + "/sequence"), {h}, {outputNamed(g, name)});
    n->attrs["allow_none"] = int64_t(1);
    return outputs->push_back(n->outputs[0]);
  }
  if (seqs.isSequence(o.payload))
    flattenOutput(g, o.payload, name, outputs);
  else if (o.payload)
    outputs->push_back(copyTo(g, o.payload, name + "[value]"));
}

Value* Composites::select(Graph& g, frontend::ImportEval& ev, Value* cond, Value* t, Value* e,
                          const std::string& name) {
  if (!isComposite(t) && !isComposite(e)) return nullptr;
  if (t == e) return t;
  if (seqs.isSequence(t) && seqs.isSequence(e) &&
      (seqs.isRuntime(t) || seqs.isRuntime(e) || seqs.listOf(t).size() != seqs.listOf(e).size()))
    return seqs.adoptRuntime(node(g, ev, "Where", {cond, seqs.handleOf(g, ev, t, name), seqs.handleOf(g, ev, e, name)},
                                  name + "/select_sequence"),
                             mergeInfo(seqs.infoOf(ev, t), seqs.infoOf(ev, e)));
  if (seqs.isSequence(t) && seqs.isSequence(e)) {
    const std::vector<Value*>& lt = seqs.listOf(t);
    const std::vector<Value*>& le = seqs.listOf(e);
    std::vector<Value*> l;
    for (size_t i = 0; i < lt.size(); ++i) {
      l.push_back(ifConvert(g, ev, cond, lt[i], le[i], name, "element " + std::to_string(i) + " of a sequence"));
    }
    return seqs.adopt(g, name + "/select", std::move(l));
  }
  if (opts.isOptional(t) && opts.isOptional(e)) {
    OptionalValue ot = opts.get(t), oe = opts.get(e), r;
    r.has = ifConvert(g, ev, cond, ot.has, oe.has, name, "whether an optional holds a value");
    if (!ot.payload || !oe.payload)
      r.payload = ot.payload ? ot.payload : oe.payload;
    else if (Value* s = select(g, ev, cond, ot.payload, oe.payload, name))
      r.payload = s;
    else
      r.payload = ifConvert(g, ev, cond, ot.payload, oe.payload, name, "an optional's value");
    return opts.adopt(g, name + "/select", r);
  }
  refuseSelect(name, std::string("one branch gives ") + (isComposite(t) ? "a sequence or optional" : "a tensor") +
                         " and the other " + (isComposite(e) ? "a sequence or optional" : "a tensor"));
}

}  // namespace onnxfe
}  // namespace atc
