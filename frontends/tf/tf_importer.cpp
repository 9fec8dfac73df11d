// Frozen GraphDef -> IR graph. See docs/frontend-tf.md.
#include "frontends/tf/tf_importer.h"

#include <algorithm>
#include <set>

#include "support/log.h"
#include "frontends/common/import_cache.h"
#include "frontends/tf/tf_cond.h"
#include "frontends/tf/tf_convert.h"
#include "frontends/tf/tf_graph_walk.h"
#include "frontends/tf/tf_loader.h"
#include "frontends/tf/tf_tensor.h"
#include "frontends/tf/tf_tensor_array.h"
#include "frontends/tf/tf_while.h"
#include "support/diagnostics.h"
#include "ir/op_registry.h"

namespace atc {
namespace tffe {
namespace {

// Pass-through ops: output i is input i.
bool isPassThrough(const std::string& op) {
  static const std::set<std::string> ops = {"Identity", "IdentityN", "StopGradient", "Snapshot",
                                            "PreventGradient", "CheckNumerics", "EnsureShape"};
  return ops.count(op) != 0;
}
// Ops that produce nothing the graph computes with.
bool isNoData(const std::string& op) { return op == "NoOp" || op == "Assert" || op == "ControlTrigger"; }

// The value of a dead branch (untaken Switch output and everything computed from it).
Value* deadValue() {
  static Value dead;
  return &dead;
}

std::string dimsText(const Shape& s) {
  std::string r;
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r;
}

class TfImporter {
 public:
  TfImporter(const ImportOptions& opts, tfproto::GraphDef& gd) : opts_(opts), gd_(gd), idx_(gd) {}

  std::unique_ptr<Graph> run() {
    g_ = std::make_unique<Graph>();
    g_->name = "tf_graph";
    g_->opsetVersion = 17;
    eval_ = std::make_unique<frontend::ImportEval>(*g_);
    checkInputShapeNames();
    std::vector<std::string> outs = outputNodes();
    std::vector<int> order = requiredNodesInOrder(idx_, outs, &frames_);
    for (size_t f = 0; f < frames_.size(); ++f)
      for (int k : frames_[f].nodes) frameOf_[k] = f;
    checkSupported(order);
    for (int k : order) {
      auto it = frameOf_.find(k);
      if (it == frameOf_.end())
        convertNode(gd_.node(k));
      else if (frames_[it->second].nodes.front() == k)  // a while loop's nodes come together
        unrollFrame(frames_[it->second]);
    }
    setOutputs();
    std::sort(g_->inputs.begin(), g_->inputs.end(), [](Value* a, Value* b) { return a->name < b->name; });
    checkStaticInputs();
    g_->topoSort();
    // The scope passes and TfLayoutSinkingPass run next, as the first passes of the pipeline.
    return std::move(g_);
  }

 private:
  static bool isPlaceholder(const std::string& op) { return op == "Placeholder" || op == "PlaceholderV2"; }

  void checkInputShapeNames() {
    for (const auto& kv : opts_.inputShapes) {
      const auto* n = idx_.find(kv.first);
      if (!n || !(isPlaceholder(n->op()) || n->op() == "PlaceholderWithDefault"))
        throw AtcError("E10016",
                       "Input parameter [--input_shape]'s opname [" + kv.first + "] is not found in model" +
                           (n ? ": it is a " + n->op() + ", not a Placeholder." : "."),
                       "Give the names of Placeholder nodes in --input_shape.");
    }
  }

