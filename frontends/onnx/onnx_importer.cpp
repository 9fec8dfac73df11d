// ONNX ModelProto -> IR graph. See docs/frontend-onnx.md.
#include "frontends/onnx/onnx_importer.h"
#include "frontends/onnx/onnx_attention.h"
#include "frontends/onnx/onnx_rotary_embedding.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "frontends/common/import_cache.h"
#include "frontends/onnx/onnx_composite.h"
#include "frontends/onnx/onnx_control_flow.h"
#include "frontends/onnx/onnx_sequence.h"
#include "frontends/onnx/onnx_model_loader.h"
#include "frontends/onnx/onnx_einsum.h"
#include "frontends/onnx/onnx_function_ops.h"
#include "frontends/onnx/onnx_linear_attention.h"
#include "frontends/onnx/onnx_opset_changes.h"
#include "frontends/onnx/onnx_tensor.h"
#include "support/diagnostics.h"
#include "ir/op_registry.h"

namespace atc {
namespace {

using onnxfe::tensorFromOnnx;

std::string shapeText(const TensorType& t) {
  if (!t.shapeKnown) return "unknown rank";
  std::string s = "[";
  for (size_t i = 0; i < t.shape.size(); ++i) s += (i ? "," : "") + std::to_string(t.shape[i]);
  return s + "]";
}

bool isDefaultDomain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

// A run-sized value made at import: a scan output of a loop that runs at run time
// (ops/control/loop_ops.cpp), a tensor taken out of a run-time sequence (sequence_ops.cpp).
// (typed at import or not).
bool isRunSizedResult(const Value* v) {
  const Node* p = v->producer;
  if (p && p->type == "LoopEnd")
    for (size_t k = (size_t)p->attrInt("_carried", 0); k < p->outputs.size(); ++k)
      if (p->outputs[k] == v) return true;
  return isRunSized(v);
}

bool isSequenceMap(const onnx::NodeProto& n) { return isDefaultDomain(n.domain()) && n.op_type() == "SequenceMap"; }

// Nodes the importer resolves itself (sequences, optionals, control flow): their inputs may
// be sequences or optionals.
bool resolvedAtImport(const onnx::NodeProto& n) {
  return onnxfe::isSequenceNode(n) || onnxfe::isOptionalNode(n) || isSequenceMap(n) || onnxfe::isControlFlowNode(n);
}

// Opset the model is converted to before import: ATC_ONNX_CONVERT_OPSET=N (0 = never).
// Models older than kMinOpset are always converted (to this target, or kMinOpset).
int64_t conversionTarget() {
  const char* e = std::getenv("ATC_ONNX_CONVERT_OPSET");
  if (!e || !*e) return 0;
  return std::atoll(e);
}

class OnnxImporter {
 public:
  explicit OnnxImporter(const ImportOptions& opts) : opts_(opts) {}

  // bytes: the serialized ModelProto, or null to read opts.model.
  std::unique_ptr<Graph> run(const std::string* bytes = nullptr) {
    path_ = opts_.model;
    modelDir_ = std::filesystem::path(path_).parent_path().string();
    // Another shape's import parsed and prepared the model already (import_cache.h).
    auto cached = opts_.cache ? std::static_pointer_cast<const onnx::ModelProto>(opts_.cache->model) : nullptr;
    if (cached) {
      model_ = *cached;
      fromCache_ = true;
      return importGraph();
    }
    if (bytes)
      onnxfe::loadModelProtoFromBytes(bytes->data(), bytes->size(), path_, &model_);
    else
      onnxfe::loadModelProto(path_, &model_);
    prepareOpset();
    onnxfe::expandAttentionNodes(&model_);  // opset 23 Attention -> its function body
    onnxfe::expandRotaryEmbeddingNodes(&model_);  // opset 23 RotaryEmbedding -> its definition
    onnxfe::expandGroupNormalizationNodes(&model_, onnxfe::defaultOpset(model_));  // opsets 18, 21
    onnxfe::expandSwishNodes(&model_);  // opset 24
    onnxfe::expandSwiGLUNodes(&model_);  // opset 28
    onnxfe::expandTensorScatterNodes(&model_);  // opset 24
    onnxfe::expandCausalConvWithStateNodes(&model_);  // opset 27
    onnxfe::expandLinearAttentionNodes(&model_);  // opset 27
    onnxfe::expandEinsumNodes(&model_, onnxfe::defaultOpset(model_));  // opset 12
    return importGraph();
  }

