// Model: .om reader + plan loader + executor (see docs/om-format.md).
#include <malloc.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "runtime/atc_rt_abi.h"
#include "support/checked_math.h"
#include "support/file_io.h"
#include "support/strings.h"
#include "runtime/atc_runtime.h"
#include "runtime/cpu_check.h"
#include "runtime/file_image.h"
#include "runtime/om_format.h"
#include "runtime/loop_control.h"
#include "runtime/om_signature.h"
#include "runtime/plan_buffer.h"
#include "runtime/run_sized.h"
#include "runtime/sequence_control.h"
#include "runtime/so_loader.h"
#include "runtime/step_checks.h"
#include "runtime/step_descs.h"
#include "runtime/thread_pool.h"

namespace atc {
namespace rt {

size_t dtypeSizeByName(const std::string& d) {
  static const std::map<std::string, size_t> sizes = {
      {"float32", 4}, {"float16", 2}, {"bfloat16", 2}, {"float64", 8}, {"int64", 8},
      {"int32", 4},   {"int16", 2},   {"int8", 1},     {"uint8", 1},   {"uint16", 2},
      {"uint32", 4},  {"uint64", 8},  {"bool", 1},
      {"float8_e4m3fn", 1}, {"float8_e4m3fnuz", 1}, {"float8_e5m2", 1}, {"float8_e5m2fnuz", 1},
      {"float8_e8m0fnu", 1}, {"float4_e2m1fn", 1}, {"int4", 1}, {"uint4", 1}, {"int2", 1}, {"uint2", 1}};
  auto it = sizes.find(d);
  return it == sizes.end() ? 0 : it->second;
}

std::string TensorDesc::shapeString() const {
  return "[" + joinInts(shape) + "]";
}

namespace {

struct AlignedBuf {
  void* p = nullptr;
  explicit AlignedBuf(size_t n) {
    if (n > SIZE_MAX - 64) throw RuntimeError("cannot allocate " + std::to_string(n) + " bytes");
    size_t sz = ((n + 63) / 64) * 64;
    if (sz == 0) sz = 64;
    p = aligned_alloc(64, sz);
    if (!p) throw RuntimeError("out of memory allocating " + std::to_string(sz) + " bytes");
    std::memset(p, 0, sz);
  }
  ~AlignedBuf() { free(p); }
  AlignedBuf(const AlignedBuf&) = delete;
  AlignedBuf& operator=(const AlignedBuf&) = delete;
};

// The weights: page-aligned, read-only once filled. A kernel that wrote one of its inputs
// (a wrong output index in its lowering) would otherwise change the weights for every later
// run without a sign; with the pages read-only it faults at once.
struct ReadOnlyBuf {
  void* p = nullptr;
  size_t mapped = 0;
  ReadOnlyBuf(const uint8_t* data, size_t n) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    mapped = std::max<size_t>((n + page - 1) / page * page, page);
    p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      p = nullptr;
      throw RuntimeError("out of memory allocating " + std::to_string(mapped) + " bytes of weights");
    }
    if (n) std::memcpy(p, data, n);
    if (mprotect(p, mapped, PROT_READ) != 0) {
      munmap(p, mapped);
      p = nullptr;
      throw RuntimeError("cannot make the weights read-only");
    }
  }
  ~ReadOnlyBuf() {
    if (p) munmap(p, mapped);
  }
  ReadOnlyBuf(const ReadOnlyBuf&) = delete;
  ReadOnlyBuf& operator=(const ReadOnlyBuf&) = delete;
};

int defaultThreads() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

}  // namespace

struct Model::Impl {
  std::string name, soc, dynamicKind;
  std::vector<InputRange> ranges;  // a range build's (docs/dynamic-shapes.md, "Ranges")
  std::string rangeText;           // they as messages show them: "x[1~16,3,16,16]"
  std::unique_ptr<AlignedBuf> arena;
  std::unique_ptr<ReadOnlyBuf> weights;
  uint64_t arenaSize = 0;
  std::unique_ptr<SharedObject> so;
  std::unique_ptr<ThreadPool> pool;
  struct Step {
    AtcKernelEntry fn;
    size_t argBegin, argCount;
    std::string symbol;
    std::string label;   // "symbol kernel node" for ATC_PROFILE
    std::vector<StepSpan> spans;  // per argument: its arena buffer (null: absent or in the weights)
    StepSpan workspace;           // the workspace argument, when the step is described
    // Run-sized outputs (run_sized.h): (position in Gear::args, index in Gear::runBufs).
    std::vector<std::pair<size_t, size_t>> sizes;
    double seconds = 0;  // ATC_PROFILE: total time in this step
    int64_t loop = -1;     // a loop control step (loop_control.h): its index in Gear::loops
    bool loopEnd = false;  // loop_end (else loop_begin)
    int64_t seq = -1;      // a sequence control step (sequence_control.h): its index in Gear::seqSteps
  };
  // One plan per gear (a static model: one), over the shared arena, weights and kernels.
  struct Gear {
    std::vector<uint8_t*> inPtr, outPtr;
    std::vector<int64_t> outShapeAt;   // per output: byte offset of its actual dims, -1: static shape
    std::vector<TensorDesc> lastOut;   // Model::lastOutputs()
    std::vector<Step> steps;
    std::vector<StepInfo> infos;  // steps[i]'s description (names, types, tensors): Impl::infosOf
    // A gear of a plan with step_descs: per step its entry (SIZE_MAX: a control step, described
    // in controlInfos), flops and packed shapes (runtime/step_descs.h), and what the data
    // pointers need; infos is built from them when first asked for.
    struct LazyStep {
      size_t desc;
      int64_t flops;
      std::vector<int64_t> shapes;
    };
    std::vector<LazyStep> lazy;
    std::map<size_t, StepInfo> controlInfos;
    std::vector<PlanBuffer> bufs;
    std::vector<std::vector<int64_t>> argIds;
    std::vector<void*> args;      // all steps' argument arrays, back to back
    std::vector<RunBuffer> runBufs;  // run-sized values
    std::vector<int64_t> outRun;     // per output: its index in runBufs, -1: in the arena
    std::vector<LoopRunner> loops;   // run-time loops (loop_control.h)
    std::vector<SeqStepSpec> seqSteps;  // sequence control steps (sequence_control.h)
    std::vector<std::vector<StepTensor>> lastSeq;  // per output: a sequence output's tensors
    // The params of the steps that call generic kernels (a range build): each one's address is
    // in the args slot before the step's first argument (kernels/codegen/codegen.h).
    std::vector<std::vector<int64_t>> params;
    int64_t runs = 0;             // ATC_PROFILE: runs of this gear
  };
  std::vector<Gear> gears;
  std::vector<GearDesc> gearDescs;  // gears[i]'s dims, inputs and outputs
  std::vector<StepInfo> descInfos;  // the plan's step_descs, without shapes (describeNames)
  const uint8_t* wbase = nullptr;   // the weights, in the file image or copied
  const std::vector<StepInfo>& infosOf(Gear& G);
  size_t cur = 0;
  StepObserver* observer = nullptr;
  int64_t observedRuns = 0;
  bool profile = false;     // ATC_PROFILE=1: time every step, print a table when unloaded
  bool statusCheck = false;        // TASK_INFO debug.status_check
  uint64_t redzone = 0;            // TASK_INFO debug.oom_redzone
  bool boundsCheck = false;        // TASK_INFO debug.oom_bounds_check: kernels trap on a bad access
  std::string exceptionDumpDir;    // Model::setExceptionDump
  FaultRecord fault;
  bool checked() const { return statusCheck || redzone || boundsCheck || !exceptionDumpDir.empty(); }
  void runSteps(Gear& G, const AtcRt* rt);
  // A step that sizes run-sized outputs: its size pass, then the memory, then the step.
  void sizeAndRun(Gear& G, const Step& s, const AtcRt* rt) {
    for (auto& sz : s.sizes) G.args[sz.first] = nullptr;
    s.fn(G.args.data() + s.argBegin, rt);
    for (auto& sz : s.sizes) G.runBufs[sz.second].size((const uint8_t*)arena->p, G.args);
    s.fn(G.args.data() + s.argBegin, rt);
  }
  // A loop or sequence control step: returns the index of the step to run next.
  size_t control(Gear& G, size_t i) {
    const Step& s = G.steps[i];
    if (s.seq >= 0) {
      const SeqStepSpec& q = G.seqSteps[(size_t)s.seq];
      auto sizeOutput = [&](const std::vector<int64_t>& dims) {
        RunBuffer& b = G.runBufs[(size_t)q.outRun];
        if (!dims.empty()) std::memcpy((uint8_t*)arena->p + b.dimsOffset(), dims.data(), 8 * dims.size());
        b.size((const uint8_t*)arena->p, G.args);
        return G.args[s.argBegin + q.args.size() - 1];
      };
      runSequenceStep(q, seqStore, G.args.data() + s.argBegin, (const uint8_t*)arena->p, sizeOutput);
      return i + 1;
    }
    LoopRunner& L = G.loops[(size_t)s.loop];
    return s.loopEnd ? L.end((uint8_t*)arena->p, G.args, G.runBufs) : L.begin();
  }
  SequenceStore seqStore;  // the sequences made by the current run
  void sequenceOutputs(Gear& G, const GearDesc& D);
  [[noreturn]] void stepFailed(const Step& s, const StepInfo& info, const std::string& reason);
  std::unique_ptr<FileImage> image;  // Model::load: the file, read-only; the weights are used in place
  void printProfile() const;
  void load(const uint8_t* data, size_t size, const std::string& what, const LoadOptions& o, bool weightsInPlace,
            bool checkOnly);
  std::vector<const nlohmann::json*> readGears(const nlohmann::json& plan, const std::string& what);
  void start(int threads);
};