  std::vector<std::string> outputNodes() {
    std::vector<std::string> outs;
    if (!opts_.outNodeList.empty()) {
      for (const auto& [name, index] : opts_.outNodeList) {
        if (!idx_.find(name))
          throw AtcError("E10016",
                         "Input parameter [--out_nodes]'s opname [" + name +
                             (index >= 0 ? ":" + std::to_string(index) : std::string()) + "] is not found in model.",
                         "Give existing node names with output indices, e.g. --out_nodes=\"node:0\".");
        outs.push_back(name);
      }
      return outs;
    }
    // Default: nodes nobody consumes (data or control), that compute something.
    std::set<std::string> used;
    for (const auto& n : gd_.node())
      for (const auto& s : n.input()) used.insert(parseInputRef(s).node);
    for (const auto& n : gd_.node())
      if (!used.count(n.name()) && !isNoData(n.op()) && !isPlaceholder(n.op()) && n.op() != "Const")
        outs.push_back(n.name());
    if (outs.empty())
      throw AtcError("E10041", "Failed to load the model: the graph has no output node.",
                     "Name the outputs with --out_nodes.");
    return outs;
  }

  void checkSupported(const std::vector<int>& order) {
    const auto& table = converterTable();
    std::vector<std::string> bad;
    std::set<std::string> badTypes;
    std::string cf;
    for (int k : order) {
      const auto& n = gd_.node(k);
      const std::string& op = n.op();
      if (isPassThrough(op) || isNoData(op) || isPlaceholder(op) || op == "PlaceholderWithDefault" ||
          op == "Const" || op == "Switch" || op == "Merge" || table.count(op) || TensorArrays::isTensorArrayOp(op))
        continue;
      if (frameOf_.count(k) && isWhileLoopOp(op)) continue;  // unrolled (tf_while.h)
      if (isControlFlowOp(op) && cf.empty()) cf = op + " [" + n.name() + "]";
      bad.push_back("[" + n.name() + ", " + op + "]");
      badTypes.insert(op);
    }
    if (!cf.empty())
      throw AtcError("E19010", "No parser can convert the TF1 control flow construct " + cf +
                                   ": it is not part of a while loop frame (Enter ... Exit) or of a tf.cond.",
                     "Check that the model is a valid frozen TensorFlow graph, or cut the graph with --out_nodes.");
    if (bad.empty()) return;
    std::string msg = "No parser is registered for Op ";
    for (size_t i = 0; i < bad.size(); ++i) msg += (i ? ", " : "") + bad[i];
    msg += " : unsupported op types: ";
    bool first = true;
    for (const auto& t : badTypes) {
      msg += (first ? "" : ", ") + t;
      first = false;
    }
    throw AtcError("E19010", msg,
                   "These operators are not supported by this version; replace them in the model or cut the "
                   "graph before them with --out_nodes.");
  }

  Value* lookup(const InputRef& r, const tfproto::NodeDef& user) {
    auto it = outputs_.find(r.node);
    if (it == outputs_.end()) internalError("TF input " + r.node + " of " + user.name() + " not converted");
    if (r.index < 0 || r.index >= (int)it->second.size())
      throw AtcError("E10041", "Failed to load the model: node [" + user.name() + "] reads output " +
                                   std::to_string(r.index) + " of node [" + r.node + "], which has " +
                                   std::to_string(it->second.size()) + " output(s).",
                     "Check that the model is a valid frozen TensorFlow graph.");
    return it->second[r.index];
  }

  void convertNode(const tfproto::NodeDef& n) {
    std::vector<Value*> ins, ctrl;  // ctrl: the first output of each control input (its guard)
    for (const auto& s : n.input()) {
      InputRef r = parseInputRef(s);
      if (!r.control) {
        ins.push_back(lookup(r, n));
      } else if (auto it = outputs_.find(r.node); it != outputs_.end() && !it->second.empty()) {
        ctrl.push_back(it->second[0]);
      }
    }
    auto& out = outputs_[n.name()];
    convertNodeData(n, ins);
    if (n.op() == "Merge" || n.op() == "Switch") return;  // they set their outputs' guards
    std::vector<Value*> from, live;
    for (Value* v : ins) if (v != deadValue()) from.push_back(v);
    for (Value* c : ctrl) if (c != deadValue()) from.push_back(c);
    for (Value* o : out) if (o != deadValue()) live.push_back(o);  // dead values carry no guard
    guards_.inherit(live, from);
  }

