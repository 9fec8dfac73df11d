// See onnx_control_flow.h.
#include "frontends/onnx/onnx_control_flow.h"

#include <algorithm>

#include "ir/op_registry.h"
#include "support/diagnostics.h"

namespace atc {
namespace onnxfe {
namespace {

struct Ctx {
  Graph& g;
  frontend::ImportEval& ev;
  const BodyImporter& importBody;
  const BranchSelector& select;
  const CompositeCarrier& composite;
  const onnx::NodeProto& n;
  const std::string& name;

  [[noreturn]] void refuse(const std::string& why) const {
    throw AtcError("E19010",
                   "Op [" + name + ", " + n.op_type() + "] cannot be compiled: " + why + ".",
                   "atc lowers control flow at compile time (docs/frontend-onnx.md, \"Control flow\"); "
                   "give static input shapes with --input_shape, or export the model without it.");
  }
  [[noreturn]] void invalid(const std::string& why) const {
    throw AtcError("E10041", "Failed to load the model: node [" + name + "] (" + n.op_type() + ") " + why + ".",
                   "Check that the model is a valid ONNX model.");
  }

  const onnx::GraphProto& graphAttr(const std::string& key) const {
    for (const auto& a : n.attribute())
      if (a.name() == key && a.has_g()) return a.g();
    invalid("has no graph attribute " + key);
  }
  std::vector<int64_t> intsAttr(const std::string& key, size_t count, int64_t def) const {
    for (const auto& a : n.attribute())
      if (a.name() == key) {
        std::vector<int64_t> v(a.ints().begin(), a.ints().end());
        if (v.size() != count)
          invalid("has " + std::to_string(v.size()) + " values in " + key + " for " + std::to_string(count) + " tensors");
        return v;
      }
    return std::vector<int64_t>(count, def);
  }
  int64_t intAttr(const std::string& key, int64_t def) const {
    for (const auto& a : n.attribute())
      if (a.name() == key) return a.i();
    return def;
  }
  // A folded scalar, or false when v is not known at compile time.
  bool tryFold(Value* v, const std::string& what, int64_t* out) {
    TensorPtr t = ev.constantOf(v);
    if (!t) return false;
    if (t->type.numel() != 1)
      invalid("has " + what + " with " + std::to_string(t->type.numel()) + " elements (one is required)");
    *out = t->intAt(0);
    return true;
  }

  Value* op(const std::string& type, const std::vector<Value*>& ins, std::map<std::string, AttrValue> attrs,
            const std::string& part) {
    std::string base = name + "/" + part;
    Node* node = g.addNode(type, g.uniqueNodeName(base), ins, {g.newValue(base)});
    node->attrs = std::move(attrs);
    node->originalNames = {name};
    return node->outputs[0];
  }
  Value* constI64(int64_t v, const std::string& part) {
    return g.newConstant(name + "/" + part, makeIntTensor({v}, DType::I64, true));
  }
  const TensorType& staticType(Value* v, const std::string& what) {
    const TensorType& t = ev.typeOf(v);
    if (!t.isStatic()) refuse("the shape of " + what + " is not known at compile time");
    return t;
  }

  // xs[i] with a new axis at `axis`, concatenated there (the stacked scan outputs).
  Value* stack(const std::vector<Value*>& xs, int64_t axis, const std::string& part) {
    int64_t r = staticType(xs[0], "a scan output").rank();
    if (axis < -(r + 1) || axis > r) invalid("has a scan output axis " + std::to_string(axis) + " out of range");
    if (axis < 0) axis += r + 1;
    std::vector<Value*> parts;
    for (size_t i = 0; i < xs.size(); ++i)
      parts.push_back(op("Unsqueeze", {xs[i]}, {{"axes", std::vector<int64_t>{axis}}}, part + "/unsq" + std::to_string(i)));
    if (parts.size() == 1) return parts[0];
    return op("Concat", parts, {{"axis", axis}}, part + "/stack");
  }