// ATC_PROFILE report: per gear that ran, per step (sorted by time) the mean time per run
// and the share.
void Model::Impl::printProfile() const {
  if (!profile) return;
  for (size_t gi = 0; gi < gears.size(); ++gi) {
    const Gear& G = gears[gi];
    if (G.runs == 0) continue;
    const auto& steps = G.steps;
    double total = 0;
    for (auto& s : steps) total += s.seconds;
    std::vector<size_t> order(steps.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return steps[a].seconds > steps[b].seconds; });
    std::string label = name;
    if (!dynamicKind.empty()) label += " gear " + std::to_string(gi);
    fprintf(stderr, "[ATC_PROFILE] %s: %lld runs, %.3f ms per run in %zu steps\n", label.c_str(), (long long)G.runs,
            total * 1e3 / G.runs, steps.size());
    for (size_t i : order)
      fprintf(stderr, "[ATC_PROFILE] step %3zu %9.4f ms %5.1f%%  %s\n", i, steps[i].seconds * 1e3 / G.runs,
              total > 0 ? 100.0 * steps[i].seconds / total : 0.0, steps[i].label.c_str());
  }
}

Model::Model() : impl_(new Impl) {}
Model::~Model() { impl_->printProfile(); }

namespace {

RuntimeError badPlan(const std::string& what, const std::string& msg) {
  return RuntimeError(what + ": invalid execution plan: " + msg);
}

// Checks the header and checksum, then the signature when a verify key is given: all before
// anything of the model is used.
om::OmView parseAndVerify(const uint8_t* data, size_t size, const std::string& what, const LoadOptions& o) {
  try {
    om::OmView v = om::parseOm(data, size, what);
    if (!o.verifyKey.empty()) {
      std::string pem, err = readFileBounded(o.verifyKey, 1 << 16, &pem);
      if (!err.empty()) throw RuntimeError("cannot read the verify key " + o.verifyKey + ": " + err);
      try {
        om::verifyOmSignature(v, pem, "the verify key " + o.verifyKey);
      } catch (const om::OmError& e) {
        throw RuntimeError(what + " is refused: " + e.what());
      }
    }
    return v;
  } catch (const om::OmError& e) {
    throw RuntimeError(e.what());
  }
}

std::vector<PlanBuffer> readPlanBuffers(const nlohmann::json& plan, uint64_t arenaSize, uint64_t weightSize,
                                        const std::string& what) {
  std::vector<PlanBuffer> out;
  for (auto& b : plan.at("buffers")) {
    std::string mem = b.at("mem").get<std::string>();
    if (mem != "arena" && mem != "weights" && mem != "run") throw badPlan(what, "unknown memory kind " + mem);
    PlanBuffer pb{mem == "weights", b.at("offset").get<uint64_t>(), b.at("size").get<uint64_t>()};
    if (mem == "run") {
      pb.run = true;
      pb.rank = b.at("rank").get<int64_t>();
      pb.esize = b.at("esize").get<size_t>();
      if (pb.rank < 0 || pb.rank > 8 || pb.size < 8 * (uint64_t)pb.rank || pb.offset % 8 ||
          (pb.esize != 1 && pb.esize != 2 && pb.esize != 4 && pb.esize != 8))
        throw badPlan(what, "a run-sized buffer of rank " + std::to_string(pb.rank) + ", element size " +
                                std::to_string(pb.esize) + " and a dims slot of " + std::to_string(pb.size) + " bytes");
    }
    uint64_t cap = pb.weights ? weightSize : arenaSize;
    if (pb.offset > cap || pb.size > cap - pb.offset) throw badPlan(what, "buffer outside its memory");
    out.push_back(pb);
  }
  return out;
}

size_t planBufferId(const nlohmann::json& j, const std::vector<PlanBuffer>& bufs, const std::string& what) {
  size_t id = j.get<size_t>();
  if (id >= bufs.size()) throw badPlan(what, "buffer id out of range");
  return id;
}

// Inputs or outputs of the plan: the declared byte count must be the shape's (checked
// arithmetic) and fit the buffer. Returns the buffer id of each.
std::vector<size_t> readTensorDescs(const nlohmann::json& arr, const std::vector<PlanBuffer>& bufs,
                                    const std::string& what, std::vector<TensorDesc>& out) {
  std::vector<size_t> ids;
  for (auto& t : arr) {
    TensorDesc d;
    d.name = t.at("name").get<std::string>();
    d.dtype = t.at("dtype").get<std::string>();
    d.dtypeCode = t.at("dtype_code").get<int32_t>();
    d.shape = t.at("shape").get<std::vector<int64_t>>();
    d.bytes = t.at("bytes").get<uint64_t>();
    size_t id = planBufferId(t.at("buffer"), bufs, what);
    d.sequence = t.value("sequence", false);  // its buffer holds a handle (sequence_control.h)
    if (d.sequence && (d.dtype != "int64" || !d.shape.empty() || bufs[id].run))
      throw badPlan(what, d.name + ": a sequence output needs one int64 handle");
    if (t.value("run_sized", false) || bufs[id].run) {  // an output sized by each run
      bool dimsOk = (int64_t)d.shape.size() == bufs[id].rank;
      for (int64_t x : d.shape) dimsOk = dimsOk && x >= -1;
      if (!t.value("run_sized", false) || !bufs[id].run || !dimsOk || d.bytes != 0 ||
          dtypeSizeByName(d.dtype) != bufs[id].esize)
        throw badPlan(what, d.name + ": a run-sized tensor needs a run buffer of its rank and element size");
      d.runSized = true;
      out.push_back(d);
      ids.push_back(id);
      continue;
    }
    int64_t want = -1;
    size_t es = dtypeSizeByName(d.dtype);
    if (!es || !shapeSize(d.shape, es, nullptr, &want) || (uint64_t)want != d.bytes)
      throw badPlan(what, d.name + ": " + std::to_string(d.bytes) + " bytes declared for " + d.dtype + " of that shape");
    if (bufs[id].size < d.bytes) throw badPlan(what, "buffer of " + d.name + " is too small");
    out.push_back(d);
    ids.push_back(id);
  }
  return ids;
}

// Outputs whose shape depends on data: "shape_at", the byte offset of the actual dims (int64,
// one per dim) in the output's buffer, after the bound's bytes and inside the buffer.
std::vector<int64_t> readShapeAt(const nlohmann::json& arr, const std::vector<PlanBuffer>& bufs,
                                 const std::vector<size_t>& ids, const std::string& what,
                                 std::vector<TensorDesc>& descs) {
  std::vector<int64_t> at;
  for (size_t i = 0; i < descs.size(); ++i) {
    const auto& t = arr[i];
    if (!t.contains("shape_at") || descs[i].runSized) {
      at.push_back(-1);
      continue;
    }
    uint64_t off = t.at("shape_at").get<uint64_t>(), dims = std::max<size_t>(descs[i].shape.size(), 1);
    if (off < descs[i].bytes || off % 8 || off > bufs[ids[i]].size || (bufs[ids[i]].size - off) / 8 < dims)
      throw badPlan(what, descs[i].name + ": its run-time shape does not lie after its data in its buffer");
    descs[i].shapeFromData = true;
    at.push_back((int64_t)off);
  }
  return at;
}

// A kernel step's multiply-add work as the plan gives it (cube ops; 0: not counted).
int64_t stepFlops(const nlohmann::json& s) { return std::max<int64_t>(s.value("flops", int64_t(0)), 0); }

// A step that describes itself (planSteps in backend/om_builder.cpp; a static model's steps,
// a gear of a plan without step_descs, a control step): "in" and "out" follow the argument
// order, each tensor with its shape.
StepInfo describeInline(const nlohmann::json& s, size_t index, const std::vector<int64_t>& argIds,
                        const std::vector<PlanBuffer>& bufs, const uint8_t* arena, const uint8_t* weights) {
  StepInfo info = describeNames(s);
  info.index = index;
  info.flops = stepFlops(s);
  for (const char* role : {"in", "out"}) {
    if (!s.contains(role)) break;
    const nlohmann::json& tensors = s.at(role);
    std::vector<StepTensor>& list = role[0] == 'i' ? info.inputs : info.outputs;
    for (size_t j = 0; j < tensors.size(); ++j)
      if (!tensors[j].is_null()) list[j].desc.shape = tensors[j].at("shape").get<std::vector<int64_t>>();
  }
  attachTensorData(info, argIds, bufs, arena, weights);
  return info;
}

void checkCpuFeatures(const nlohmann::json& plan, const std::string& what, const std::string& soc) {
  if (!plan.contains("cpu_features")) return;
  auto missing = missingCpuFeatures(plan["cpu_features"].get<std::vector<std::string>>());
  if (missing.empty()) return;
  std::string list;
  for (auto& f : missing) list += (list.empty() ? "" : ", ") + f;
  throw RuntimeError(what + " was compiled for target " + soc + " and needs CPU features this CPU lacks: " + list +
                     ". Rebuild it with atc --soc_version=native (or a profile this CPU supports).");
}

}  // namespace

