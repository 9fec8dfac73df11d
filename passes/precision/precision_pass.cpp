// PrecisionPass: decides the dtype of every floating-point node from the global precision
// mode, the target profile's op-info (dtypes per op, precision_reduce list membership),
// --modify_mixlist, --keep_dtype and --customize_dtypes; converts constant inputs at compile
// time, inserts Cast nodes at dtype boundaries (one per value and dtype, Cast pairs that
// cancel are never created), and records each decision on the node (_dtype_in, _dtype_out,
// _precision_reason: stored in the .om, shown by --mode=1 and --log=info). docs/precision.md.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "support/log.h"
#include "support/diagnostics.h"
#include "ir/op_registry.h"
#include "passes/pass.h"

namespace atc {
namespace {

using json = nlohmann::json;

bool isFp(DType t) { return t == DType::F32 || t == DType::F16 || t == DType::BF16; }



struct Decision {
  DType in = DType::Undefined, out = DType::Undefined;
  std::string reason;
};

// Float dtypes an op's input/output slot supports per the op-info (empty json: not listed).
std::set<DType> slotDtypes(const json& info, const char* key, size_t i) {
  std::set<DType> s;
  if (!info.contains(key) || !info[key].is_array() || info[key].empty()) return s;
  const json& arr = info[key];
  const json& slot = arr[std::min(i, arr.size() - 1)];
  for (auto& d : slot.value("dtype", json::array())) {
    DType t;
    if (d.is_string() && dtypeFromName(d.get<std::string>(), &t)) s.insert(t);
  }
  return s;
}

std::string dn(DType t) { return dtypeName(t); }

// The float dtypes an op's kernels store when the op-info does not list the op: float32 and
// the OpDef's reducedFloats (ir/op_registry.h).
std::set<DType> kernelFloats(const OpDef* def) {
  std::set<DType> s{DType::F32};
  if (def) s.insert(def->reducedFloats.begin(), def->reducedFloats.end());
  return s;
}

// A run-sized output (docs/dynamic-shapes.md): the node keeps its dtype under every mode, so
// that no Cast has to read the value.
bool runSizedOutput(const Node& n) {
  for (const Value* o : n.outputs)
    if (isRunSized(o)) return true;
  return false;
}

// Whether an unlisted node n with model dtype O may change dtype: its kernels store narrow
// floats (for this node: OpDef::narrowIf) and O is one of its kernel floats (a float64 op keeps
// float64).
bool narrowCapable(const OpDef* def, const Node& n, DType O) {
  return def && !def->reducedFloats.empty() && kernelFloats(def).count(O) && (!def->narrowIf || def->narrowIf(n));
}

std::string listDtypes(const std::set<DType>& s) {
  std::string r;
  for (DType t : s) r += (r.empty() ? "" : ", ") + dn(t);
  return r.empty() ? "nothing" : r;
}

class PrecisionPass {
 public:
  PrecisionPass(Graph& g, PassContext& ctx) : g_(g), ctx_(ctx), mode_(ctx.opts.precision.mode) {}

  bool run() {
    if (ctx_.target) opInfo_ = ctx_.target->opInfo;
    if (!opInfo_.is_object()) opInfo_ = json::object();
    const PrecisionOptions& po = ctx_.opts.precision;
    mix_ = po.mixlist;
    bool userLists = mode_ != PrecMode::Origin;  // no effect under must_keep_origin_dtype / origin
    if (userLists) keep_ = po.keepDtype;
    if (userLists) cust_ = po.customizeDtypes;
    reduced_ = (mode_ == PrecMode::MixBf16 || mode_ == PrecMode::AllowFp32ToBf16) ? DType::BF16 : DType::F16;
    g_.topoSort();
    for (auto& v : g_.values()) orig_[v.get()] = v->type.dtype;
    for (auto& n : g_.nodes())
      for (auto* in : n->inputs)
        if (in) uses_[in]++;
    for (auto* o : g_.outputs) uses_[o]++;
    applyInputFp16();
    checkListsMatch();
    std::vector<Node*> order;
    for (auto& n : g_.nodes()) order.push_back(n.get());
    for (Node* n : order) processNode(*n);
    fixGraphOutputs();
    g_.topoSort();
    g_.pruneValues();  // the constants released by dropUse
    return changed_;
  }