 private:
  std::unique_ptr<Graph> importGraph() {
    g_ = std::make_unique<Graph>();
    eval_ = std::make_unique<frontend::ImportEval>(*g_);
    g_->name = model_.graph().name().empty() ? "graph" : model_.graph().name();
    g_->opsetVersion = onnxfe::defaultOpset(model_);
    checkSupported();  // like ATC's parser: unknown ops are reported before anything else
    importInitializers();
    // the model as the next shape's import starts from (the initializers' bytes are out of it
    // now); not after an opset conversion, which read the input shapes
    if (opts_.cache && !fromCache_ && !converted_) opts_.cache->model = std::make_shared<onnx::ModelProto>(model_);
    importInputs();
    applyInputShapes();
    createNodeOutputs();
    createNodes();
    setOutputs();
    refuseSequenceOutputs();
    g_->topoSort();
    checkStaticInputs();
    return std::move(g_);
  }

  [[noreturn]] void loadFail(const std::string& why) {
    throw AtcError("E10041", "Failed to load the model from [" + path_ + "]: " + why,
                   "Check that the model is a valid ONNX model.");
  }

  void prepareOpset() {
    int64_t opset = onnxfe::defaultOpset(model_);
    if (opset == 0) {
      // Models made only of other domains' ops: the unsupported-op report says more.
      for (const auto& n : model_.graph().node())
        if (isDefaultDomain(n.domain()))
          loadFail("the model uses ONNX operators but imports no opset of the default domain");
      return;
    }
    if (opset > onnxfe::kNewestKnownOpset)
      loadFail("opset " + std::to_string(opset) + " of the default domain is not supported (" +
               std::to_string(onnxfe::kMinOpset) + " to " + std::to_string(onnxfe::kMaxOpset) +
               " are; newer opsets up to " + std::to_string(onnxfe::kNewestKnownOpset) +
               " where the model's ops did not change after " + std::to_string(onnxfe::kMaxOpset) + ")");
    if (opset > onnxfe::kMaxOpset) checkOpsUnchangedSince(opset);
    int64_t target = conversionTarget();
    if (onnxfe::usesExternalData(model_)) target = 0;  // the converter would drop the references
    if (opset < onnxfe::kMinOpset && target < onnxfe::kMinOpset) target = onnxfe::kMinOpset;
    if (target > 0 && target != opset && target <= onnxfe::kMaxConverterOpset && opset <= onnxfe::kMaxConverterOpset) {
      std::string why;
      converted_ = true;
      bool ok = onnxfe::tryConvertOpset(&model_, target, opts_.inputShapes, &why);
      if (!ok && opset < onnxfe::kMinOpset && target != onnxfe::kMinOpset)
        ok = onnxfe::tryConvertOpset(&model_, onnxfe::kMinOpset, opts_.inputShapes, &why);
      if (!ok && opset < onnxfe::kMinOpset)
        loadFail("opset " + std::to_string(opset) + " is older than the supported range (" +
                 std::to_string(onnxfe::kMinOpset) + " to " + std::to_string(onnxfe::kMaxOpset) +
                 ") and the ONNX version converter could not upgrade it: " + why);
    }
  }

  void defineValue(const std::string& name, Value* v) {
    if (name.empty()) return;
    if (!values_.emplace(name, v).second)
      loadFail("the tensor name [" + name + "] is defined more than once");
  }