namespace {

// One gear's plan, checked (its buffers lie in the arena and the weights, its inputs and
// outputs fit their buffers), before any memory is allocated.
struct CheckedPlan {
  const nlohmann::json* plan = nullptr;
  std::vector<PlanBuffer> bufs;
  std::vector<size_t> inIds, outIds;
  std::vector<int64_t> outShapeAt;             // per output: "shape_at", -1 when absent
  std::vector<std::vector<int64_t>> stepArgs;  // buffer ids, -1 = absent
  std::vector<std::vector<size_t>> stepSizes;  // per step: argument positions of the run-sized outputs it sizes
  std::vector<std::vector<int64_t>> stepParams;  // per step: the params of a generic kernel's call
  std::vector<bool> stepGeneric;                 // per step: it calls a generic kernel
  std::vector<const nlohmann::json*> stepDesc;   // per step: its description (the step, or its step_descs entry)
  std::vector<LoopSpec> loops;                 // loop control steps (loop_control.h)
  std::vector<SeqStepSpec> seqs;               // sequence control steps (sequence_control.h)
  GearDesc desc;
};

// A range build (docs/dynamic-shapes.md, "Ranges") holds one plan per shape: at most this many.
constexpr size_t kMaxRangeShapes = 1024;

// TASK_INFO dynamic.ranges ([{name, min, max}]): each input's lowest and highest shape.
std::vector<InputRange> readRanges(const nlohmann::json& ranges, const std::string& what) {
  std::vector<InputRange> out;
  for (auto& r : ranges) {
    InputRange x{r.at("name").get<std::string>(), r.at("min").get<std::vector<int64_t>>(),
                 r.at("max").get<std::vector<int64_t>>()};
    bool ok = x.min.size() == x.max.size();
    for (size_t k = 0; ok && k < x.min.size(); ++k) ok = x.min[k] >= 0 && x.min[k] <= x.max[k];
    if (!ok) throw badPlan(what, "the shape range of input " + x.name + " is not min <= max");
    out.push_back(std::move(x));
  }
  return out;
}

// As messages show them: "ids[1,1~512], mask[1,1~512]".
std::string describeRanges(const std::vector<InputRange>& ranges) {
  std::string s;
  for (auto& r : ranges) {
    s += (s.empty() ? "" : ", ") + r.name + "[";
    for (size_t k = 0; k < r.min.size(); ++k)
      s += (k ? "," : "") + std::to_string(r.min[k]) + (r.min[k] == r.max[k] ? "" : "~" + std::to_string(r.max[k]));
    s += "]";
  }
  return s;
}

// A run-sized buffer is sized by one step, before any step reads it, and a graph output in
// one is sized by some step: otherwise a kernel would get a null pointer.
void checkRunSized(CheckedPlan& c, const std::string& what) {
  std::vector<bool> sized(c.bufs.size(), false);
  for (size_t i = 0; i < c.stepArgs.size(); ++i) {
    const auto& args = c.stepArgs[i];
    for (size_t pos : c.stepSizes[i]) {
      if (pos >= args.size() || args[pos] < 0 || !c.bufs[(size_t)args[pos]].run || sized[(size_t)args[pos]])
        throw badPlan(what, "step " + std::to_string(i) +
                                " sizes an argument that is no run-sized buffer, or one sized before");
      sized[(size_t)args[pos]] = true;
    }
    for (int64_t a : args)
      if (a >= 0 && c.bufs[(size_t)a].run && !sized[(size_t)a])
        throw badPlan(what, "step " + std::to_string(i) + " uses a run-sized buffer no earlier step sized");
  }
  for (size_t id : c.outIds)
    if (c.bufs[id].run && !sized[id]) throw badPlan(what, "a run-sized output no step sizes");
  for (size_t id : c.inIds)
    if (c.bufs[id].run) throw badPlan(what, "an input in a run-sized buffer");
}

// A kernel step of a plan with step_descs (format_version 3, docs/om-format.md): its `desc`
// names an entry, and `in_shapes` / `out_shapes` give a shape for each of the entry's tensors
// (null for an absent one). Returns the entry.
const nlohmann::json& checkStepDesc(const nlohmann::json& s, const nlohmann::json& descs, size_t step,
                                    const std::string& what) {
  const std::string at = "step " + std::to_string(step);
  if (!s.contains("desc") || !s.at("desc").is_number_unsigned() || s.at("desc").get<uint64_t>() >= descs.size())
    throw badPlan(what, at + " names no entry of step_descs");
  const nlohmann::json& d = descs[s.at("desc").get<size_t>()];
  for (const char* role : {"in", "out"}) {
    const nlohmann::json& tensors = d.at(role);
    const nlohmann::json& shapes = s.at(role[0] == 'i' ? "in_shapes" : "out_shapes");
    if (!tensors.is_array() || !shapes.is_array() || shapes.size() != tensors.size())
      throw badPlan(what, at + ": its " + role + "put shapes do not match its description's tensors");
    for (size_t j = 0; j < shapes.size(); ++j) {
      if (shapes[j].is_null() != tensors[j].is_null())
        throw badPlan(what, at + ": a shape for an absent tensor, or none for a present one");
      if (shapes[j].is_null()) continue;
      bool ints = shapes[j].is_array();
      for (size_t k = 0; ints && k < shapes[j].size(); ++k) ints = shapes[j][k].is_number_integer();
      if (!ints) throw badPlan(what, at + ": a shape that is not a list of integers");
    }
  }
  return d;
}

// generic: the symbols of the generic kernels (TASK_INFO `generic_kernels`) -> their params
// count (0 until a step gives it): a step calls one of them exactly when it has `params`,
// which its kernel reads in place of baked ones, as many in every step that calls it.
CheckedPlan checkPlan(const nlohmann::json& p, uint64_t arenaSize, uint64_t wsize, const std::string& what,
                      std::map<std::string, size_t>& generic, const nlohmann::json* descs) {
  CheckedPlan c;
  c.plan = &p;
  c.bufs = readPlanBuffers(p, arenaSize, wsize, what);
  c.inIds = readTensorDescs(p.at("inputs"), c.bufs, what, c.desc.inputs);
  for (size_t i = 0; i < c.inIds.size(); ++i)
    if (c.bufs[c.inIds[i]].weights) throw badPlan(what, "input " + c.desc.inputs[i].name + " is in the weights");
  c.outIds = readTensorDescs(p.at("outputs"), c.bufs, what, c.desc.outputs);
  c.outShapeAt = readShapeAt(p.at("outputs"), c.bufs, c.outIds, what, c.desc.outputs);
  for (auto& s : p.at("steps")) {
    if (!s.contains("control")) s.at("symbol").get<std::string>();
    c.stepArgs.emplace_back();
    for (auto& a : s.at("args")) c.stepArgs.back().push_back(a.is_null() ? -1 : (int64_t)planBufferId(a, c.bufs, what));
    c.stepSizes.push_back(s.contains("sizes") ? s.at("sizes").get<std::vector<size_t>>() : std::vector<size_t>());
    c.stepDesc.push_back(s.contains("control") || !descs ? &s : &checkStepDesc(s, *descs, c.stepDesc.size(), what));
    bool isGeneric = !s.contains("control") && generic.count(s.at("symbol").get<std::string>());
    if (isGeneric != s.contains("params"))
      throw badPlan(what, "step " + std::to_string(c.stepParams.size()) +
                              (isGeneric ? " calls a generic kernel without params"
                                         : " has params for a specialised kernel"));
    c.stepGeneric.push_back(isGeneric);
    c.stepParams.push_back(isGeneric ? s.at("params").get<std::vector<int64_t>>() : std::vector<int64_t>());
    if (isGeneric) {
      size_t& count = generic[s.at("symbol").get<std::string>()];
      if (c.stepParams.back().empty() || (count && count != c.stepParams.back().size()))
        throw badPlan(what, "step " + std::to_string(c.stepParams.size() - 1) + " gives its generic kernel " +
                                std::to_string(c.stepParams.back().size()) + " params, another step " +
                                std::to_string(count));
      count = c.stepParams.back().size();
    }
  }
  checkRunSized(c, what);
  c.loops = checkLoopSteps(p.at("steps"), c.stepArgs, c.bufs, what);
  c.seqs = checkSequenceSteps(p.at("steps"), c.stepArgs, c.bufs, what);
  if (p.contains("dims")) c.desc.dims = p.at("dims").get<std::vector<int64_t>>();
  return c;
}

// Step i's description: built now (a plan without step_descs, a control step) or noted for
// Impl::infosOf (descInfos: the plan's step_descs). Returns how many tensors it describes.
size_t noteStepInfo(Model::Impl::Gear& G, const nlohmann::json& s, size_t i, const CheckedPlan& c,
                    const std::vector<StepInfo>* descInfos, const uint8_t* arena, const uint8_t* wbase) {
  const StepInfo* info = nullptr;  // without shapes or data when noted
  if (!descInfos) {
    G.infos.push_back(describeInline(s, i, c.stepArgs[i], c.bufs, arena, wbase));
    info = &G.infos.back();
  } else if (s.contains("control")) {
    info = &(G.controlInfos[i] = describeInline(s, i, c.stepArgs[i], c.bufs, arena, wbase));
    G.lazy.push_back({SIZE_MAX, 0, {}});
  } else {
    const size_t d = s.at("desc").get<size_t>();  // checkStepDesc: an entry
    info = &(*descInfos)[d];
    G.lazy.push_back({d, stepFlops(s), packShapes(s)});
  }
  return info->inputs.size() + info->outputs.size();
}

// The gears of one model differ in shapes only: the same inputs and outputs (names, dtypes,
// ranks), the same number of dims, no two alike.
void checkGearsAgree(const std::vector<CheckedPlan>& plans, const std::string& what) {
  const GearDesc& g0 = plans[0].desc;
  for (size_t i = 1; i < plans.size(); ++i) {
    const GearDesc& g = plans[i].desc;
    auto same = [](const std::vector<TensorDesc>& a, const std::vector<TensorDesc>& b) {
      if (a.size() != b.size()) return false;
      for (size_t k = 0; k < a.size(); ++k)
        if (a[k].name != b[k].name || a[k].dtype != b[k].dtype || a[k].shape.size() != b[k].shape.size()) return false;
      return true;
    };
    if (!same(g.inputs, g0.inputs) || !same(g.outputs, g0.outputs) || g.dims.size() != g0.dims.size())
      throw badPlan(what, "gear " + std::to_string(i) + " has other inputs or outputs than gear 0");
    for (size_t k = 0; k < i; ++k)
      if (plans[k].desc.dims == g.dims) throw badPlan(what, "gears " + std::to_string(k) + " and " + std::to_string(i) + " are alike");
  }
}

// TASK_INFO "debug" (atc --status_check, --op_debug_config oom): every arena buffer of every
// gear must leave room for its red zones inside the arena.
void readDebugChecks(const nlohmann::json& plan, const std::vector<CheckedPlan>& checked, uint64_t arenaSize,
                     const std::string& what, bool* statusCheck, uint64_t* redzone, bool* boundsCheck) {
  if (!plan.contains("debug")) return;
  const auto& d = plan.at("debug");
  *statusCheck = d.value("status_check", false);
  *boundsCheck = d.value("oom_bounds_check", false);
  *redzone = d.value("oom_redzone", uint64_t(0));
  if (*redzone > 4096 || *redzone % 64) throw badPlan(what, "oom red zone of " + std::to_string(*redzone) + " bytes");
  if (!*redzone) return;
  for (const CheckedPlan& c : checked)
    for (const PlanBuffer& b : c.bufs)
      if (!b.weights && (b.offset < *redzone || b.size > arenaSize - b.offset || arenaSize - b.offset - b.size < *redzone))
        throw badPlan(what, "a buffer has no room for its oom red zones");
}

// The loop and sequence control steps of a gear's plan (loop_control.h, sequence_control.h).
template <class Ptr>
void attachControlSteps(Model::Impl::Gear& G, const CheckedPlan& c, const Ptr& ptr,
                        std::map<size_t, size_t>& runIndex) {
  for (const LoopSpec& spec : c.loops) {
    G.steps[spec.begin].loop = G.steps[spec.end].loop = (int64_t)G.loops.size();
    G.steps[spec.end].loopEnd = true;
    G.loops.emplace_back(spec, [&](int64_t id) { return ptr((size_t)id); },
                         [&](int64_t id) { return runIndex[(size_t)id]; });
  }
  for (SeqStepSpec spec : c.seqs) {
    G.steps[spec.step].seq = (int64_t)G.seqSteps.size();
    if (spec.args.back().run) spec.outRun = (int64_t)runIndex[(size_t)spec.args.back().buf];
    G.seqSteps.push_back(spec);
  }
  G.lastSeq.resize(c.desc.outputs.size());
}

}  // namespace