 private:
  Graph& g_;
  PassContext& ctx_;
  PrecMode mode_;
  DType reduced_ = DType::F16;
  json opInfo_ = json::object();
  MixlistMods mix_;
  std::vector<PrecLine> keep_, cust_;
  std::map<const Value*, DType> orig_;
  std::map<const Node*, Decision> dec_;
  std::map<std::pair<Value*, DType>, Value*> converted_;
  std::map<Value*, Value*> castSource_;  // value made by an inserted Cast -> its input
  std::map<const Value*, int> uses_;     // input slots and graph outputs reading each value
  bool changed_ = false;

  // A node input slot stopped reading v. A constant nobody reads any more (all its readers
  // took a converted copy) frees its data now, not after the pass: atc's peak memory stays
  // near the weights plus their reduced copies one tensor at a time, not both sets whole.
  void dropUse(Value* v) {
    auto it = uses_.find(v);
    if (it != uses_.end() && --it->second == 0 && v->isConstant()) v->constant.reset();
  }

  bool matches(const PrecLine& l, const Node& n) const {
    if (l.isType) return n.type == l.name;
    if (n.name == l.name) return true;
    return std::find(n.originalNames.begin(), n.originalNames.end(), l.name) != n.originalNames.end();
  }

  void checkListsMatch() {
    auto check = [&](const std::vector<PrecLine>& lines, const char* opt) {
      for (auto& l : lines) {
        bool any = false;
        for (auto& n : g_.nodes()) any = any || matches(l, *n);
        if (!any)
          throw AtcError("E10003",
                         std::string("The content of --") + opt + " is invalid. Reason: line " + std::to_string(l.line) +
                             " [" + (l.isType ? "OpType::" : "") + l.name + "] matches no op of the model.",
                         "Use op names (also the names of ops before fusion) or OpType::<type> of ops in the model.");
      }
    };
    check(keep_, "keep_dtype");
    check(cust_, "customize_dtypes");
  }

  void applyInputFp16() {
    for (auto& name : ctx_.opts.precision.inputFp16Nodes) {
      Value* found = nullptr;
      for (Value* v : g_.inputs)
        if (v->name == name) found = v;
      if (!found)
        throw AtcError("E10016", "Input [" + name + "] of --input_fp16_nodes is not an input of the model.",
                       "Use names of the model's inputs.");
      if (!isFp(found->type.dtype))
        invalidParam("input_fp16_nodes", name, "the input is " + dn(found->type.dtype) + ", not floating point.",
                     "List floating-point inputs only.");
      found->type.dtype = DType::F16;
      changed_ = true;
    }
  }

  // -1 black, 1 white, 0 grey (op-info precision_reduce, then --modify_mixlist).
  int listOf(const std::string& type) const {
    int l = 0;
    if (opInfo_.contains(type)) {
      const json& pr = opInfo_[type].value("precision_reduce", json::object());
      if (pr.contains("flag")) {
        const json& f = pr["flag"];
        bool t = f.is_boolean() ? f.get<bool>() : (f.is_string() && f.get<std::string>() == "true");
        l = t ? 1 : -1;
      }
    }
    if (l == -1 && mix_.blackRemove.count(type)) l = 0;
    if (l == 1 && mix_.whiteRemove.count(type)) l = 0;
    if (mix_.blackAdd.count(type)) l = -1;
    if (mix_.whiteAdd.count(type)) l = 1;
    return l;
  }

  [[noreturn]] void noDtype(const Node& n, const std::string& want, const std::set<DType>& sup) {
    throw AtcError("E10001",
                   "Op [" + n.name + "] (" + n.type + ") cannot run in " + want + " under precision mode " +
                       precModeName(mode_) + ": the target profile supports " + listDtypes(sup) + " for it.",
                   "Choose another --precision_mode, or fix --customize_dtypes / --keep_dtype for this op.");
  }