  void importInitializers() {
    for (auto& t : *model_.mutable_graph()->mutable_initializer()) {
      if (t.name().empty()) loadFail("an initializer has no name");
      TensorPtr data;
      if (fromCache_) {
        auto it = opts_.cache->constants.find(t.name());
        if (it == opts_.cache->constants.end())
          internalError("initializer " + t.name() + " is not in the import cache");
        data = it->second;
      } else {
        data = tensorFromOnnx(t, modelDir_, path_);
        if (opts_.cache) opts_.cache->constants[t.name()] = data;
      }
      // The copy in the IR is the only one kept: clear() would keep the string's capacity,
      // so swap the buffers out (atc's peak memory, docs/security.md "Memory and size").
      std::string().swap(*t.mutable_raw_data());
      google::protobuf::RepeatedField<float>().Swap(t.mutable_float_data());
      google::protobuf::RepeatedField<double>().Swap(t.mutable_double_data());
      google::protobuf::RepeatedField<int32_t>().Swap(t.mutable_int32_data());
      google::protobuf::RepeatedField<int64_t>().Swap(t.mutable_int64_data());
      defineValue(t.name(), g_->newConstant(t.name(), data));
    }
    if (model_.graph().sparse_initializer_size() > 0)
      throw AtcError("E19010", "Sparse initializers are not supported.",
                     "Store the weights as dense initializers.");
  }

  void importInputs() {
    for (const auto& in : model_.graph().input()) {
      if (values_.count(in.name())) continue;  // initializer listed as input (old models)
      // a sequence or optional: its tensors become inputs (onnx_composite.h)
      if (Value* marker = comp_.importInput(*g_, in, opts_.inputShapes, &g_->inputs, &consumedShapes_)) {
        defineValue(in.name(), marker);
        continue;
      }
      Value* v = g_->newValue(in.name(), onnxfe::tensorInputType(in.name(), in.type().tensor_type()));
      defineValue(in.name(), v);
      g_->inputs.push_back(v);
    }
  }

  void applyInputShapes() {
    for (const auto& kv : opts_.inputShapes) {
      if (consumedShapes_.count(kv.first)) continue;  // "x[]:": an empty sequence or optional
      Value* v = nullptr;
      for (Value* in : g_->inputs)
        if (in->name == kv.first) v = in;
      if (!v)
        throw AtcError("E10016",
                       "Input parameter [--input_shape]'s opname [" + kv.first +
                           "] is not found in model: it is not an input of the graph.",
                       "Check the input names of the model and the --input_shape value.");
      if (v->type.shapeKnown && v->type.rank() != (int64_t)kv.second.size()) {
        std::string given;
        for (size_t i = 0; i < kv.second.size(); ++i) given += (i ? "," : "") + std::to_string(kv.second[i]);
        throw AtcError("E10002",
                       "Value [" + kv.first + ":" + given + "] for parameter [--input_shape] is "
                       "invalid. Reason: the model's input [" + kv.first + "] has rank " +
                           std::to_string(v->type.rank()) + " " + shapeText(v->type) +
                           " but " + std::to_string(kv.second.size()) + " dims were given.",
                       "Give one dim per dimension of the input.");
      }
      v->type.shape = kv.second;
      v->type.shapeKnown = true;
    }
  }

  // Every node whose op cannot be imported, reported together.
  // A model importing an opset after kMaxOpset: every node's op must be the same as in
  // kMaxOpset, else the nodes that use a newer version are listed (E19010).
  void checkOpsUnchangedSince(int64_t opset) {
    std::string list;
    int count = 0;
    for (const auto& n : model_.graph().node()) {
      if (!isDefaultDomain(n.domain())) continue;
      int64_t v = onnxfe::opChangedIn(n.op_type(), onnxfe::kMaxOpset, opset);
      if (!v || onnxfe::expandedNewerOp(n.op_type())) continue;
      if (++count <= 10)
        list += (list.empty() ? "" : ", ") + (n.name().empty() ? n.op_type() : n.name()) + " (" + n.op_type() +
                " changed in opset " + std::to_string(v) + ")";
    }
    if (!count) return;
    if (count > 10) list += " and " + std::to_string(count - 10) + " more";
    throw AtcError("E19010",
                   "The model imports opset " + std::to_string(opset) + "; atc implements opsets up to " +
                       std::to_string(onnxfe::kMaxOpset) + " and these nodes use op versions introduced after it: " +
                       list + ".",
                   "Export the model with opset " + std::to_string(onnxfe::kMaxOpset) +
                       " or older (for example torch.onnx.export(..., opset_version=" +
                       std::to_string(onnxfe::kMaxOpset) + ")).");
  }