// A dynamic model's gears (docs/dynamic-shapes.md): their kind, their plans (2 to 100; a range
// build's 2 to 1024) and a range build's ranges. A static model: its one plan.
std::vector<const nlohmann::json*> Model::Impl::readGears(const nlohmann::json& plan, const std::string& what) {
  std::vector<const nlohmann::json*> planList;
  if (!plan.contains("gears")) return {&plan};
  // 2: each step describes itself; 3: the descriptions in step_descs, once for all gears
  const int version = plan.value("format_version", 0);
  if (version != 2 && version != 3) throw badPlan(what, "gears need format_version 2 or 3");
  if ((version == 3) != plan.contains("step_descs"))
    throw badPlan(what, "format_version 3 goes with step_descs, and only it");
  dynamicKind = plan.at("dynamic").at("kind").get<std::string>();
  if (dynamicKind != "batch" && dynamicKind != "image_size" && dynamicKind != "dims" && dynamicKind != "range")
    throw badPlan(what, "unknown dynamic kind " + dynamicKind);
  for (auto& g : plan.at("gears")) planList.push_back(&g);
  const size_t most = dynamicKind == "range" ? kMaxRangeShapes : 100;  // ATC's limit for gears
  if (planList.size() < 2 || planList.size() > most)
    throw badPlan(what, std::to_string(planList.size()) + " gears (a dynamic model has 2 to " + std::to_string(most) +
                            ")");
  if (dynamicKind == "range") {
    ranges = readRanges(plan.at("dynamic").at("ranges"), what);
    rangeText = describeRanges(ranges);
  }
  return planList;
}