  // The DequantizeLinear node that produces input 0 of n, or null.
  static const Node* dequantizedInput(const Node& n) {
    const Value* v = n.inputs.empty() ? nullptr : n.inputs[0];
    const Node* p = v ? v->producer : nullptr;
    return p && p->type == "DequantizeLinear" ? p : nullptr;
  }

  Decision decide(const Node& n, DType O) {
    const bool listed = opInfo_.contains(n.type);
    const json info = listed ? opInfo_[n.type] : json::object();
    std::set<DType> S = slotDtypes(info, "outputs", 0), SI = slotDtypes(info, "inputs", 0);
    const OpDef* def = OpRegistry::instance().find(n.type);
    const bool narrow = !listed && narrowCapable(def, n, O);
    if (!listed) S = SI = narrow ? kernelFloats(def) : std::set<DType>{O};
    // A listed op whose kernels store narrow floats only for some nodes (OpDef::narrowIf: a
    // Conv with weights computed at run time) keeps the others in float32.
    const bool wide = listed && def && def->narrowIf && !def->narrowIf(n);
    if (wide) {
      for (std::set<DType>* d : {&S, &SI})
        for (DType t : {DType::F16, DType::BF16}) d->erase(t);
    }
    const bool cube = def && def->category == OpCategory::Cube;
    auto has = [&](DType t) { return S.count(t) != 0 && SI.count(t) != 0; };
    auto same = [&](DType t, const std::string& why) { return Decision{t, t, why}; };
    std::string unl = wide     ? " (float16 / bfloat16 kernels need constant weights)"
                      : listed ? ""
                      : narrow ? " (not in the op-info: its kernels' " + listDtypes(S) + ")"
                               : " (not in the op-info: origin dtype only)";
    if (mode_ != PrecMode::Origin) {
      // customize_dtypes: op-name line beats OpType:: line.
      const PrecLine* c = nullptr;
      for (auto& l : cust_)
        if (!l.isType && matches(l, n)) c = &l;
      if (!c)
        for (auto& l : cust_)
          if (l.isType && matches(l, n)) c = &l;
      if (c) {
        Decision d{O, O, "customize_dtypes line " + std::to_string(c->line)};
        if (!c->in.empty()) d.in = c->in[0];
        if (!c->out.empty()) d.out = c->out[0];
        if (!SI.count(d.in)) noDtype(n, "input " + dn(d.in) + " (" + d.reason + ")", SI);
        if (!S.count(d.out)) noDtype(n, "output " + dn(d.out) + " (" + d.reason + ")", S);
        if (!cube && d.in != d.out) noDtype(n, "input " + dn(d.in) + " with output " + dn(d.out), S);
        return d;
      }
      for (auto& l : keep_)
        if (matches(l, n)) {
          if (!has(O)) noDtype(n, dn(O) + " (keep_dtype line " + std::to_string(l.line) + ")", S);
          return same(O, "keep_dtype line " + std::to_string(l.line));
        }
    }
    // A float op whose data input is dequantized (a QDQ model's Conv, MatMul, Add...) is part
    // of the quantized computation: the precision mode does not touch it (docs/quantization.md).
    if (const Node* dq = dequantizedInput(n); dq && has(O))
      return same(O, "quantized: input 0 comes from DequantizeLinear " + dq->name);
    const DType R = reduced_;
    switch (mode_) {
      case PrecMode::Origin:
        if (has(O)) return same(O, "origin dtype" + unl);
        if (O != DType::F32 && has(DType::F32)) return same(DType::F32, dn(O) + " unsupported so float32" + unl);
        noDtype(n, dn(O), SI.count(O) ? S : SI);  // name the slot that lacks O
      case PrecMode::ForceFp16:
        if (has(R)) return same(R, "force_fp16");
        if (has(DType::F32)) return same(DType::F32, "force_fp16: float16 unsupported so float32" + unl);
        noDtype(n, "float16 or float32", S);
      case PrecMode::AllowFp32ToFp16:
      case PrecMode::AllowFp32ToBf16: {
        std::string m = precModeName(mode_);
        if (cube) {
          if (has(R)) return same(R, m + ": cube op in " + dn(R));
          if (has(DType::F32)) return same(DType::F32, m + ": " + dn(R) + " unsupported so float32");
          noDtype(n, dn(R) + " or float32", S);
        }
        if (has(O)) return same(O, m + ": vector op keeps " + dn(O) + unl);
        if (has(R)) return same(R, m + ": " + dn(O) + " unsupported so " + dn(R));
        noDtype(n, dn(O) + " or " + dn(R), S);
      }
      case PrecMode::CubeFp16InFp32Out:
        if (cube) {
          if (SI.count(DType::F16) && S.count(DType::F32))
            return Decision{DType::F16, DType::F32, "cube_fp16in_fp32out: float16 in, float32 out"};
          if (SI.count(DType::F32) && has(DType::F32))
            return same(DType::F32, "cube_fp16in_fp32out: float16-in/float32-out unsupported so float32");
          if (SI.count(DType::F16) && has(DType::F16))
            return same(DType::F16, "cube_fp16in_fp32out: float32 unsupported so float16");
          noDtype(n, "float16/float32", S);
        }
        if (has(DType::F32)) return same(DType::F32, "cube_fp16in_fp32out: vector op in float32" + unl);
        if (has(DType::F16)) return same(DType::F16, "cube_fp16in_fp32out: float32 unsupported so float16");
        noDtype(n, "float32 or float16", S);
      case PrecMode::MixFp16:
      case PrecMode::MixBf16: {
        int l = listOf(n.type);
        if (l > 0) {
          if (has(R)) return same(R, "white list");
          if (has(DType::F32)) return same(DType::F32, "white list, " + dn(R) + " unsupported so float32");
          noDtype(n, dn(R) + " or float32", S);
        }
        if (l < 0) {
          if (has(DType::F32)) return same(DType::F32, "black list");
          noDtype(n, "float32 (black list)", S);
        }
        // Grey: follows the upstream nodes: reduced when every float input comes from a node
        // that chose R (a graph input or a float32 producer keeps it in float32).
        std::string up;
        bool red = false, anyUp = false;
        for (Value* v : n.inputs) {
          if (!v || v->isConstant() || !isFp(v->type.dtype)) continue;
          Value* src = v;
          while (castSource_.count(src)) src = castSource_[src];  // look through inserted casts
          const Node* p = src->producer;
          bool r = p && dec_.count(p) && dec_[p].out == R;
          if (!anyUp || (red && !r)) up = p ? p->name : "graph input " + src->name;
          red = anyUp ? (red && r) : r;
          anyUp = true;
        }
        if (red) {
          if (has(R)) return same(R, "grey list follows upstream node " + up);
          return same(DType::F32, "grey list follows upstream node " + up + ", " + dn(R) + " unsupported so float32");
        }
        if (has(DType::F32)) return same(DType::F32, "grey list follows upstream " + (up.empty() ? std::string("(none)") : up));
        if (has(O)) return same(O, "grey list, origin dtype" + unl);
        noDtype(n, "float32", S);
      }
    }
    return same(O, "origin dtype");
  }