  void checkSupported() {
    std::vector<std::pair<std::string, std::string>> bad;  // (node name, type)
    std::set<std::string> badTypes;
    checkNodesSupported(model_.graph(), "", &bad, &badTypes);
    if (bad.empty()) return;
    std::string msg = "No parser is registered for Op ";
    for (size_t i = 0; i < bad.size(); ++i)
      msg += (i ? ", [" : "[") + bad[i].first + ", " + bad[i].second + "]";
    msg += " : unsupported op types: ";
    bool first = true;
    for (const auto& t : badTypes) { msg += (first ? "" : ", ") + t; first = false; }
    throw AtcError("E19010", msg,
                   "These operators are not supported by this version; replace them in the "
                   "model or cut the graph before them.");
  }

  // The nodes of g and, for If/Loop/Scan, of their bodies (names under "node/").
  void checkNodesSupported(const onnx::GraphProto& g, const std::string& prefix,
                           std::vector<std::pair<std::string, std::string>>* bad, std::set<std::string>* badTypes,
                           int depth = 0) {
    const auto& nodes = g.node();
    for (int i = 0; i < nodes.size(); ++i) {
      const auto& n = nodes[i];
      std::string type = n.op_type();
      bool ok;
      if (!isDefaultDomain(n.domain())) {  // ops of other domains are registered as "domain::Op"
        type = n.domain() + "::" + n.op_type();
        const OpDef* def = OpRegistry::instance().find(type);
        ok = def != nullptr && !def->internal;
      } else if (n.op_type() == "Constant") {
        ok = constantAttr(n) != nullptr;
        if (ok) {
          const auto* a = constantAttr(n);
          ok = a->name() != "value_string" && a->name() != "value_strings" &&
               a->name() != "sparse_value";
        }
      } else if (onnxfe::isSequenceNode(n) || onnxfe::isOptionalNode(n)) {
        ok = true;  // resolved at import (onnx_sequence.h, onnx_optional.h)
      } else if ((onnxfe::isControlFlowNode(n) || isSequenceMap(n)) && depth < 16) {
        ok = true;
        for (const auto& a : n.attribute())
          if (a.has_g()) checkNodesSupported(a.g(), prefix + nodeName(n, i) + "/", bad, badTypes, depth + 1);
      } else {
        const OpDef* def = OpRegistry::instance().find(n.op_type());
        ok = def != nullptr && !def->internal;
        for (const auto& a : n.attribute())
          if (a.type() == onnx::AttributeProto::GRAPH || a.type() == onnx::AttributeProto::GRAPHS ||
              a.has_g() || a.graphs_size() > 0)
            ok = false;
      }
      if (!ok) {
        bad->emplace_back(prefix + nodeName(n, i), type);
        badTypes->insert(type);
      }
    }
  }

  static const onnx::AttributeProto* constantAttr(const onnx::NodeProto& n) {
    for (const auto& a : n.attribute())
      if (a.name() == "value" || a.name() == "value_float" || a.name() == "value_floats" ||
          a.name() == "value_int" || a.name() == "value_ints" || a.name() == "value_string" ||
          a.name() == "value_strings" || a.name() == "sparse_value")
        return &a;
    return nullptr;
  }

  static std::string nodeName(const onnx::NodeProto& n, int index) {
    return n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
  }

  TensorPtr constantValue(const onnx::NodeProto& n) {
    const auto* a = constantAttr(n);
    if (a->name() == "value") return tensorFromOnnx(a->t(), modelDir_, path_);
    if (a->name() == "value_float") return makeScalar(a->f(), DType::F32);
    if (a->name() == "value_int") return makeIntTensor({a->i()}, DType::I64, true);
    if (a->name() == "value_ints")
      return makeIntTensor(std::vector<int64_t>(a->ints().begin(), a->ints().end()), DType::I64);
    // value_floats
    auto t = std::make_shared<Tensor>(TensorType(DType::F32, {(int64_t)a->floats_size()}));
    for (int i = 0; i < a->floats_size(); ++i) t->as<float>()[i] = a->floats(i);
    return t;
  }