// Everything a load checks, in order: header, checksum, signature, plan (every gear's),
// CPU features and the kernel library's ELF bounds. With checkOnly nothing is allocated or mapped.
void Model::Impl::load(const uint8_t* data, size_t size, const std::string& what, const LoadOptions& o,
                       bool weightsInPlace, bool checkOnly) {
  om::OmView v = parseAndVerify(data, size, what, o);
  nlohmann::json plan;
  try {
    plan = nlohmann::json::parse(v.partString(om::kTaskInfo));
  } catch (const std::exception& e) {
    throw badPlan(what, e.what());
  }
  name = v.header.name;
  soc = v.header.socVersion;
  try {
    uint64_t wsize = 0;
    const uint8_t* w = v.has(om::kWeightsData) ? v.part(om::kWeightsData, &wsize) : nullptr;
    arenaSize = plan.at("arena_size").get<uint64_t>();
    if (arenaSize > (uint64_t)kMaxTensorBytes)  // a crafted size near 2^64 must not wrap to a tiny arena
      throw badPlan(what, "arena size " + std::to_string(arenaSize) + " is larger than any model can need");
    std::map<std::string, size_t> generic;
    if (plan.contains("generic_kernels"))
      for (auto& g : plan.at("generic_kernels")) generic[g.get<std::string>()] = 0;
    std::vector<const nlohmann::json*> planList = readGears(plan, what);  // a static model's plan, or each gear's
    const nlohmann::json* descs = plan.contains("step_descs") ? &plan.at("step_descs") : nullptr;
    if (descs && (!descs->is_array() || !plan.contains("gears")))
      throw badPlan(what, "step_descs is not an array of a dynamic model's step descriptions");
    if (descs)
      for (auto& d : *descs) descInfos.push_back(describeNames(d));
    std::vector<CheckedPlan> checked;
    for (const nlohmann::json* p : planList) {
      uint64_t gearArena = p->value("arena_size", arenaSize);
      if (gearArena > arenaSize) throw badPlan(what, "a gear's arena is larger than the model's");
      checked.push_back(checkPlan(*p, gearArena, wsize, what, generic, descs));
    }
    checkGearsAgree(checked, what);
    readDebugChecks(plan, checked, arenaSize, what, &statusCheck, &redzone, &boundsCheck);
    checkCpuFeatures(plan, what, soc);
    uint64_t ksize = 0;
    const uint8_t* k = v.has(om::kKernels) ? v.part(om::kKernels, &ksize) : nullptr;
    bool anySteps = false;
    for (auto& c : checked)  // kernel steps (a plan of control steps only needs no kernels)
      for (auto& s : c.plan->at("steps")) anySteps = anySteps || !s.contains("control");
    if (anySteps && !ksize) throw badPlan(what, "steps but no kernels");
    if (checkOnly) {
      if (anySteps) checkSharedObject(k, ksize);
      return;
    }
    // The memory: weights used in place (a read-only file image) or copied read-only; the arena.
    wbase = w;
    if (!weightsInPlace) {
      weights.reset(new ReadOnlyBuf(w, wsize));
      wbase = (const uint8_t*)weights->p;
    }
    arena.reset(new AlignedBuf(arenaSize));
    if (anySteps) so.reset(new SharedObject(k, ksize));
    for (CheckedPlan& c : checked) {
      auto ptr = [&](size_t id) {
        if (c.bufs[id].run) return (uint8_t*)nullptr;  // allocated when a run sizes it
        return c.bufs[id].weights ? (uint8_t*)wbase + c.bufs[id].offset : (uint8_t*)arena->p + c.bufs[id].offset;
      };
      Gear G;
      std::map<size_t, size_t> runIndex;  // buffer id -> G.runBufs
      for (size_t id = 0; id < c.bufs.size(); ++id)
        if (c.bufs[id].run) {
          runIndex[id] = G.runBufs.size();
          G.runBufs.emplace_back("buffer " + std::to_string(id), c.bufs[id].offset, c.bufs[id].rank, c.bufs[id].esize);
        }
      for (size_t k = 0; k < c.outIds.size(); ++k) {
        auto it = runIndex.find(c.outIds[k]);
        G.outRun.push_back(it == runIndex.end() ? -1 : (int64_t)it->second);
        if (it != runIndex.end()) G.runBufs[it->second].setName(c.desc.outputs[k].name);
      }
      for (size_t id : c.inIds) G.inPtr.push_back(ptr(id));
      for (size_t id : c.outIds) G.outPtr.push_back(ptr(id));
      G.outShapeAt = c.outShapeAt;
      G.lastOut = c.desc.outputs;
      const auto& stepList = c.plan->at("steps");
      for (size_t i = 0; i < stepList.size(); ++i) {
        const auto& s = stepList[i];
        Step st;
        if (s.contains("control")) {
          st.label = s.at("control").get<std::string>() + " " + s.value("node", std::string());
        } else {
          st.symbol = s.at("symbol").get<std::string>();
          st.fn = (AtcKernelEntry)so->symbol(st.symbol);
          const nlohmann::json& d = *c.stepDesc[i];
          st.label = st.symbol + " " + d.value("kernel", std::string()) + " " + d.value("node", std::string());
        }
        if (c.stepGeneric[i]) {  // the slot before the arguments: the params' address
          G.params.push_back(std::move(c.stepParams[i]));
          G.args.push_back(G.params.back().data());
        }
        st.argBegin = G.args.size();
        for (int64_t a : c.stepArgs[i]) {
          if (a >= 0 && c.bufs[(size_t)a].run) G.runBufs[runIndex[(size_t)a]].argSlots.push_back(G.args.size());
          G.args.push_back(a < 0 ? nullptr : (void*)ptr((size_t)a));
          bool arena = a >= 0 && !c.bufs[(size_t)a].weights && !c.bufs[(size_t)a].run;
          st.spans.push_back(arena ? StepSpan{ptr((size_t)a), c.bufs[(size_t)a].size} : StepSpan{});
        }
        st.argCount = G.args.size() - st.argBegin;
        for (size_t pos : c.stepSizes[i]) st.sizes.push_back({st.argBegin + pos, runIndex[(size_t)c.stepArgs[i][pos]]});
        size_t described = noteStepInfo(G, s, i, c, descs ? &descInfos : nullptr, (const uint8_t*)arena->p, wbase);
        if (described && described < st.spans.size()) st.workspace = st.spans.back();
        G.steps.push_back(st);
      }
      attachControlSteps(G, c, ptr, runIndex);
      if (descs) {  // what infosOf needs (c is done with)
        G.bufs = std::move(c.bufs);
        G.argIds = std::move(c.stepArgs);
      }
      gears.push_back(std::move(G));
      gearDescs.push_back(std::move(c.desc));
    }
  } catch (const nlohmann::json::exception& e) {
    throw badPlan(what, e.what());
  } catch (const om::OmError& e) {
    throw RuntimeError(e.what());
  }
}

