// buildOm: lowering -> memory plan -> steps and kernel instances -> codegen -> .om bytes.
// Layout of the result: docs/om-format.md.
#include "backend/om_builder.h"
#include "backend/step_flops.h"

#include <cstring>

#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "backend/buffer_plan.h"
#include "backend/kernel_cache_glue.h"
#include "backend/loop_schedule.h"
#include "backend/loop_steps.h"
#include "backend/range_kernels.h"
#include "backend/sequence_steps.h"
#include "backend/step_descs.h"
#include "backend/lowering.h"
#include "kernels/codegen/codegen.h"
#include "support/checked_math.h"
#include "support/diagnostics.h"
#include "support/log.h"
#include "ir/op_registry.h"
#include "runtime/cpu_check.h"
#include "runtime/om_format.h"

#ifndef ATC_VERSION
#define ATC_VERSION "0.0.0"
#endif

namespace atc {
namespace {

using json = nlohmann::json;

json attrToJson(const AttrValue& a) {
  return std::visit(
      [](const auto& v) -> json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, TensorPtr>) {
          json t;
          t["tensor"] = v ? v->type.str() : std::string("null");
          return t;
        } else {
          return json(v);
        }
      },
      a);
}

json typeJson(const TensorType& t) {
  json j;
  j["dtype"] = dtypeName(t.dtype);
  j["shape"] = t.shape;
  return j;
}

// Arena plus weights against the configured limit (checked sums: sizes are below
// kMaxTensorBytes each, but a plan adds many).
void checkModelMemory(Graph& g, BufferPlan& bp, const BackendOptions& opts) {
  int64_t weights = 0;
  for (auto& v : g.values())
    if (v->constant && !checkedAdd(weights, (int64_t)v->constant->data.size(), &weights)) weights = INT64_MAX;
  int64_t total = 0;
  if (!checkedAdd(bp.arenaSize(), weights, &total)) total = INT64_MAX;
  if (total > opts.maxModelMemoryBytes)
    invalidValue("the model's run-time memory (arena " + std::to_string(bp.arenaSize()) + " + weights at most " +
                     std::to_string(weights) + " bytes)",
                 std::to_string(total) + " bytes",
                 "it exceeds the limit of " + std::to_string(opts.maxModelMemoryBytes) +
                     " bytes ($ATC_MAX_MODEL_MEMORY_BYTES).",
                 "Use smaller input shapes (--input_shape), or raise $ATC_MAX_MODEL_MEMORY_BYTES if the target has the memory.");
}

using InstanceTable = std::map<std::pair<std::string, std::vector<int64_t>>, std::string>;