  // v as dtype t: the value itself, a converted constant, or the output of a Cast node.
  Value* as(Value* v, DType t, const std::string& forNode) {
    if (v->type.dtype == t) return v;
    auto key = std::make_pair(v, t);
    auto it = converted_.find(key);
    if (it != converted_.end()) return it->second;
    auto cs = castSource_.find(v);
    if (cs != castSource_.end() && cs->second->type.dtype == t) return cs->second;  // cast pair cancels
    Value* r;
    changed_ = true;
    if (v->isConstant()) {
      const Tensor& src = *v->constant;
      auto t2 = std::make_shared<Tensor>(TensorType(t, src.type.shape));
      int64_t ne = src.type.numel();
      if (src.type.dtype == DType::F32 && t == DType::F16) {
        floatsToHalf(src.as<float>(), t2->as<uint16_t>(), (size_t)ne);
      } else if (src.type.dtype == DType::F32 && t == DType::BF16) {
        floatsToBf16(src.as<float>(), t2->as<uint16_t>(), (size_t)ne);
      } else {
        for (int64_t i = 0; i < ne; ++i) {
          float f = (float)src.floatAt(i);
          if (t == DType::F16) t2->as<uint16_t>()[i] = floatToHalf(f);
          else if (t == DType::BF16) t2->as<uint16_t>()[i] = floatToBf16(f);
          else t2->as<float>()[i] = f;
        }
      }
      r = g_.newConstant(v->name + "_" + dn(t), t2);
    } else {
      r = g_.newValue(v->name + "_" + dn(t), TensorType(t, v->type.shape));
      Node* c = g_.addNode("Cast", g_.uniqueNodeName("cast_" + v->name + "_" + dn(t)), {v}, {r});
      c->attrs["to"] = onnxCodeOf(t);
      c->attrs["_precision_reason"] = std::string("inserted: " + dn(v->type.dtype) + " -> " + dn(t) + " for " + forNode);
      castSource_[r] = v;
      ctx_.stats.effectTimes++;
    }
    converted_[key] = r;
    return r;
  }