  void createNodeOutputs() {
    const auto& nodes = model_.graph().node();
    for (int i = 0; i < nodes.size(); ++i) {
      const auto& n = nodes[i];
      std::vector<Value*> outs;
      if (n.op_type() == "Constant" && isDefaultDomain(n.domain())) {
        if (n.output_size() != 1) loadFail("Constant node [" + nodeName(n, i) + "] must have one output");
        Value* v = g_->newConstant(n.output(0), constantValue(n));
        defineValue(n.output(0), v);
        outs.push_back(v);
      } else {
        for (int k = 0; k < n.output_size(); ++k) {
          std::string name = n.output(k);
          if (name.empty()) name = nodeName(n, i) + "_unused_out" + std::to_string(k);
          Value* v = g_->newValue(name);
          if (!n.output(k).empty()) defineValue(n.output(k), v);
          outs.push_back(v);
        }
      }
      nodeOutputs_.push_back(outs);
      if (!n.name().empty()) outputsByNodeName_.emplace(n.name(), outs);
    }
  }

  AttrValue convertAttr(const onnx::NodeProto& n, const onnx::AttributeProto& a) {
    using AP = onnx::AttributeProto;
    int type = a.type();
    if (type == AP::UNDEFINED) {  // very old models: guess from the field that is set
      if (a.has_f()) type = AP::FLOAT;
      else if (a.has_i()) type = AP::INT;
      else if (a.has_s()) type = AP::STRING;
      else if (a.has_t()) type = AP::TENSOR;
      else if (a.floats_size()) type = AP::FLOATS;
      else if (a.strings_size()) type = AP::STRINGS;
      else type = AP::INTS;
    }
    switch (type) {
      case AP::INT: return (int64_t)a.i();
      case AP::FLOAT: return (double)a.f();
      case AP::STRING: return a.s();
      case AP::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
      case AP::FLOATS: {
        std::vector<double> v;
        for (float f : a.floats()) v.push_back(f);
        return v;
      }
      case AP::STRINGS: return std::vector<std::string>(a.strings().begin(), a.strings().end());
      case AP::TENSOR: return tensorFromOnnx(a.t(), modelDir_, path_);
      default:
        throw AtcError("E19010",
                       "Attribute [" + a.name() + "] of node [" + n.name() + "] (" + n.op_type() +
                           ") has the type " + AP::AttributeType_Name((AP::AttributeType)type) +
                           ", which is not supported.",
                       "Graph, sparse-tensor and type-proto attributes are not supported.");
    }
  }

  void createNodes() {
    const auto& nodes = model_.graph().node();
    bool anyControlFlow = false;
    for (const auto& n : nodes)
      anyControlFlow = anyControlFlow || resolvedAtImport(n);
    if (anyControlFlow) checkStaticInputs();  // lowering it needs the shapes
    for (int i = 0; i < nodes.size(); ++i) {
      const auto& n = nodes[i];
      if (n.op_type() == "Constant" && isDefaultDomain(n.domain())) continue;
      std::vector<Value*> ins = resolveInputs(n, nodeName(n, i));
      if (resolvedAtImport(n) || passesComposite(n, ins)) {
        // keeps the model's value names (a sequence or optional is bound by name)
        bindLoweredOutputs(n, i, lowerAtImport(n, g_->uniqueNodeName(nodeName(n, i)), ins));
        continue;
      }
      addOnnxNode(n, nodeName(n, i), ins, nodeOutputs_[i]);
    }
  }

  // Binds the values a sequence or control-flow node gives to the model's names: a sequence
  // stands for its list under the name; a tensor is copied into the node's output by an
  // Identity.
  void bindLoweredOutputs(const onnx::NodeProto& n, int i, const std::vector<Value*>& outs) {
    for (size_t k = 0; k < outs.size() && k < nodeOutputs_[(size_t)i].size(); ++k) {
      if (isRunSizedResult(outs[k])) {  // run-sized: no Identity reads it, it takes the name
        g_->swapNames(nodeOutputs_[(size_t)i][k], outs[k]);
        if (!n.output((int)k).empty()) values_[n.output((int)k)] = outs[k];
        continue;
      }
      if (!comp_.isComposite(outs[k])) {
        g_->addNode("Identity", g_->uniqueNodeName(nodeName(n, i) + "/out" + std::to_string(k)), {outs[k]},
                    {nodeOutputs_[(size_t)i][k]});
        continue;
      }
      replacedBySequence_.insert(nodeOutputs_[(size_t)i][k]);
      if (!n.output((int)k).empty()) values_[n.output((int)k)] = outs[k];
    }
  }