// The task plan's steps (one per kernel launch) and the unique kernel instances they call
// (instanceSym: every instance so far, shared by the gears of a dynamic model).
// An `oom` build (opts.oomBoundsCheck): the kernels of the nodes op_debug_list names (all
// when there is no list) get bounds checks and are specialised to their buffers' sizes.
// recordParams (a range build): each kernel step carries its params (backend/range_kernels.h).
json planSteps(std::vector<LoweredNode>& lowered, BufferPlan& bp, std::vector<KernelInstance>& instances,
               InstanceTable& instanceSym, const BackendOptions& opts, bool recordParams) {
  const int N = (int)lowered.size();
  json steps = json::array();
  for (int i = 0; i < N; ++i) {
    LoweredNode& L = lowered[i];
    if (L.skip) continue;
    if (L.control) {
      steps.push_back(isSequenceControl(*L.node) ? sequenceControlStep(L, bp) : loopControlStep(L, bp));
      continue;
    }
    json args = json::array();
    for (auto* in : L.node->inputs) args.push_back(in ? json(bp.regionOf(in, true)) : json(nullptr));
    for (auto* o : L.node->outputs) args.push_back(bp.regionOf(o));
    if (bp.workspaceOf(i) >= 0) args.push_back(bp.workspaceOf(i));
    json sizes = json::array();  // run-sized outputs: their argument positions; their dims slots follow
    for (size_t k = 0; k < L.node->outputs.size(); ++k)
      if (isRunSized(L.node->outputs[k])) {
        sizes.push_back(L.node->inputs.size() + k);
        args.push_back(bp.dimsRegionOf(L.node->outputs[k]));
      }
    bool readsRunSized = false;
    for (auto* in : L.node->inputs)  // then the dims slots of its run-sized inputs
      if (isRunSized(in)) args.push_back(bp.dimsRegionOf(in)), readsRunSized = true;
    const std::vector<std::string>& list = opts.kernelCache.recompile;
    // A run-sized input or output has no size to check accesses against when the kernel is compiled.
    bool boundsCheck = opts.oomBoundsCheck && sizes.empty() && !readsRunSized &&
                       (list.empty() || cache::debugListMatches(list, L.node->name, L.node->type));
    std::vector<int64_t> bufBytes;
    if (boundsCheck)
      for (auto& a : args) bufBytes.push_back(a.is_null() ? 0 : bp.regions()[a.get<size_t>()].size);
    auto key = std::make_pair(L.call.kernel, L.call.params);
    if (boundsCheck) {  // after a marker no params list has
      key.second.push_back(INT64_MIN);
      key.second.insert(key.second.end(), bufBytes.begin(), bufBytes.end());
    }
    auto it = instanceSym.find(key);
    if (it == instanceSym.end()) {
      std::string sym = "k" + std::to_string(instances.size());
      KernelInstance ki;
      ki.kernel = L.call.kernel;
      ki.params = L.call.params;
      ki.symbol = sym;
      ki.boundsCheck = boundsCheck;
      ki.bufBytes = bufBytes;
      instances.push_back(std::move(ki));
      it = instanceSym.emplace(key, sym).first;
    }
    {  // the nodes an instance serves (op_debug_list, kernel cache hit report)
      KernelInstance& ki = instances[std::stoul(it->second.substr(1))];
      ki.nodes.push_back(L.node->name);
      ki.opTypes.push_back(L.node->type);
    }
    json s;
    s["symbol"] = it->second;
    s["kernel"] = L.call.kernel;
    s["node"] = L.node->name;
    s["args"] = args;
    if (!sizes.empty()) s["sizes"] = sizes;
    if (recordParams) s["params"] = L.call.params;
    // What the data dump and the profiler name (docs/debugging.md): the op type, the source
    // nodes a fused kernel absorbed, and each input's and output's name, dtype and shape in
    // argument order (inputs first; an absent input is null).
    s["type"] = L.node->type;
    if (L.node->originalNames.size() > 1) s["fused_from"] = L.node->originalNames;
    auto tensors = [](const std::vector<Value*>& vs) {
      json a = json::array();
      for (auto* v : vs) {
        if (!v) {
          a.push_back(nullptr);
          continue;
        }
        json t = typeJson(v->type);
        t["name"] = v->name;
        t["dtype_code"] = (int)v->type.dtype;
        if (v->shapeFromData) t["shape_from_data"] = true;  // its bound: described, never read
        a.push_back(t);
      }
      return a;
    };
    if (int64_t f = cubeFlops(*L.node)) s["flops"] = f;
    s["in"] = tensors(L.node->inputs);
    s["out"] = tensors(L.node->outputs);
    steps.push_back(s);
  }
  pairLoopSteps(steps);
  return steps;
}

// One graph's plan: inputs, outputs, steps, buffers and arena size.
json graphPlan(Graph& g, json steps, BufferPlan& bp) {
  auto ioJson = [&](const Value* v) {
    json j = typeJson(v->type);
    j["name"] = v->name;
    j["dtype_code"] = (int)v->type.dtype;
    j["bytes"] = std::max<int64_t>(v->type.byteSize(), 0);
    j["buffer"] = bp.regionOf(v);
    // a sequence made at run time: its buffer holds the handle, the runtime gives its tensors
    if (v->producer && v->producer->type == "RuntimeSequenceOutput") j["sequence"] = true;
    if (isRunSized(v)) j["run_sized"] = true;  // its dims: the slot of its "run" buffer
    else if (v->shapeFromData) j["shape_at"] = dataShapeOffset(v->type);  // the actual dims (int64) there
    return j;
  };
  json plan;
  plan["format_version"] = 1;
  plan["inputs"] = json::array();
  for (auto* v : g.inputs) plan["inputs"].push_back(ioJson(v));
  plan["outputs"] = json::array();
  for (auto* v : g.outputs) plan["outputs"].push_back(ioJson(v));
  plan["steps"] = steps;
  plan["arena_size"] = bp.arenaSize();
  json bj = json::array();
  for (auto& b : bp.regions()) {
    json x;
    x["mem"] = b.weights ? "weights" : b.run ? "run" : "arena";
    x["offset"] = b.offset;
    x["size"] = b.size;
    if (b.run) x["rank"] = b.rank, x["esize"] = b.esize;
    bj.push_back(x);
  }
  plan["buffers"] = bj;
  return plan;
}

// TASK_INFO's target part: the profile and the CPU features the runtime checks before loading
// the kernels.
void addTargetToPlan(json& plan, const TargetProfile& target) {
  std::set<std::string> feats;
  {
    std::string f = target.features, tok;
    for (size_t p = 0; p <= f.size(); ++p) {
      if (p == f.size() || f[p] == ',') {
        if (tok.size() > 1 && tok[0] == '+' && rt::cpuFeatureCheckable(tok.substr(1))) feats.insert(tok.substr(1));
        tok.clear();
      } else {
        tok += f[p];
      }
    }
  }
  plan["cpu_features"] = std::vector<std::string>(feats.begin(), feats.end());
  plan["target"] = target.name;
}