  void processNode(Node& n) {
    if (castSource_.count(n.outputs.empty() ? nullptr : n.outputs[0])) return;  // our own Cast
    DType O = DType::Undefined;
    for (Value* o : n.outputs)
      if (o && isFp(orig_[o])) {
        O = orig_[o];
        break;
      }
    const OpDef* def = OpRegistry::instance().find(n.type);
    const bool cube = def && def->category == OpCategory::Cube;
    bool decided = O != DType::Undefined && n.type != "Cast" && n.type != "CastLike";
    Decision d;
    const json info = opInfo_.contains(n.type) ? opInfo_[n.type] : json::object();
    if (decided) {
      ctx_.stats.matchTimes++;
      d = runSizedOutput(n) ? Decision{O, O, "keeps its dtype (its output's size is decided at run time)"}
                            : decide(n, O);
      dec_[&n] = d;
      n.attrs["_dtype_in"] = dn(d.in);
      n.attrs["_dtype_out"] = dn(d.out);
      n.attrs["_precision_reason"] = d.reason;
    }
    // Inputs: the decided dtype where the op-info slot accepts it, else the original dtype. An
    // op the op-info does not list but whose kernels store narrow floats: its leading data
    // inputs follow the chosen dtype.
    const bool narrowIn = decided && info.empty() && narrowCapable(def, n, O);
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      Value* v = n.inputs[i];
      if (!v || (!isFp(v->type.dtype) && !isFp(orig_[v]))) continue;
      DType want = orig_.count(v) ? orig_[v] : v->type.dtype;
      if (decided && isFp(want)) {
        std::set<DType> si = slotDtypes(info, "inputs", i);
        bool listed = !info.empty();
        if ((listed && si.count(d.in)) || (!listed && d.in == want)) want = d.in;
        if (narrowIn && (def->reducedInputs < 0 || (int64_t)i < def->reducedInputs) && kernelFloats(def).count(want))
          want = d.in;
        if (cube && i >= 2) want = DType::F32;  // bias / residual: read as float32 by the kernels
        // A residual folded into a normalisation (TbeReduceElemwiseFusionPass) is read like
        // X: same dtype as input 0 (already converted, inputs go in order).
        if (n.hasAttr("_pre_add") && (int64_t)i == n.attrInt("_pre_add", -1) && n.inputs[0])
          want = n.inputs[0]->type.dtype;
      }
      if (!isFp(want)) continue;
      Value* nv = as(v, want, n.name);
      if (nv != v) {
        n.inputs[i] = nv;
        dropUse(v);
      }
    }
    if (!decided) {
      inferNode(g_, n);
      return;
    }
    if (cube) {
      bool reducedIn = n.inputs[0] && n.inputs[0]->type.dtype != DType::F32;
      if (reducedIn || d.out != DType::F32) {
        n.attrs["_out_dtype"] = (int64_t)DType::F32;  // the kernels write float32
        changed_ = true;
      }
      inferNode(g_, n);
      if (d.out != DType::F32) {
        // Round the float32 result to the chosen output dtype: the original value becomes the
        // Cast's output.
        Value* y = n.outputs[0];
        Value* tmp = g_.newValue(y->name + "_f32", y->type);
        n.outputs[0] = tmp;
        tmp->producer = &n;
        tmp->producerIndex = 0;
        Node* c = g_.addNode("Cast", g_.uniqueNodeName("cast_" + n.name + "_out"), {tmp}, {y});
        c->attrs["to"] = onnxCodeOf(d.out);
        c->attrs["_precision_reason"] = std::string("inserted: " + n.name + " result rounded to " + dn(d.out));
        y->type.dtype = d.out;
        castSource_[y] = tmp;
        ctx_.stats.effectTimes++;
      }
      return;
    }
    inferNode(g_, n);
    for (Value* o : n.outputs)
      if (o && isFp(o->type.dtype) && o->type.dtype != orig_[o]) changed_ = true;
  }