  void convertNodeData(const tfproto::NodeDef& n, const std::vector<Value*>& ins) {
    const std::string& op = n.op();
    auto& out = outputs_[n.name()];
    bool anyDead = std::any_of(ins.begin(), ins.end(), [](Value* v) { return v == deadValue(); });
    if (op == "Merge" && !anyDead) {
      TfCtx ctx(*g_, n, ins);
      if (guards_.merge(ctx, ins, &out)) return;
    }
    if (op == "Merge") {
      Value* live = nullptr;
      int at = 0;
      for (size_t k = 0; k < ins.size() && !live; ++k)
        if (ins[k] != deadValue()) live = ins[k], at = (int)k;
      if (!live) {
        out = {deadValue(), deadValue()};
        return;
      }
      out = {live, g_->newConstant(n.name() + ":1", makeIntTensor({at}, DType::I32, true))};
      return;
    }
    if (anyDead) {  // a dead branch stays dead (outputs: enough for any index)
      out.assign(8, deadValue());
      return;
    }
    if (op == "Switch") {
      if (ins.size() != 2) TfCtx(*g_, n, ins).invalid("Switch needs data and predicate inputs");
      if (!ins[1]->isConstant()) {  // tf.cond on a run-time predicate: if-conversion (tf_cond.h)
        TfCtx ctx(*g_, n, ins);
        out = guards_.switchOutputs(ctx, ins[0], ins[1]);
        return;
      }
      bool pred = ins[1]->constant->intAt(0) != 0;
      out = {pred ? deadValue() : ins[0], pred ? ins[0] : deadValue()};
      return;
    }
    if (isPassThrough(op)) {
      out = ins;
      return;
    }
    if (isNoData(op)) return;
    if (op == "Const") {
      auto* a = n.attr().count("value") ? &n.attr().at("value") : nullptr;
      if (!a || a->value_case() != tfproto::AttrValue::kTensor)
        TfCtx(*g_, n, ins).invalid("Const has no value tensor");
      TensorPtr t = internConstant(opts_.cache.get(), n.name(), tensorFromTf(a->tensor(), n.name()));
      out = {g_->newConstant(n.name(), t)};
      return;
    }
    if (isPlaceholder(op) || (op == "PlaceholderWithDefault" && opts_.inputShapes.count(n.name()))) {
      out = {placeholder(n)};
      return;
    }
    if (op == "PlaceholderWithDefault") {
      out = ins;
      return;
    }
    TfCtx ctx(*g_, n, ins);
    if (TensorArrays::isTensorArrayOp(op)) {
      out = tensorArrays_.convert(ctx, *eval_);
      return;
    }
    out = converterTable().at(op)(ctx);
  }

  void unrollFrame(const WhileFrame& f) {
    FrameHooks h;
    h.outputs = [this](const std::string& node) -> std::vector<Value*>& { return outputs_[node]; };
    h.lookup = [this](const std::string& input, const tfproto::NodeDef& user) {
      return lookup(parseInputRef(input), user);
    };
    h.convert = [this](const tfproto::NodeDef& n) { convertNode(n); };
    h.dead = deadValue();
    h.isArrayFlow = [this](Value* v) { return tensorArrays_.isFlow(v); };
    h.denseFlow = [this](Value* flow, Value* probe, const tfproto::NodeDef& at) {
      TfCtx ctx(*g_, at, {});
      return tensorArrays_.denseFlow(ctx, flow, probe);
    };
    h.adoptDense = [this](Value* v, const Value* like) { tensorArrays_.adoptDense(v, like); };
    unrollWhileFrame(*g_, idx_, f, *eval_, h);
  }