// MODEL_DEF: the optimised graph (nodes, values, attributes) and the build's provenance.
json modelDef(Graph& g, const std::vector<LoweredNode>& lowered, const BackendOptions& opts,
              const TargetProfile& target) {
  json nodes = json::array();
  json values = json::object();
  auto noteValue = [&](const Value* v) {
    if (!v || values.contains(v->name)) return;
    json t = typeJson(v->type);
    if (v->isConstant()) t["constant"] = true;
    values[v->name] = t;
  };
  for (auto* v : g.inputs) noteValue(v);
  for (auto& L : lowered) {
    Node& n = *L.node;
    json j;
    j["name"] = n.name;
    j["type"] = n.type;
    if (!n.domain.empty()) j["domain"] = n.domain;
    json ins = json::array(), outs = json::array();
    for (auto* in : n.inputs) {
      ins.push_back(in ? json(in->name) : json(nullptr));
      noteValue(in);
    }
    for (auto* o : n.outputs) {
      outs.push_back(o->name);
      noteValue(o);
    }
    j["inputs"] = ins;
    j["outputs"] = outs;
    json attrs = json::object();
    for (auto& kv : n.attrs) attrs[kv.first] = attrToJson(kv.second);
    j["attrs"] = attrs;
    if (!n.originalNames.empty()) j["original_names"] = n.originalNames;
    nodes.push_back(j);
  }
  for (auto* v : g.outputs) noteValue(v);
  json md;
  md["name"] = g.name;
  md["opset"] = g.opsetVersion;
  md["graph"]["nodes"] = nodes;
  md["graph"]["values"] = values;
  json gin = json::array(), gout = json::array();
  for (auto* v : g.inputs) gin.push_back(v->name);
  for (auto* v : g.outputs) gout.push_back(v->name);
  md["graph"]["inputs"] = gin;
  md["graph"]["outputs"] = gout;
  md["atc_cmdline"] = opts.cmdline;
  md["soc_version"] = target.name;
  md["target"]["triple"] = target.triple;
  md["target"]["cpu"] = target.cpu;
  md["target"]["features"] = target.features;
  md["atc_version"] = ATC_VERSION;
  md["llvm_version"] = llvmVersionString();
  md["framework_type"] = opts.framework;
  return md;
}

}  // namespace

OmBuilder::OmBuilder(const BackendOptions& opts, const TargetProfile& target) : opts_(opts), target_(target) {}
OmBuilder::~OmBuilder() = default;

void OmBuilder::setDynamic(const std::string& option, const std::string& kind,
                           const std::vector<std::pair<std::string, std::vector<int64_t>>>& inputShape,
                           const nlohmann::json& ranges) {
  dynamic_ = json::object();
  range_ = kind == "range";
  if (!ranges.is_null()) dynamic_["ranges"] = ranges;
  dynamic_["option"] = option;
  dynamic_["kind"] = kind;
  json shapes = json::array();
  for (auto& [name, dims] : inputShape) shapes.push_back({{"name", name}, {"shape", dims}});
  dynamic_["input_shape"] = shapes;
}

void OmBuilder::addGraph(Graph& g, const std::vector<int64_t>& gearDims) {
  scheduleLoops(g);  // a run-time loop's body between its LoopBegin and LoopEnd
  std::vector<LoweredNode> lowered = lowerGraph(g, target_, dynamic_.is_null() ? nullptr : &packs_, range_);
  BufferPlan bp(g, lowered, !opts_.disableReuseMemory, weights_, opts_.oomRedzone);
  checkModelMemory(g, bp, opts_);
  json steps = planSteps(lowered, bp, instances_, instanceSym_, opts_, range_);
  json plan = graphPlan(g, std::move(steps), bp);
  if (!gearDims.empty()) plan["dims"] = gearDims;
  plans_.push_back(std::move(plan));
  arenaSize_ = std::max(arenaSize_, bp.arenaSize());
  if (plans_.size() == 1) {  // the model definition and the header describe the first graph
    modelDef_ = modelDef(g, lowered, opts_, target_);
    name_ = g.name;
    opCount_ = (uint32_t)g.nodes().size();
  }
  if (opts_.releaseConstants) bp.releaseConstants(g);
}