  std::vector<Value*> resolveInputs(const onnx::NodeProto& n, const std::string& label) {
    std::vector<Value*> ins;
    for (const auto& name : n.input()) {
      if (name.empty()) { ins.push_back(nullptr); continue; }
      Value* v = lookupScoped(name);
      if (!v)
        loadFail("input [" + name + "] of node [" + label + "] (" + n.op_type() +
                 ") is not produced by any node, initializer or graph input");
      if (comp_.isComposite(v) && !resolvedAtImport(n) && !(n.op_type() == "Identity" && n.input_size() == 1))
        throw AtcError("E19010",
                       "Op [" + label + ", " + n.op_type() + "] cannot be compiled: its input [" + name +
                           "] is a sequence or an optional, which only the sequence and optional ops take here.",
                       "atc resolves sequences at compile time (docs/frontend-onnx.md, \"Sequences and optionals\"); "
                       "read tensors out of them with SequenceAt, ConcatFromSequence or OptionalGetElement.");
      ins.push_back(v);
    }
    // Trailing absent optional inputs carry no information.
    while (!ins.empty() && ins.back() == nullptr) ins.pop_back();
    return ins;
  }

  Node* addOnnxNode(const onnx::NodeProto& n, const std::string& name, const std::vector<Value*>& ins,
                    const std::vector<Value*>& outs) {
    const std::string type = isDefaultDomain(n.domain()) ? n.op_type() : n.domain() + "::" + n.op_type();
    Node* node = g_->addNode(type, name, ins, outs);
    node->domain = "";
    for (const auto& a : n.attribute()) {
      // Names starting with '_' are the compiler's own (packed-weight shapes, fused
      // epilogues, decisions): a model that sets one could make a kernel misread its inputs.
      if (!a.name().empty() && a.name()[0] == '_')
        loadFail("attribute [" + a.name() + "] of node [" + name + "] (" + n.op_type() +
                 "): attribute names starting with '_' are reserved for the compiler");
      node->attrs[a.name()] = convertAttr(n, a);
    }
    return node;
  }

  // An Identity of a sequence or optional: the same marker under a new name.
  bool passesComposite(const onnx::NodeProto& n, const std::vector<Value*>& ins) const {
    return isDefaultDomain(n.domain()) && n.op_type() == "Identity" && ins.size() == 1 && comp_.isComposite(ins[0]);
  }

  // ---- sequences, optionals and control flow, resolved at import; bodies imported inline ----
  std::vector<Value*> lowerAtImport(const onnx::NodeProto& n, const std::string& name, const std::vector<Value*>& ins) {
    if (passesComposite(n, ins)) return {ins[0]};
    if (onnxfe::isSequenceNode(n)) return comp_.seqs.lower(*g_, *eval_, n, name, ins);
    if (onnxfe::isOptionalNode(n)) return comp_.opts.lower(*g_, *eval_, n, name, ins);
    onnxfe::BodyImporter body = [this](const onnx::GraphProto& b, const std::vector<Value*>& bins,
                                       const std::string& prefix) { return importBody(b, bins, prefix); };
    if (isSequenceMap(n)) return comp_.seqs.lowerMap(*g_, *eval_, body, n, name, ins);
    onnxfe::BranchSelector select = [this](Value* cond, Value* t, Value* e, const std::string& nm) {
      return comp_.select(*g_, *eval_, cond, t, e, nm);
    };
    onnxfe::CompositeCarrier composite;
    composite.is = [this](const Value* v) { return comp_.isComposite(v); };
    composite.isOptional = [this](const Value* v) { return comp_.opts.isOptional(v); };
    composite.toHandle = [this](Value* v, const std::string& nm) { return comp_.toHandle(*g_, *eval_, v, nm); };
    composite.fromHandle = [this](Value* h, bool optional, const std::string& nm, const std::vector<Value*>& from,
                                  const Value* loopInput) {
      return comp_.fromHandle(*g_, *eval_, h, optional, nm, from, loopInput);
    };
    return onnxfe::lowerControlFlow(*g_, *eval_, body, select, composite, n, name, ins, g_->opsetVersion);
  }

