// buildOm: lowering -> kernel instances -> memory plan -> codegen -> .om bytes.
// Layout of the result: docs/om-format.md.
#include "atc/om_builder.h"

#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "atc/plan_memory.h"
#include "cache/driver_glue.h"
#include "ir/error.h"
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

// One lowered node.
struct Lowered {
  Node* node = nullptr;
  KernelCall call;
  bool skip = false;      // outputs all constant, or aliased onto input 0
  std::string symbol;
};

// A memory region in the plan (arena group or weights).
struct Buf {
  bool weights = false;
  int64_t offset = 0, size = 0;
};

int64_t alignUp64(int64_t x) { return (x + 63) / 64 * 64; }

}  // namespace

std::vector<uint8_t> buildOm(Graph& g, const CompileOptions& opts, const TargetProfile& target) {
  // ---- 1. Lower every node --------------------------------------------------------------
  std::vector<Lowered> lowered;
  for (auto& np : g.nodes()) {
    Node& n = *np;
    Lowered L;
    L.node = &n;
    bool allConst = !n.outputs.empty();
    for (auto* o : n.outputs) {
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
    LowerCtx ctx(g, n);
    L.call = d->lower(ctx);
    if (L.call.workspaceBytes < 0) internalError("negative workspace for node " + n.name);
    lowered.push_back(std::move(L));
  }
  const int N = (int)lowered.size();

  // ---- 2. Liveness ------------------------------------------------------------------------
  std::map<const Value*, int> lastUse, defAt;
  std::set<const Value*> graphIn(g.inputs.begin(), g.inputs.end()), graphOut(g.outputs.begin(), g.outputs.end());
  for (auto* v : g.inputs) defAt[v] = 0, lastUse[v] = 0;
  for (int i = 0; i < N; ++i) {
    if (lowered[i].skip) continue;
    for (auto* in : lowered[i].node->inputs)
      if (in && !in->isConstant()) lastUse[in] = std::max(lastUse.count(in) ? lastUse[in] : i, i);
    for (auto* o : lowered[i].node->outputs) {
      defAt[o] = i;
      if (!lastUse.count(o)) lastUse[o] = i;
    }
  }
  for (auto* v : g.outputs)
    if (!v->isConstant() || defAt.count(v)) lastUse[v] = N;

  // ---- 3. Buffer groups (values sharing memory) --------------------------------------------
  std::vector<PlanBuffer> groups;
  std::map<const Value*, int> groupOf;
  auto newGroup = [&](const Value* v) {
    PlanBuffer pb;
    pb.size = std::max<int64_t>(v->type.byteSize(), 0);
    pb.first = defAt[v];
    pb.last = lastUse[v];
    groups.push_back(pb);
    groupOf[v] = (int)groups.size() - 1;
  };
  for (auto* v : g.inputs)
    if (!groupOf.count(v)) newGroup(v);
  std::vector<int> workspaceGroup(N, -1);
  for (int i = 0; i < N; ++i) {
    Lowered& L = lowered[i];
    if (L.skip) continue;
    Node& n = *L.node;
    const OpDef* d = OpRegistry::instance().find(n.type);
    Value* in0 = n.input(0);
    bool alias = !opts.disableReuseMemory && d && d->aliasesInput0 && n.outputs.size() == 1 && in0 && !in0->isConstant() &&
                 !graphIn.count(in0) && !graphOut.count(in0) && groupOf.count(in0) && lastUse[in0] == i &&
                 n.outputs[0]->type.byteSize() == in0->type.byteSize() && !n.outputs[0]->isConstant() &&
                 L.call.workspaceBytes == 0;
    if (alias) {
      int gi = groupOf[in0];
      groupOf[n.outputs[0]] = gi;
      groups[gi].last = std::max(groups[gi].last, lastUse[n.outputs[0]]);
      L.skip = true;
      continue;
    }
    for (auto* o : n.outputs) newGroup(o);
    if (L.call.workspaceBytes > 0) {
      PlanBuffer pb;
      pb.size = L.call.workspaceBytes;
      pb.first = pb.last = i;
      groups.push_back(pb);
      workspaceGroup[i] = (int)groups.size() - 1;
    }
  }
  int64_t arenaSize = planArena(groups, !opts.disableReuseMemory);

  // ---- 4. Weights ---------------------------------------------------------------------------
  std::vector<uint8_t> weights;
  {
    size_t bound = 0;  // reserve once: growing a 50 MB vector copies and page-faults it repeatedly
    for (auto& v : g.values())
      if (v->constant) bound += v->constant->data.size() + 64;
    weights.reserve(bound);
  }
  std::vector<Buf> bufs;
  for (auto& pb : groups) bufs.push_back({false, pb.offset, pb.size});
  std::map<const Tensor*, int> weightBuf;  // lookup only: layout follows first use
  auto weightOf = [&](const Value* v) -> int {
    const Tensor* t = v->constant.get();
    auto it = weightBuf.find(t);
    if (it != weightBuf.end()) return it->second;
    int64_t off = alignUp64((int64_t)weights.size());
    weights.resize((size_t)off, 0);
    weights.insert(weights.end(), t->data.begin(), t->data.end());
    bufs.push_back({true, off, (int64_t)t->data.size()});
    weightBuf[t] = (int)bufs.size() - 1;
    return (int)bufs.size() - 1;
  };
  // Node inputs read constants from the weights; everything else lives in the arena.
  auto bufOf = [&](const Value* v, bool nodeInput = false) -> json {
    if (!v) return nullptr;
    if (nodeInput && v->isConstant()) return weightOf(v);
    auto it = groupOf.find(v);
    if (it != groupOf.end()) return it->second;
    if (v->isConstant()) return weightOf(v);
    internalError("value " + v->name + " has no buffer");
  };

  // ---- 5. Steps and kernel instances -----------------------------------------------------------
  std::map<std::pair<std::string, std::vector<int64_t>>, std::string> instanceSym;
  std::vector<KernelInstance> instances;
  json steps = json::array();
  for (int i = 0; i < N; ++i) {
    Lowered& L = lowered[i];
    if (L.skip) continue;
    auto key = std::make_pair(L.call.kernel, L.call.params);
    auto it = instanceSym.find(key);
    if (it == instanceSym.end()) {
      std::string sym = "k" + std::to_string(instances.size());
      instances.push_back({L.call.kernel, L.call.params, sym});
      it = instanceSym.emplace(key, sym).first;
    }
    {  // the nodes an instance serves (op_debug_list, kernel cache hit report)
      KernelInstance& ki = instances[std::stoul(it->second.substr(1))];
      ki.nodes.push_back(L.node->name);
      ki.opTypes.push_back(L.node->type);
    }
    json args = json::array();
    for (auto* in : L.node->inputs) args.push_back(bufOf(in, true));
    for (auto* o : L.node->outputs) args.push_back(bufOf(o));
    if (workspaceGroup[i] >= 0) args.push_back(workspaceGroup[i]);
    json s;
    s["symbol"] = it->second;
    s["kernel"] = L.call.kernel;
    s["node"] = L.node->name;
    s["args"] = args;
    steps.push_back(s);
  }

  auto ioJson = [&](const Value* v) {
    json j = typeJson(v->type);
    j["name"] = v->name;
    j["dtype_code"] = (int)v->type.dtype;
    j["bytes"] = std::max<int64_t>(v->type.byteSize(), 0);
    j["buffer"] = bufOf(v);
    return j;
  };
  json plan;
  plan["format_version"] = 1;
  plan["inputs"] = json::array();
  for (auto* v : g.inputs) plan["inputs"].push_back(ioJson(v));
  plan["outputs"] = json::array();
  for (auto* v : g.outputs) plan["outputs"].push_back(ioJson(v));
  plan["steps"] = steps;
  plan["arena_size"] = arenaSize;
  json bj = json::array();
  for (auto& b : bufs) {
    json x;
    x["mem"] = b.weights ? "weights" : "arena";
    x["offset"] = b.offset;
    x["size"] = b.size;
    bj.push_back(x);
  }
  plan["buffers"] = bj;
  // Instruction-set features the runtime checks before loading the kernels.
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

  // ---- 6. Model definition -------------------------------------------------------------------
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
  md["memory_size"] = arenaSize;
  md["weight_size"] = (int64_t)weights.size();

  // ---- 7. Kernels and serialisation --------------------------------------------------------------
  CodegenOptions co;
  co.workers = opts.threads;
  configureKernelCache(opts, co);
  std::vector<uint8_t> cacheHits;
  co.hitsOut = &cacheHits;
  std::vector<uint8_t> so = compileKernels(target, instances, co);
  reportKernelCacheHits(opts, instances, cacheHits);

  om::Header h;
  h.name = g.name;
  h.socVersion = target.name;
  h.atcVersion = ATC_VERSION;
  h.opCount = (uint32_t)g.nodes().size();
  h.memorySize = (uint64_t)arenaSize;
  h.weightSize = weights.size();
  auto bytesOf = [](const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); };
  std::vector<std::pair<uint32_t, std::vector<uint8_t>>> parts;  // moved, not copied
  parts.emplace_back(om::kModelDef, bytesOf(md.dump()));
  parts.emplace_back(om::kWeightsData, std::move(weights));
  parts.emplace_back(om::kTaskInfo, bytesOf(plan.dump()));
  parts.emplace_back(om::kKernels, std::move(so));
  return om::writeOm(h, parts);
}

}  // namespace atc