size_t OmBuilder::finish(KernelCacheReport* cacheReport, const std::function<uint8_t*(size_t)>& alloc) {
  if (plans_.empty()) internalError("an .om needs at least one graph");
  packs_ = PackCache();  // (the unpacked sources it holds are no longer needed)
  json plan;
  if (dynamic_.is_null()) {
    plan = std::move(plans_[0]);
  } else {  // docs/dynamic-shapes.md: one plan per gear over one arena and one weights blob
    if (range_) {  // the steps whose params change with the shape call generic kernels
      RangeKernelStats st;
      instances_ = shareKernelsAcrossRange(plans_, std::move(instances_), &st);
      // the shape-dependent slices of constants (pos[:, :S]) share the largest one's bytes
      const std::map<int64_t, int64_t> moved = weights_.mergePrefixes();
      for (auto& p : plans_)
        for (auto& b : p.at("buffers"))
          if (b.at("mem") == "weights") b["offset"] = moved.at(b.at("offset").get<int64_t>());
      json generic = json::array();
      for (auto& ki : instances_)
        if (ki.generic) generic.push_back(ki.symbol);
      plan["generic_kernels"] = generic;
      logInfo("range: " + std::to_string(plans_.size()) + " shapes; " + std::to_string(st.specialised) +
              " specialised kernel(s), " + std::to_string(st.generic) + " generic kernel(s) for " +
              std::to_string(st.replaced) + " shape-dependent instance(s)");
    }
    // every gear describes the same nodes: the descriptions once, the shapes per gear
    plan["step_descs"] = compactStepDescriptions(plans_, nullptr);
    plan["format_version"] = 3;
    plan["dynamic"] = dynamic_;
    for (auto& p : plans_) p.erase("format_version");
    plan["gears"] = json(std::move(plans_));
    plan["arena_size"] = arenaSize_;
    json gears = json::array();
    for (auto& p : plan["gears"]) gears.push_back(p["dims"]);
    modelDef_["dynamic"] = dynamic_;
    modelDef_["dynamic"]["gears"] = gears;
  }
  plans_.clear();
  addTargetToPlan(plan, target_);
  if (opts_.statusCheck || opts_.oomRedzone || opts_.oomBoundsCheck)
    plan["debug"] = {{"status_check", opts_.statusCheck},
                     {"oom_redzone", opts_.oomRedzone},
                     {"oom_bounds_check", opts_.oomBoundsCheck}};
  modelDef_["memory_size"] = arenaSize_;
  modelDef_["weight_size"] = (int64_t)weights_.bytes();

  CodegenOptions co;
  co.workers = opts_.threads;
  co.kernelMetaDir = opts_.kernelMetaDir;
  configureKernelCache(opts_, co);
  std::vector<uint8_t> cacheHits;
  co.hitsOut = &cacheHits;
  std::vector<uint8_t> so = compileKernels(target_, instances_, co);
  if (cacheReport) reportKernelCacheHits(instances_, cacheHits, *cacheReport);

  om::Header h;
  h.name = name_;
  h.socVersion = target_.name;
  h.atcVersion = ATC_VERSION;
  h.opCount = opCount_;
  h.memorySize = (uint64_t)arenaSize_;
  h.weightSize = weights_.bytes();
  // The JSON partitions as zstd frames (docs/om-format.md); everything written straight into
  // the file image.
  h.flags |= om::kFlagZstdJson;
  const std::vector<uint8_t> mdText = om::packJson(modelDef_.dump()), planText = om::packJson(plan.dump());
  auto text = [](uint32_t type, const std::vector<uint8_t>& t) {
    return om::PartSource{type, t.size(), [&t](uint8_t* d) { std::memcpy(d, t.data(), t.size()); }};
  };
  std::vector<om::PartSource> parts;
  parts.push_back(text(om::kModelDef, mdText));
  parts.push_back({om::kWeightsData, weights_.bytes(), [&](uint8_t* d) { weights_.fill(d); }});
  parts.push_back(text(om::kTaskInfo, planText));
  parts.push_back({om::kKernels, so.size(), [&so](uint8_t* d) { std::memcpy(d, so.data(), so.size()); }});
  if (opts_.reserveSignature) parts.push_back(om::reservedSignature(h));
  return om::writeOm(h, parts, alloc);
}

std::vector<uint8_t> buildOm(Graph& g, const BackendOptions& opts, const TargetProfile& target,
                             KernelCacheReport* cacheReport) {
  std::vector<uint8_t> out;
  buildOm(g, opts, target, cacheReport, [&out](size_t n) {
    out.assign(n, 0);
    return out.data();
  });
  return out;
}

size_t buildOm(Graph& g, const BackendOptions& opts, const TargetProfile& target, KernelCacheReport* cacheReport,
               const std::function<uint8_t*(size_t)>& alloc) {
  OmBuilder b(opts, target);
  b.addGraph(g);
  return b.finish(cacheReport, alloc);
}

}  // namespace atc