  std::vector<Value*> importBody(const onnx::GraphProto& body, const std::vector<Value*>& ins,
                                 const std::string& prefix) {
    if (scopes_.size() >= kMaxBodyDepth)
      loadFail("control flow is nested more than " + std::to_string(kMaxBodyDepth) + " deep");
    if (body.input_size() != (int)ins.size())
      loadFail("the subgraph [" + prefix + "] has " + std::to_string(body.input_size()) + " inputs where " +
               std::to_string(ins.size()) + " are given");
    unrolledNodes_ += body.node_size();
    if (unrolledNodes_ > onnxfe::kMaxUnrolledNodes)
      throw AtcError("E19010",
                     "The model's control flow unrolls to more than " + std::to_string(onnxfe::kMaxUnrolledNodes) +
                         " nodes (at the subgraph [" + prefix + "]).",
                     "atc lowers If, Loop and Scan at compile time (docs/frontend-onnx.md, \"Control flow\"); "
                     "shorten the loops or run them outside the model.");
    std::map<std::string, Value*> scope;
    for (int i = 0; i < body.input_size(); ++i) scope[body.input(i).name()] = ins[(size_t)i];
    for (const auto& t : body.initializer())
      scope[t.name()] = g_->newConstant(prefix + "/" + t.name(), tensorFromOnnx(t, modelDir_, path_));
    scopes_.push_back(&scope);
    for (int i = 0; i < body.node_size(); ++i) {
      const auto& n = body.node(i);
      std::string label = prefix + "/" + nodeName(n, i);
      std::vector<Value*> outs;
      if (n.op_type() == "Constant" && isDefaultDomain(n.domain())) {
        if (n.output_size() != 1) loadFail("Constant node [" + label + "] must have one output");
        outs.push_back(g_->newConstant(prefix + "/" + n.output(0), constantValue(n)));
      } else {
        std::vector<Value*> ins2 = resolveInputs(n, label);
        if (resolvedAtImport(n) || passesComposite(n, ins2)) {
          outs = lowerAtImport(n, g_->uniqueNodeName(label), ins2);
          for (int k = 0; k < n.output_size() && k < (int)outs.size(); ++k)
            if (!n.output(k).empty()) scope[n.output(k)] = outs[(size_t)k];
          continue;
        }
        for (int k = 0; k < n.output_size(); ++k)
          outs.push_back(g_->newValue(prefix + "/" + (n.output(k).empty() ? nodeName(n, i) + "_unused" : n.output(k))));
        addOnnxNode(n, g_->uniqueNodeName(label), ins2, outs);
      }
      for (int k = 0; k < n.output_size() && k < (int)outs.size(); ++k)
        if (!n.output(k).empty()) scope[n.output(k)] = outs[(size_t)k];
    }
    std::vector<Value*> result;
    for (const auto& o : body.output()) {
      Value* v = lookupScoped(o.name());
      if (!v) loadFail("the output [" + o.name() + "] of the subgraph [" + prefix + "] is not produced by any node");
      result.push_back(v);
    }
    scopes_.pop_back();
    return result;
  }

  // A name in the innermost body that defines it, else in the main graph.
  Value* lookupScoped(const std::string& name) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = (*it)->find(name);
      if (f != (*it)->end()) return f->second;
    }
    return lookupValue(name);
  }

  Value* lookupValue(const std::string& name) {
    auto it = values_.find(name);
    return it == values_.end() ? nullptr : it->second;
  }