// The parsed plan is gone after a load: give its memory back to the system (a range build's
// plans parse into hundreds of MB that malloc would otherwise keep).
static void releaseParseMemory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

// A gear's step descriptions; a gear of a plan with step_descs builds them when first asked.
const std::vector<StepInfo>& Model::Impl::infosOf(Gear& G) {
  if (G.lazy.empty() || !G.infos.empty()) return G.infos;
  G.infos.reserve(G.lazy.size());
  for (size_t i = 0; i < G.lazy.size(); ++i) {
    const Gear::LazyStep& L = G.lazy[i];
    if (L.desc == SIZE_MAX) {
      G.infos.push_back(G.controlInfos.at(i));
      continue;
    }
    StepInfo info = descInfos[L.desc];
    info.index = i;
    info.flops = L.flops;
    unpackShapes(L.shapes, info);
    attachTensorData(info, G.argIds[i], G.bufs, (const uint8_t*)arena->p, wbase);
    G.infos.push_back(std::move(info));
  }
  return G.infos;
}

void Model::Impl::start(int threads) {
  releaseParseMemory();
  pool.reset(new ThreadPool(threads > 0 ? threads : defaultThreads()));
  const char* prof = getenv("ATC_PROFILE");
  profile = prof && *prof && std::strcmp(prof, "0") != 0;
}

std::unique_ptr<Model> Model::load(const std::string& path, int threads) {
  LoadOptions o;
  o.threads = threads;
  return load(path, o);
}

std::unique_ptr<Model> Model::load(const std::string& path, const LoadOptions& o) {
  std::unique_ptr<Model> m(new Model());
  m->impl_->image.reset(new FileImage(path, kMaxRuntimeFileBytes));
  m->impl_->load(m->impl_->image->data(), m->impl_->image->size(), path, o, /*weightsInPlace=*/true, false);
  m->impl_->start(o.threads);
  return m;
}