  Value* placeholder(const tfproto::NodeDef& n) {
    TfCtx ctx(*g_, n, {});
    TensorType tt;
    DType dt = ctx.irType("dtype", DType::F32);
    if (ctx.has("dtype") == false) ctx.invalid("Placeholder has no dtype");
    tt.dtype = dt;
    if (auto* a = ctx.attr("shape"); a && a->value_case() == tfproto::AttrValue::kShape) {
      bool known;
      tt.shape = shapeFromTf(a->shape(), &known);
      tt.shapeKnown = known;
    }
    auto it = opts_.inputShapes.find(n.name());
    if (it != opts_.inputShapes.end()) {
      if (tt.shapeKnown && tt.rank() != (int64_t)it->second.size())
        throw AtcError("E10002",
                       "Value [" + n.name() + ":" + dimsText(it->second) +
                           "] for parameter [--input_shape] is invalid. Reason: the Placeholder [" + n.name() +
                           "] has rank " + std::to_string(tt.rank()) + " but " +
                           std::to_string(it->second.size()) + " dims were given.",
                       "Give one dim per dimension of the input.");
      tt.shape = it->second;
      tt.shapeKnown = true;
    }
    Value* v = g_->newValue(n.name(), tt);
    g_->inputs.push_back(v);
    checkStatic(v);
    return v;
  }

  void setOutputs() {
    auto take = [&](const std::string& name, int index, bool explicitIndex) {
      auto it = outputs_.find(name);
      const auto& outs = it->second;
      if (index >= (int)outs.size() || (!explicitIndex && outs.empty()))
        throw AtcError("E10016",
                       "Input parameter [--out_nodes]'s opname [" + name + ":" + std::to_string(index) +
                           "] is not found in model: node [" + name + "] has " + std::to_string(outs.size()) +
                           " output(s).",
                       "Use an output index smaller than the node's output count.");
      if (outs[index] == deadValue())
        throw AtcError("E19010", "Output [" + name + ":" + std::to_string(index) +
                                     "] is on a branch of a Switch that is never taken.",
                       "Choose outputs on the taken branch with --out_nodes.");
      g_->outputs.push_back(outs[index]);
    };
    if (!opts_.outNodeList.empty()) {
      for (const auto& [name, index] : opts_.outNodeList) take(name, std::max(index, 0), true);
      return;
    }
    for (const auto& name : outputNodes()) {
      const auto& outs = outputs_.at(name);
      for (size_t k = 0; k < outs.size(); ++k)
        if (outs[k] != deadValue()) take(name, (int)k, false);
    }
    if (g_->outputs.empty())
      throw AtcError("E10041", "Failed to load the model: the graph has no output.", "Name the outputs with --out_nodes.");
  }

  void checkStaticInputs() {
    for (Value* in : g_->inputs) checkStatic(in);
  }

  void checkStatic(Value* in) {
    {
      if (in->type.isStatic()) return;
      std::string shape = in->type.shapeKnown ? "[" + dimsText(in->type.shape) + "]" : "unknown rank";
      invalidValue("input [" + in->name + "]", shape,
                   "the Placeholder has unknown dims; a model is compiled for the shapes --input_shape gives.",
                   "Give its shape with --input_shape=\"" + in->name + ":d0,d1,...\" (a range lo~hi, or -1 "
                   "with --dynamic_batch_size, serves several).");
    }
  }

  const ImportOptions& opts_;
  tfproto::GraphDef& gd_;
  GraphIndex idx_;
  std::unique_ptr<Graph> g_;
  std::map<std::string, std::vector<Value*>> outputs_;
  CondGuards guards_;  // tf.cond on run-time predicates (tf_cond.h)
  std::unique_ptr<frontend::ImportEval> eval_;  // loop conditions, TensorArray indices
  std::vector<WhileFrame> frames_;              // while loops, unrolled (tf_while.h)
  std::map<int, size_t> frameOf_;               // node index -> its frame
  TensorArrays tensorArrays_;
};

}  // namespace
}  // namespace tffe

std::unique_ptr<Graph> importTf(const ImportOptions& opts) {
  tfproto::GraphDef gd;
  tffe::loadGraphDef(opts.model, &gd);
  return tffe::TfImporter(opts, gd).run();
}

std::unique_ptr<Graph> importTfFromBytes(const std::string& bytes, const ImportOptions& opts) {
  tfproto::GraphDef gd;
  tffe::parseGraphDef(bytes, opts.model.empty() ? "<memory>" : opts.model, &gd);
  return tffe::TfImporter(opts, gd).run();
}

}  // namespace atc