  void setOutputs() {
    if (opts_.outNodeList.empty()) {
      for (const auto& o : model_.graph().output()) {
        Value* v = lookupValue(o.name());
        if (!v) loadFail("graph output [" + o.name() + "] is not produced by any node");
        comp_.flattenOutput(*g_, v, o.name(), &g_->outputs);  // a sequence or optional: its tensors
      }
      return;
    }
    for (const auto& [name, index] : opts_.outNodeList) {
      Value* v = nullptr;
      if (index >= 0) {
        auto it = outputsByNodeName_.find(name);
        if (it != outputsByNodeName_.end()) {
          if (index >= (int)it->second.size())
            throw AtcError("E10016",
                           "Input parameter [--out_nodes]'s opname [" + name + ":" +
                               std::to_string(index) + "] is not found in model: node [" + name +
                               "] has " + std::to_string(it->second.size()) + " output(s).",
                           "Use an output index smaller than the node's output count.");
          v = it->second[index];
        } else if (index == 0) {
          v = lookupValue(name);  // an output tensor name written as name:0
        }
      } else {
        v = lookupValue(name);
      }
      if (!v)
        throw AtcError("E10016",
                       "Input parameter [--out_nodes]'s opname [" + name +
                           (index >= 0 ? ":" + std::to_string(index) : std::string()) +
                           "] is not found in model.",
                       "Give an existing node name with an output index, or an output tensor name.");
      comp_.flattenOutput(*g_, v, name, &g_->outputs);
    }
  }

  // Sequences and optionals live in the importer only: no IR node may read a marker (the
  // check runs over every node, so none is ever computed with), and no graph output may be
  // the placeholder of a node output that became one (--out_nodes naming it by index).
  void refuseSequenceOutputs() {
    for (const auto& node : g_->nodes())
      for (Value* v : node->inputs)
        if (!comp_.mayRead(*node, v))
          throw AtcError("E19010",
                         "Op [" + node->name + ", " + node->type + "] cannot be compiled: it would read the "
                         "sequence or optional [" + v->name + "] as a tensor.",
                         "atc resolves sequences at compile time (docs/frontend-onnx.md, "
                         "\"Sequences and optionals\").");
    for (Value* v : g_->outputs)
      if (replacedBySequence_.count(v))
        throw AtcError("E19010",
                       "Output [" + v->name + "] is a sequence or an optional, which --out_nodes cannot name by "
                       "node and index.",
                       "Name the model's output tensor in --out_nodes instead (its tensors become outputs: "
                       "docs/frontend-onnx.md, \"Sequences and optionals\").");
  }

  void checkStaticInputs() {
    for (Value* in : g_->inputs) {
      if (in->type.isStatic()) continue;
      throw AtcError("E10002",
                     "Input [" + in->name + "] has a dynamic or unknown shape " +
                         shapeText(in->type) +
                         "; a model is compiled for the shapes --input_shape gives.",
                     "Give its shape with --input_shape, e.g. --input_shape=\"" + in->name +
                         ":1,3,224,224\" (a range \"1~16,3,224,224\", or -1 with --dynamic_batch_size, "
                         "serves several).");
    }
  }

  const ImportOptions& opts_;
  std::string path_, modelDir_;
  onnx::ModelProto model_;
  bool fromCache_ = false;  // model_ came from opts_.cache (import_cache.h)
  bool converted_ = false;  // the ONNX version converter rewrote the model
  std::unique_ptr<Graph> g_;
  std::map<std::string, Value*> values_;
  std::vector<std::vector<Value*>> nodeOutputs_;
  std::map<std::string, std::vector<Value*>> outputsByNodeName_;
  static constexpr size_t kMaxBodyDepth = 16;
  std::vector<std::map<std::string, Value*>*> scopes_;  // enclosing bodies, innermost last
  int64_t unrolledNodes_ = 0;  // body nodes imported so far
  std::unique_ptr<frontend::ImportEval> eval_;  // types and constants for lowering control flow
  onnxfe::Composites comp_;                     // sequences and optionals (onnx_composite.h)
  std::set<std::string> consumedShapes_;        // --input_shape entries "x[]:" (empty sequences)
  std::set<const Value*> replacedBySequence_;   // placeholders of sequence-valued node outputs
};

}  // namespace

std::unique_ptr<Graph> importOnnx(const ImportOptions& opts) {
  return OnnxImporter(opts).run();
}

std::unique_ptr<Graph> importOnnxFromBytes(const std::string& bytes, const ImportOptions& opts) {
  return OnnxImporter(opts).run(&bytes);
}

}  // namespace atc