std::unique_ptr<Model> Model::loadFromMemory(const uint8_t* data, size_t size, int threads, const std::string& what) {
  LoadOptions o;
  o.threads = threads;
  return loadFromMemory(data, size, o, what);
}

std::unique_ptr<Model> Model::loadFromMemory(const uint8_t* data, size_t size, const LoadOptions& o,
                                             const std::string& what) {
  std::unique_ptr<Model> m(new Model());
  m->impl_->load(data, size, what, o, /*weightsInPlace=*/false, false);
  m->impl_->start(o.threads);
  return m;
}

void Model::check(const uint8_t* data, size_t size, const LoadOptions& o, const std::string& what) {
  Model m;
  m.impl_->load(data, size, what, o, false, /*checkOnly=*/true);
}

const std::vector<TensorDesc>& Model::inputs() const { return impl_->gearDescs[impl_->cur].inputs; }
const std::vector<TensorDesc>& Model::outputs() const { return impl_->gearDescs[impl_->cur].outputs; }
const std::string& Model::dynamicKind() const { return impl_->dynamicKind; }
const std::vector<GearDesc>& Model::gears() const { return impl_->gearDescs; }
const std::vector<InputRange>& Model::inputRanges() const { return impl_->ranges; }
size_t Model::gear() const { return impl_->cur; }

void Model::setGear(size_t i) {
  if (i >= impl_->gears.size())
    throw RuntimeError("gear " + std::to_string(i) + " is out of range: the model has " +
                       std::to_string(impl_->gears.size()) + " gear(s): " + acceptedShapes());
  if (impl_->observer && i != impl_->cur)  // it was set up for the current gear's steps
    throw RuntimeError("cannot change the gear while a step observer (data dump, profiler) is set: remove it first");
  impl_->cur = i;
}

std::string Model::acceptedShapes() const {
  if (!impl_->rangeText.empty()) return "every shape of " + impl_->rangeText;
  std::string s;
  for (size_t g = 0; g < impl_->gearDescs.size(); ++g) {
    const GearDesc& d = impl_->gearDescs[g];
    s += (g ? "; " : "") + std::string("gear ") + std::to_string(g);
    if (!impl_->dynamicKind.empty()) {
      s += " (" + impl_->dynamicKind + " " + joinInts(d.dims) + ")";
    }
    s += ":";
    for (size_t k = 0; k < d.inputs.size(); ++k) s += (k ? ", " : " ") + d.inputs[k].name + d.inputs[k].shapeString();
  }
  return s;
}

size_t Model::findGear(const std::vector<std::vector<int64_t>>& shapes) const {
  for (size_t g = 0; g < impl_->gearDescs.size(); ++g) {
    const auto& ins = impl_->gearDescs[g].inputs;
    bool ok = shapes.size() == ins.size();
    for (size_t k = 0; ok && k < ins.size(); ++k) ok = ins[k].shape == shapes[k];
    if (ok) return g;
  }
  std::string given;
  for (size_t k = 0; k < shapes.size(); ++k) given += (k ? ", [" : "[") + joinInts(shapes[k]) + "]";
  if (!impl_->rangeText.empty())
    throw RuntimeError("inputs of shape " + given + " lie outside the model's shape ranges; it accepts " +
                       acceptedShapes());
  throw RuntimeError("no gear of the model takes inputs of shape " + given + "; it accepts " + acceptedShapes());
}

size_t Model::findGearByDims(const std::vector<int64_t>& dims) const {
  for (size_t g = 0; g < impl_->gearDescs.size(); ++g)
    if (impl_->gearDescs[g].dims == dims) return g;
  std::string given = joinInts(dims);
  if (impl_->dynamicKind.empty())
    throw RuntimeError("the model is static (built without dynamic gears), so " + given +
                       " selects nothing; it accepts " + acceptedShapes());
  throw RuntimeError("no gear of the model is " + impl_->dynamicKind + " " + given + "; it accepts " + acceptedShapes());
}
const std::string& Model::name() const { return impl_->name; }
const std::string& Model::socVersion() const { return impl_->soc; }
int Model::threads() const { return impl_->pool->threads(); }
uint64_t Model::arenaBytes() const { return impl_->arenaSize; }
const std::vector<StepInfo>& Model::steps() const { return impl_->infosOf(impl_->gears[impl_->cur]); }
void Model::setStepObserver(StepObserver* observer) {
  impl_->observer = observer;
  impl_->observedRuns = 0;
}

namespace {
// The description of a shapeFromData output after a run: the dims its kernel wrote at shapeAt,
// each within the bound (a kernel never writes more, but the data would be cut, not overrun).
TensorDesc dataShapedOutput(const TensorDesc& bound, const uint8_t* buf, int64_t shapeAt) {
  TensorDesc d = bound;
  uint64_t n = 1;
  for (size_t k = 0; k < d.shape.size(); ++k) {
    int64_t v;
    std::memcpy(&v, buf + shapeAt + 8 * k, 8);
    if (v == -1)  // a kernel's refusal (reduce_axes, slice_rt, split_rt): no valid shape for these inputs
      throw RuntimeError("output " + bound.name + ": this run's input values give it no valid shape (for example a "
                         "Reduce or Slice axis fed at run time outside [-rank, rank) or repeated, a zero Slice "
                         "step, Split sizes not summing to the axis dim); the model accepts shapes within " +
                         bound.shapeString());
    if (v < 0 || v > bound.shape[k])
      throw RuntimeError("output " + bound.name + ": its kernel gave dim " + std::to_string(k) + " = " +
                         std::to_string(v) + ", outside its bound " + bound.shapeString());
    d.shape[k] = v;
    n *= (uint64_t)v;
  }
  d.bytes = n * dtypeSizeByName(d.dtype);
  return d;
}
}  // namespace