  int64_t bodySize(const onnx::GraphProto& body) const {
    int64_t s = body.node_size();
    for (const auto& m : body.node())
      for (const auto& a : m.attribute()) {
        if (a.has_g()) s += bodySize(a.g());
        for (const auto& sg : a.graphs()) s += bodySize(sg);
      }
    return std::max<int64_t>(s, 1);
  }
  bool withinBudget(int64_t iterations, const onnx::GraphProto& body) const {
    return iterations <= kMaxUnrolledNodes / bodySize(body);
  }
  void checkBudget(int64_t iterations, const onnx::GraphProto& body) const {
    int64_t size = bodySize(body);
    if (iterations > kMaxUnrolledNodes / size)
      refuse(std::to_string(iterations) + " iterations of a " + std::to_string(size) +
             "-node body would unroll to more than " + std::to_string(kMaxUnrolledNodes) + " nodes");
  }
};

}  // namespace

Value* ifConvert(Graph& g, frontend::ImportEval& ev, Value* cond, Value* t, Value* e, const std::string& name,
                 const std::string& what) {
  if (t == e) return t;
  const TensorType& tt = ev.typeOf(t);
  const TensorType& et = ev.typeOf(e);
  if (!tt.isStatic() || !et.isStatic() || !(tt == et))
    throw AtcError("E19010",
                   "Op [" + name + ", If] cannot be compiled: its condition is only known at run time, so both "
                   "branches run and " + what +
                       " is selected, which needs the same static type from both; then_branch gives " +
                       (tt.shapeKnown ? tt.str() : "an unknown shape") + ", else_branch " +
                       (et.shapeKnown ? et.str() : "an unknown shape") + ".",
                   "atc lowers control flow at compile time (docs/frontend-onnx.md, \"Control flow\"); "
                   "give static input shapes with --input_shape, or export the model without it.");
  std::string base = name + "/select";
  Node* node = g.addNode("Where", g.uniqueNodeName(base), {cond, t, e}, {g.newValue(base)});
  node->originalNames = {name};
  return node->outputs[0];
}

namespace {

std::vector<Value*> lowerIf(Ctx& c, const std::vector<Value*>& ins) {
  const onnx::GraphProto& thenG = c.graphAttr("then_branch");
  const onnx::GraphProto& elseG = c.graphAttr("else_branch");
  if (ins.empty() || !ins[0]) c.invalid("has no condition input");
  if (TensorPtr k = c.ev.constantOf(ins[0])) {
    if (k->type.numel() != 1) c.invalid("has a condition of " + std::to_string(k->type.numel()) + " elements");
    bool taken = k->intAt(0) != 0;
    return c.importBody(taken ? thenG : elseG, {}, c.name + (taken ? "/then" : "/else"));
  }
  const TensorType& ct = c.staticType(ins[0], "the condition");
  if (ct.numel() != 1 || ct.dtype != DType::Bool) c.invalid("has a condition of type " + ct.str() + " (one bool is required)");
  std::vector<Value*> t = c.importBody(thenG, {}, c.name + "/then");
  std::vector<Value*> e = c.importBody(elseG, {}, c.name + "/else");
  if (t.size() != e.size() || (int)t.size() != c.n.output_size())
    c.invalid("has branches with " + std::to_string(t.size()) + " and " + std::to_string(e.size()) +
              " outputs for " + std::to_string(c.n.output_size()) + " node outputs");
  Value* cond = c.op("Reshape", {ins[0], c.g.newConstant(c.name + "/scalar_shape", makeIntTensor({}, DType::I64))}, {},
                     "cond");
  std::vector<Value*> outs;
  for (size_t k = 0; k < t.size(); ++k) {
    Value* sel = c.select ? c.select(cond, t[k], e[k], c.name) : nullptr;
    outs.push_back(sel ? sel : ifConvert(c.g, c.ev, cond, t[k], e[k], c.name, "output " + std::to_string(k)));
  }
  return outs;
}

// The loop in the runtime (ops/control/loop_ops.cpp): LoopBegin, the body imported once, LoopEnd.
std::vector<Value*> runtimeLoop(Ctx& c, const onnx::GraphProto& body, const std::vector<Value*>& ins,
                                int64_t nCarried) {
  std::vector<Value*> beginIns = {ins.size() > 0 ? ins[0] : nullptr, ins.size() > 1 ? ins[1] : nullptr};
  beginIns.insert(beginIns.end(), ins.begin() + std::min<size_t>(ins.size(), 2), ins.end());
  // a carried sequence or optional travels as a handle (ops/control/sequence_ops.cpp)
  std::vector<bool> composite((size_t)nCarried, false);
  for (int64_t k = 0; k < nCarried; ++k) {
    Value*& v = beginIns[(size_t)(2 + k)];
    if (!v || !c.composite.is || !c.composite.is(v)) continue;
    composite[(size_t)k] = true;
    v = c.composite.toHandle(v, c.name + "/carried" + std::to_string(k));
  }
  std::vector<Value*> bodyIns = {c.g.newValue(c.name + "/iteration_num"), c.g.newValue(c.name + "/cond_in")};
  for (int64_t k = 0; k < nCarried; ++k) bodyIns.push_back(c.g.newValue(c.name + "/carried" + std::to_string(k)));
  Node* begin = c.g.addNode("LoopBegin", c.g.uniqueNodeName(c.name + "/begin"), beginIns, bodyIns);
  begin->attrs["_carried"] = nCarried;
  begin->originalNames = {c.name};
  std::vector<Value*> bodyView = bodyIns;
  for (int64_t k = 0; k < nCarried; ++k)
    if (composite[(size_t)k])
      bodyView[(size_t)(2 + k)] = c.composite.fromHandle(
          bodyIns[(size_t)(2 + k)], c.composite.isOptional(ins[(size_t)(2 + k)]), c.name, {}, nullptr);
  std::vector<Value*> outs = c.importBody(body, bodyView, c.name + "/body");
  std::vector<bool> optionalOut((size_t)nCarried, false);
  for (size_t k = 1; k < outs.size(); ++k) {
    bool isComp = outs[k] && c.composite.is && c.composite.is(outs[k]);
    if ((int64_t)k > nCarried) {
      if (isComp)
        c.refuse("its body gives a sequence or an optional as scan output " + std::to_string(k - 1 - nCarried));
      continue;
    }
    if (isComp != composite[k - 1])
      c.refuse("loop-carried value " + std::to_string(k - 1) + " enters the body as a " +
               (composite[k - 1] ? "sequence or optional" : "tensor") + " and leaves it as a " +
               (isComp ? "sequence or optional" : "tensor"));
    if (!isComp) continue;
    optionalOut[k - 1] = c.composite.isOptional(outs[k]);
    outs[k] = c.composite.toHandle(outs[k], c.name + "/next" + std::to_string(k - 1));
  }
  int64_t always = 0;
  if (!beginIns[0] && !outs.empty() && c.tryFold(outs[0], "the body's condition", &always) && always)
    c.refuse("it has no trip count and its body's condition is always true: it would never end");
  std::vector<Value*> endIns = {bodyIns[0]};
  endIns.insert(endIns.end(), outs.begin(), outs.end());
  std::vector<Value*> results;
  for (size_t k = 1; k < outs.size(); ++k)
    results.push_back(c.g.newValue(c.name + ((int64_t)k <= nCarried ? "/final" : "/scan") + std::to_string(k - 1)));
  Node* end = c.g.addNode("LoopEnd", c.g.uniqueNodeName(c.name + "/end"), endIns, results);
  end->attrs["_carried"] = nCarried;
  end->originalNames = {c.name};
  // the loop's types at import (ImportEval infers a node alone, and LoopEnd needs its LoopBegin);
  // an error here is reported by the passes, with the whole graph's types
  for (Value* v : endIns)
    if (v) c.ev.typeOf(v);
  try {
    inferNode(c.g, *end);
  } catch (const AtcError&) {
  }
  for (int64_t k = 0; k < nCarried; ++k)  // what the loop gives: the initial tensors and those the body adds
    if (composite[(size_t)k]) {
      results[(size_t)k]->type = TensorType(DType::I64, {});  // a handle, however the rest of the loop typed
      results[(size_t)k] =
          c.composite.fromHandle(results[(size_t)k], optionalOut[(size_t)k], c.name,
                                 {beginIns[(size_t)(2 + k)], outs[(size_t)(1 + k)]}, bodyIns[(size_t)(2 + k)]);
    }
  results.resize((size_t)c.n.output_size());
  return results;
}

std::vector<Value*> lowerLoop(Ctx& c, const std::vector<Value*>& ins) {
  const onnx::GraphProto& body = c.graphAttr("body");
  Value* m = ins.size() > 0 ? ins[0] : nullptr;
  Value* cond = ins.size() > 1 ? ins[1] : nullptr;
  std::vector<Value*> carried(ins.begin() + std::min<size_t>(ins.size(), 2), ins.end());
  const int64_t nCarried = (int64_t)carried.size();
  if (body.input_size() != nCarried + 2) c.invalid("has a body with " + std::to_string(body.input_size()) +
                                                   " inputs for " + std::to_string(nCarried) + " loop-carried values");
  const int64_t nScan = body.output_size() - 1 - nCarried;
  if (nScan < 0 || c.n.output_size() > nCarried + nScan)
    c.invalid("has a body with " + std::to_string(body.output_size()) + " outputs for " + std::to_string(nCarried) +
              " loop-carried values");
  if (!m && !cond) c.refuse("it has neither a trip count nor a condition (an infinite loop)");
  // Unrolled when the trip count and every condition fold and the iterations fit the budget;
  // otherwise the loop runs in the runtime (runtimeLoop).
  int64_t trip = INT64_MAX, go = 1;
  if ((m && !c.tryFold(m, "the trip count M", &trip)) || (cond && !c.tryFold(cond, "the initial condition", &go)) ||
      (m && !c.withinBudget(std::max<int64_t>(trip, 0), body)))
    return runtimeLoop(c, body, ins, nCarried);
  std::vector<Value*> init = carried;
  std::vector<std::vector<Value*>> scans((size_t)nScan);
  for (int64_t i = 0; go && i < trip; ++i) {
    if (!m && !c.withinBudget(i + 1, body)) return runtimeLoop(c, body, ins, nCarried);
    std::string it = "iter" + std::to_string(i);
    std::vector<Value*> bodyIns = {c.constI64(i, it + "/i"),
                                   c.g.newConstant(c.name + "/" + it + "/cond", makeScalar(1, DType::Bool))};
    bodyIns.insert(bodyIns.end(), carried.begin(), carried.end());
    std::vector<Value*> outs = c.importBody(body, bodyIns, c.name + "/" + it);
    std::copy(outs.begin() + 1, outs.begin() + 1 + nCarried, carried.begin());
    for (int64_t k = 0; k < nScan; ++k) scans[(size_t)k].push_back(outs[(size_t)(1 + nCarried + k)]);
    // a condition only a run knows: the iterations unrolled so far are dropped (dead code)
    if (!c.tryFold(outs[0], "the condition computed by iteration " + std::to_string(i) + " of the body", &go))
      return runtimeLoop(c, body, ins, nCarried);
  }
  std::vector<Value*> result = carried;
  for (int64_t k = 0; k < nScan; ++k) {
    if (scans[(size_t)k].empty()) return runtimeLoop(c, body, ins, nCarried);  // an empty scan output: [0, ...]
    result.push_back(c.stack(scans[(size_t)k], 0, "scan" + std::to_string(k)));
  }
  result.resize((size_t)c.n.output_size());
  return result;
}

struct ScanSpec {
  std::vector<int64_t> inAxes, inDirs, outAxes, outDirs;
};

// One Scan over tensors whose scan axes are spec.inAxes; returns final states, then scan outputs.
std::vector<Value*> unrollScan(Ctx& c, const onnx::GraphProto& body, std::vector<Value*> states,
                               const std::vector<Value*>& xs, const ScanSpec& spec, const std::string& part) {
  int64_t len = -1;
  std::vector<int64_t> axes;
  for (size_t j = 0; j < xs.size(); ++j) {
    const TensorType& t = c.staticType(xs[j], "scan input " + std::to_string(j));
    int64_t a = spec.inAxes[j] < 0 ? spec.inAxes[j] + t.rank() : spec.inAxes[j];
    if (a < 0 || a >= t.rank()) c.invalid("has a scan input axis " + std::to_string(spec.inAxes[j]) + " out of range");
    if (len >= 0 && t.shape[(size_t)a] != len) c.invalid("has scan inputs of different lengths");
    len = t.shape[(size_t)a];
    axes.push_back(a);
  }
  if (len <= 0) c.refuse("its scan length is 0");
  c.checkBudget(len, body);
  const size_t nState = states.size();
  const size_t nScanOut = (size_t)body.output_size() - nState;
  std::vector<std::vector<Value*>> scans(nScanOut);
  for (int64_t t = 0; t < len; ++t) {
    std::string it = part + "iter" + std::to_string(t);
    std::vector<Value*> bodyIns = states;
    for (size_t j = 0; j < xs.size(); ++j) {
      int64_t at = spec.inDirs[j] ? len - 1 - t : t;
      Value* idx = c.constI64(at, it + "/idx" + std::to_string(j));
      bodyIns.push_back(c.op("Gather", {xs[j], idx}, {{"axis", axes[j]}}, it + "/x" + std::to_string(j)));
    }
    std::vector<Value*> outs = c.importBody(body, bodyIns, c.name + "/" + it);
    std::copy(outs.begin(), outs.begin() + (long)nState, states.begin());
    for (size_t k = 0; k < nScanOut; ++k) scans[k].push_back(outs[nState + k]);
  }
  std::vector<Value*> result = states;
  for (size_t k = 0; k < nScanOut; ++k) {
    if (spec.outDirs[k]) std::reverse(scans[k].begin(), scans[k].end());
    result.push_back(c.stack(scans[k], spec.outAxes[k], part + "scan" + std::to_string(k)));
  }
  return result;
}

std::vector<Value*> lowerScan(Ctx& c, const std::vector<Value*>& insIn, int64_t opset) {
  const onnx::GraphProto& body = c.graphAttr("body");
  std::vector<Value*> ins = insIn;
  if (opset < 9) {  // Scan-8: sequence_lens first, a batch axis on every state and scan input
    if (!ins.empty() && ins[0]) c.refuse("sequence_lens is given (Scan-8); export with opset 9 or newer");
    if (!ins.empty()) ins.erase(ins.begin());
  }
  for (Value* v : ins)
    if (!v) c.invalid("has an absent state or scan input");
  int64_t nScanIn = c.intAttr("num_scan_inputs", -1);
  int64_t nState = (int64_t)ins.size() - nScanIn;
  if (nScanIn < 1 || nState < 0) c.invalid("has num_scan_inputs " + std::to_string(nScanIn) + " for " +
                                           std::to_string(ins.size()) + " inputs");
  if (body.input_size() != (int64_t)ins.size() || body.output_size() < nState || c.n.output_size() > body.output_size())
    c.invalid("has a body whose inputs or outputs do not match the node's");
  const size_t nScanOut = (size_t)(body.output_size() - nState);
  std::vector<Value*> states(ins.begin(), ins.begin() + nState), xs(ins.begin() + nState, ins.end());
  ScanSpec spec;
  if (opset >= 9) {
    spec.inAxes = c.intsAttr("scan_input_axes", xs.size(), 0);
    spec.inDirs = c.intsAttr("scan_input_directions", xs.size(), 0);
    spec.outAxes = c.intsAttr("scan_output_axes", nScanOut, 0);
    spec.outDirs = c.intsAttr("scan_output_directions", nScanOut, 0);
    std::vector<Value*> r = unrollScan(c, body, states, xs, spec, "");
    r.resize((size_t)c.n.output_size());
    return r;
  }
  spec.inAxes.assign(xs.size(), 0);
  spec.inDirs = c.intsAttr("directions", xs.size(), 0);
  spec.outAxes.assign(nScanOut, 0);
  spec.outDirs.assign(nScanOut, 0);
  int64_t batch = -1;
  for (size_t j = 0; j < ins.size(); ++j) {
    const TensorType& t = c.staticType(ins[j], "input " + std::to_string(j));
    if (t.rank() < 1 || (batch >= 0 && t.shape[0] != batch))
      c.invalid("(opset 8) has inputs without the same batch axis");
    batch = t.shape[0];
  }
  c.checkBudget(batch, body);
  std::vector<std::vector<Value*>> perBatch(ins.size() - (size_t)nScanIn + nScanOut);
  for (int64_t b = 0; b < batch; ++b) {
    std::string bp = "b" + std::to_string(b) + "/";
    auto slice = [&](Value* v, size_t j) {
      return c.op("Gather", {v, c.constI64(b, bp + "bidx" + std::to_string(j))}, {{"axis", int64_t(0)}},
                  bp + "in" + std::to_string(j));
    };
    std::vector<Value*> sb, xb;
    for (size_t j = 0; j < states.size(); ++j) sb.push_back(slice(states[j], j));
    for (size_t j = 0; j < xs.size(); ++j) xb.push_back(slice(xs[j], states.size() + j));
    std::vector<Value*> r = unrollScan(c, body, sb, xb, spec, bp);
    for (size_t k = 0; k < r.size(); ++k) perBatch[k].push_back(r[k]);
  }
  std::vector<Value*> result;
  for (size_t k = 0; k < perBatch.size(); ++k) result.push_back(c.stack(perBatch[k], 0, "batch" + std::to_string(k)));
  result.resize((size_t)c.n.output_size());
  return result;
}

}  // namespace

bool isControlFlowNode(const onnx::NodeProto& n) {
  if (!n.domain().empty() && n.domain() != "ai.onnx") return false;
  return n.op_type() == "If" || n.op_type() == "Loop" || n.op_type() == "Scan";
}

std::vector<Value*> lowerControlFlow(Graph& g, frontend::ImportEval& ev, const BodyImporter& importBody,
                                     const BranchSelector& select, const CompositeCarrier& composite,
                                     const onnx::NodeProto& n, const std::string& name,
                                     const std::vector<Value*>& ins, int64_t opset) {
  Ctx c{g, ev, importBody, select, composite, n, name};
  std::vector<Value*> outs;
  if (n.op_type() == "If") outs = lowerIf(c, ins);
  else if (n.op_type() == "Loop") outs = lowerLoop(c, ins);
  else outs = lowerScan(c, ins, opset);
  if ((int)outs.size() != n.output_size())
    c.invalid("has " + std::to_string(n.output_size()) + " outputs where its body gives " + std::to_string(outs.size()));
  return outs;
}

}  // namespace onnxfe
}  // namespace atc