  void fixGraphOutputs() {
    const OutputTypeSpec& ot = ctx_.opts.precision.outputType;
    std::set<std::pair<std::string, int>> used;
    for (size_t k = 0; k < g_.outputs.size(); ++k) {
      Value* y = g_.outputs[k];
      DType want = orig_.count(y) ? orig_[y] : y->type.dtype;
      if (ot.global != DType::Undefined) want = ot.global;
      // node:idx names the producing node (its name before fusion too) and its output index.
      const Node* p = y->producer;
      const Node* pp = p;
      if (p && p->type == "Cast" && castSource_.count(y) && castSource_[y]->producer) pp = castSource_[y]->producer;
      for (auto& e : ot.perOutput) {
        bool nameOk = pp && (pp->name == e.first.first ||
                             std::count(pp->originalNames.begin(), pp->originalNames.end(), e.first.first));
        bool idxOk = pp && (pp == p ? y->producerIndex : castSource_[y]->producerIndex) == e.first.second;
        if (nameOk && idxOk) {
          want = e.second;
          used.insert(e.first);
        }
      }
      if (y->type.dtype == want) continue;
      // y keeps its name (and becomes the Cast's output); its producer and readers get a new value.
      Value* inner = g_.newValue(y->name + "_" + dn(y->type.dtype), y->type);
      if (y->producer) {
        Node* prod = y->producer;
        prod->outputs[y->producerIndex] = inner;
        inner->producer = prod;
        inner->producerIndex = y->producerIndex;
      } else if (y->isConstant()) {
        inner->constant = y->constant;
        y->constant = nullptr;
      }
      for (auto& n : g_.nodes())
        for (auto& in : n->inputs)
          if (in == y) in = inner;
      if (castSource_.count(y)) {
        castSource_[inner] = castSource_[y];
        castSource_.erase(y);
      }
      Node* c = g_.addNode("Cast", g_.uniqueNodeName("cast_output_" + y->name), {inner}, {y});
      c->attrs["to"] = onnxCodeOf(want);
      c->attrs["_precision_reason"] =
          std::string("inserted: graph output ") + y->name + " as " + dn(want) + (want != orig_[y] ? " (--output_type)" : " (declared dtype)");
      y->type.dtype = want;
      changed_ = true;
      ctx_.stats.effectTimes++;
    }
    for (auto& e : ot.perOutput)
      if (!used.count(e.first))
        invalidParam("output_type", e.first.first + ":" + std::to_string(e.first.second),
                     "it names no output of the model.", "Use node:index of a graph output (see --out_nodes).");
  }
};

}  // namespace

bool runPrecisionPass(Graph& g, PassContext& ctx) { return PrecisionPass(g, ctx).run(); }

}  // namespace atc