void Model::run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs) {
  Impl& I = *impl_;
  Impl::Gear& G = I.gears[I.cur];
  const GearDesc& D = I.gearDescs[I.cur];
  if (inputs.size() != D.inputs.size())
    throw RuntimeError("the model has " + std::to_string(D.inputs.size()) + " inputs, got " +
                       std::to_string(inputs.size()));
  if (outputs.size() != D.outputs.size())
    throw RuntimeError("the model has " + std::to_string(D.outputs.size()) + " outputs, got " +
                       std::to_string(outputs.size()));
  for (size_t i = 0; i < outputs.size(); ++i)
    if (D.outputs[i].runSized && outputs[i])
      throw RuntimeError("output " + D.outputs[i].name + " is sized by each run: pass a null pointer for it and read "
                         "Model::outputData(" + std::to_string(i) + ") and lastOutputs() after the run");
  for (size_t i = 0; i < inputs.size(); ++i)
    if (D.inputs[i].bytes && inputs[i] != G.inPtr[i]) std::memcpy(G.inPtr[i], inputs[i], D.inputs[i].bytes);
  const AtcRt* rt = I.pool->rt();
  I.seqStore.reset();
  for (auto& l : G.lastSeq) l.clear();
  if (I.observer || I.checked()) {
    I.runSteps(G, rt);
  } else {
    for (size_t i = 0; i < G.steps.size();) {
      auto& s = G.steps[i];
      if (s.loop >= 0 || s.seq >= 0) {
        i = I.control(G, i);
        continue;
      }
      auto t0 = I.profile ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
      if (s.sizes.empty()) s.fn(G.args.data() + s.argBegin, rt);
      else I.sizeAndRun(G, s, rt);
      if (I.profile) s.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      ++i;
    }
    if (I.profile) G.runs++;
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (G.outRun[i] >= 0) {  // in the runtime's memory: Model::outputData
      const RunBuffer& b = G.runBufs[(size_t)G.outRun[i]];
      G.lastOut[i].shape = b.dims();
      G.lastOut[i].bytes = b.bytes();
      continue;
    }
    if (G.outShapeAt[i] >= 0) G.lastOut[i] = dataShapedOutput(D.outputs[i], G.outPtr[i], G.outShapeAt[i]);
    if (G.lastOut[i].bytes && outputs[i]) std::memcpy(outputs[i], G.outPtr[i], G.lastOut[i].bytes);
  }
  I.sequenceOutputs(G, D);
}

// Each sequence output's tensors, named "y[0]", "y[1]", ... (none: an empty optional).
void Model::Impl::sequenceOutputs(Gear& G, const GearDesc& D) {
  for (size_t i = 0; i < D.outputs.size(); ++i) {
    if (!D.outputs[i].sequence) continue;
    int64_t h;
    std::memcpy(&h, G.outPtr[i], 8);
    if (h == 0) continue;
    auto l = seqStore.list(h, "output " + D.outputs[i].name);
    for (size_t k = 0; k < l.size(); ++k) {
      StepTensor t{l[k]->desc, l[k]->data.data()};
      t.desc.name = D.outputs[i].name + "[" + std::to_string(k) + "]";
      G.lastSeq[i].push_back(t);
    }
  }
}

const std::vector<StepTensor>& Model::sequenceOutput(size_t i) const {
  const Impl::Gear& G = impl_->gears[impl_->cur];
  if (i >= G.lastSeq.size() || !impl_->gearDescs[impl_->cur].outputs[i].sequence)
    throw RuntimeError("output " + std::to_string(i) + " is not a sequence output");
  return G.lastSeq[i];
}

const void* Model::outputData(size_t i) const {
  const Impl::Gear& G = impl_->gears[impl_->cur];
  if (i >= G.outPtr.size()) throw RuntimeError("output " + std::to_string(i) + " is out of range");
  return G.outRun[i] >= 0 ? G.runBufs[(size_t)G.outRun[i]].data() : G.outPtr[i];
}

const std::vector<TensorDesc>& Model::lastOutputs() const { return impl_->gears[impl_->cur].lastOut; }

void Model::setExceptionDump(const std::string& dir) { impl_->exceptionDumpDir = dir; }
bool Model::statusCheck() const { return impl_->statusCheck; }
uint64_t Model::oomRedzone() const { return impl_->redzone; }
bool Model::oomBoundsCheck() const { return impl_->boundsCheck; }

namespace {
struct EntryCall {
  AtcKernelEntry fn;
  void** args;
  const AtcRt* rt;
};
void callEntry(void* ctx, int64_t, int64_t) {
  auto* c = (EntryCall*)ctx;
  c->fn(c->args, c->rt);
}
}  // namespace

// The steps with an observer (data dump, profiler) and the checks (docs/debugging.md).
void Model::Impl::runSteps(Gear& G, const AtcRt* rt) {
  int64_t run = observer ? observedRuns++ : 0;
  if (observer) observer->beginRun(run);
  bool guard = !exceptionDumpDir.empty() || boundsCheck;  // a failed bounds check is a trap
  for (size_t i = 0; i < G.steps.size(); ++i) {
    auto& s = G.steps[i];
    if (s.loop >= 0 || s.seq >= 0) {  // a control step: no kernel to observe or check
      i = control(G, i) - 1;
      continue;
    }
    const StepInfo& info = infosOf(G)[i];
    if (redzone) fillRedzones(s.spans, redzone);
    if (observer) observer->beforeStep(run, info);
    auto t0 = std::chrono::steady_clock::now();
    auto invoke = [&]() {
      if (!guard) return s.fn(G.args.data() + s.argBegin, rt);
      fault.clear();
      pool->setFaultGuard(&fault);
      EntryCall call{s.fn, G.args.data() + s.argBegin, rt};
      callGuarded(&callEntry, &call, 0, 1, &fault);
      pool->setFaultGuard(nullptr);
      if (fault.oob.load())  // set only with the signal that carried it
        stepFailed(s, info, "oom check: the kernel " + describeOutOfBounds(info, fault.oobSlot, fault.oobStore != 0,
                                                                         fault.oobOffset, fault.oobBytes, fault.oobSize));
      if (int sig = fault.sig.load()) {
        char addr[32];
        std::snprintf(addr, sizeof addr, "%#llx", (unsigned long long)fault.addr.load());
        stepFailed(s, info, std::string("the kernel raised ") + faultSignalName(sig) + " at address " + addr);
      }
    };
    if (!s.sizes.empty()) {  // the size pass (Impl::sizeAndRun)
      for (auto& sz : s.sizes) G.args[sz.first] = nullptr;
      invoke();
      for (auto& sz : s.sizes) G.runBufs[sz.second].size((const uint8_t*)arena->p, G.args);
    }
    invoke();
    double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    s.seconds += sec;
    if (redzone) {
      std::string bad = checkRedzones(info, s.spans, redzone);
      if (!bad.empty()) stepFailed(s, info, "oom check: the kernel " + bad);
    }
    if (statusCheck) {
      std::string bad = checkFinite(info);
      if (!bad.empty()) stepFailed(s, info, bad);
    }
    if (observer) observer->afterStep(run, info, sec);
  }
  if (observer) observer->endRun(run);
  if (profile) G.runs++;  // ATC_PROFILE's table (omrun runs here when its exception dump is on)
}

void Model::Impl::stepFailed(const Step& s, const StepInfo& info, const std::string& reason) {
  std::string msg = "op " + (info.node.empty() ? s.symbol : info.node) + " (type " + (info.type.empty() ? "?" : info.type) +
                    ", kernel " + info.kernel + ", step " + std::to_string(info.index) + ") failed: " + reason;
  std::string dumped;
  if (!exceptionDumpDir.empty()) {
    std::string err;
    dumped = writeExceptionDump(exceptionDumpDir, name, info, s.workspace, reason, &err);
    msg += dumped.empty() ? "; its tensors could not be dumped: " + err : "; its inputs and outputs are dumped in " + dumped;
  }
  throw KernelError(msg, info.index, info.node, info.type, dumped);
}

}  // namespace rt
}  // namespace atc
