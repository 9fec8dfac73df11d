// Model: .om reader + plan loader + executor (see docs/om-format.md).
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>

#include <nlohmann/json.hpp>

#include "runtime/atc_rt_abi.h"
#include "support/checked_math.h"
#include "runtime/atc_runtime.h"
#include "runtime/cpu_check.h"
#include "runtime/om_format.h"
#include "runtime/so_loader.h"
#include "runtime/thread_pool.h"

namespace atc {
namespace rt {

size_t dtypeSizeByName(const std::string& d) {
  static const std::map<std::string, size_t> sizes = {
      {"float32", 4}, {"float16", 2}, {"bfloat16", 2}, {"float64", 8}, {"int64", 8},
      {"int32", 4},   {"int16", 2},   {"int8", 1},     {"uint8", 1},   {"uint16", 2},
      {"uint32", 4},  {"uint64", 8},  {"bool", 1}};
  auto it = sizes.find(d);
  return it == sizes.end() ? 0 : it->second;
}

std::string TensorDesc::shapeString() const {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
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
  std::string name, soc;
  std::vector<TensorDesc> inputs, outputs;
  std::vector<uint8_t*> inPtr, outPtr;
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
    double seconds = 0;  // ATC_PROFILE: total time in this step
  };
  std::vector<Step> steps;
  std::vector<void*> args;  // all steps' argument arrays, back to back
  bool profile = false;     // ATC_PROFILE=1: time every step, print a table when unloaded
  int64_t runs = 0;
  void printProfile() const;
};

// ATC_PROFILE report: per step (sorted by time) the mean time per run and the share.
void Model::Impl::printProfile() const {
  if (!profile || runs == 0) return;
  double total = 0;
  for (auto& s : steps) total += s.seconds;
  std::vector<size_t> order(steps.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return steps[a].seconds > steps[b].seconds; });
  fprintf(stderr, "[ATC_PROFILE] %s: %lld runs, %.3f ms per run in %zu steps\n", name.c_str(), (long long)runs,
          total * 1e3 / runs, steps.size());
  for (size_t i : order)
    fprintf(stderr, "[ATC_PROFILE] step %3zu %9.4f ms %5.1f%%  %s\n", i, steps[i].seconds * 1e3 / runs,
            total > 0 ? 100.0 * steps[i].seconds / total : 0.0, steps[i].label.c_str());
}

Model::Model() : impl_(new Impl) {}
Model::~Model() { impl_->printProfile(); }

std::unique_ptr<Model> Model::load(const std::string& path, int threads) {
  std::vector<uint8_t> bytes;
  try {
    bytes = om::readFileBytes(path);
  } catch (const om::OmError& e) {
    throw RuntimeError(std::string("cannot load model: ") + e.what());
  }
  return loadFromMemory(bytes.data(), bytes.size(), threads, path);
}

std::unique_ptr<Model> Model::loadFromMemory(const uint8_t* data, size_t size, int threads,
                                             const std::string& what) {
  std::unique_ptr<Model> m(new Model());
  Impl& I = *m->impl_;
  om::OmView v;
  try {
    v = om::parseOm(data, size, what);
  } catch (const om::OmError& e) {
    throw RuntimeError(e.what());
  }
  auto bad = [&](const std::string& msg) { return RuntimeError(what + ": invalid execution plan: " + msg); };
  nlohmann::json plan;
  try {
    plan = nlohmann::json::parse(v.partString(om::kTaskInfo));
  } catch (const std::exception& e) {
    throw bad(e.what());
  }
  I.name = v.header.name;
  I.soc = v.header.socVersion;
  try {
    uint64_t wsize = 0;
    const uint8_t* w = v.has(om::kWeightsData) ? v.part(om::kWeightsData, &wsize) : nullptr;
    I.weights.reset(new ReadOnlyBuf(w, wsize));
    I.arenaSize = plan.at("arena_size").get<uint64_t>();
    if (I.arenaSize > (uint64_t)kMaxTensorBytes)  // a crafted size near 2^64 must not wrap to a tiny arena
      throw bad("arena size " + std::to_string(I.arenaSize) + " is larger than any model can need");
    I.arena.reset(new AlignedBuf(I.arenaSize));

    std::vector<uint8_t*> bufPtr;
    std::vector<uint64_t> bufSize;
    std::vector<bool> bufReadOnly;
    for (auto& b : plan.at("buffers")) {
      std::string mem = b.at("mem").get<std::string>();
      uint64_t off = b.at("offset").get<uint64_t>(), sz = b.at("size").get<uint64_t>();
      uint64_t cap = mem == "arena" ? I.arenaSize : mem == "weights" ? wsize : 0;
      if (mem != "arena" && mem != "weights") throw bad("unknown memory kind " + mem);
      if (off > cap || sz > cap - off) throw bad("buffer outside its memory");
      bufPtr.push_back((uint8_t*)(mem == "arena" ? I.arena->p : I.weights->p) + off);
      bufSize.push_back(sz);
      bufReadOnly.push_back(mem == "weights");
    }
    auto bufId = [&](const nlohmann::json& j) -> size_t {
      size_t id = j.get<size_t>();
      if (id >= bufPtr.size()) throw bad("buffer id out of range");
      return id;
    };
    auto readDescs = [&](const nlohmann::json& arr, std::vector<TensorDesc>& out, std::vector<uint8_t*>& ptrs) {
      for (auto& t : arr) {
        TensorDesc d;
        d.name = t.at("name").get<std::string>();
        d.dtype = t.at("dtype").get<std::string>();
        d.dtypeCode = t.at("dtype_code").get<int32_t>();
        d.shape = t.at("shape").get<std::vector<int64_t>>();
        d.bytes = t.at("bytes").get<uint64_t>();
        size_t id = bufId(t.at("buffer"));
        int64_t want = -1;  // the declared byte count must be the shape's, checked, and fit its buffer
        size_t es = dtypeSizeByName(d.dtype);
        if (!es || !shapeSize(d.shape, es, nullptr, &want) || (uint64_t)want != d.bytes)
          throw bad(d.name + ": " + std::to_string(d.bytes) + " bytes declared for " + d.dtype + " of that shape");
        if (bufSize[id] < d.bytes) throw bad("buffer of " + d.name + " is too small");
        out.push_back(d);
        ptrs.push_back(bufPtr[id]);
      }
    };
    readDescs(plan.at("inputs"), I.inputs, I.inPtr);
    for (auto& t : plan.at("inputs"))
      if (bufReadOnly[bufId(t.at("buffer"))])
        throw bad("input " + t.at("name").get<std::string>() + " is in the weights");
    readDescs(plan.at("outputs"), I.outputs, I.outPtr);

    if (plan.contains("cpu_features")) {
      auto missing = missingCpuFeatures(plan["cpu_features"].get<std::vector<std::string>>());
      if (!missing.empty()) {
        std::string list;
        for (auto& f : missing) list += (list.empty() ? "" : ", ") + f;
        throw RuntimeError(what + " was compiled for target " + I.soc + " and needs CPU features this CPU lacks: " +
                           list + ". Rebuild it with atc --soc_version=native (or a profile this CPU supports).");
      }
    }
    uint64_t ksize = 0;
    const uint8_t* k = v.has(om::kKernels) ? v.part(om::kKernels, &ksize) : nullptr;
    const auto& steps = plan.at("steps");
    if (!steps.empty()) {
      if (!ksize) throw bad("steps but no kernels");
      I.so.reset(new SharedObject(k, ksize));
    }
    for (auto& s : steps) {
      Impl::Step st;
      st.symbol = s.at("symbol").get<std::string>();
      st.fn = (AtcKernelEntry)I.so->symbol(st.symbol);
      st.label = st.symbol + " " + s.value("kernel", std::string()) + " " + s.value("node", std::string());
      st.argBegin = I.args.size();
      for (auto& a : s.at("args")) I.args.push_back(a.is_null() ? nullptr : (void*)bufPtr[bufId(a)]);
      st.argCount = I.args.size() - st.argBegin;
      I.steps.push_back(st);
    }
  } catch (const nlohmann::json::exception& e) {
    throw bad(e.what());
  } catch (const om::OmError& e) {
    throw RuntimeError(e.what());
  }
  I.pool.reset(new ThreadPool(threads > 0 ? threads : defaultThreads()));
  const char* prof = getenv("ATC_PROFILE");
  I.profile = prof && *prof && std::strcmp(prof, "0") != 0;
  return m;
}

const std::vector<TensorDesc>& Model::inputs() const { return impl_->inputs; }
const std::vector<TensorDesc>& Model::outputs() const { return impl_->outputs; }
const std::string& Model::name() const { return impl_->name; }
const std::string& Model::socVersion() const { return impl_->soc; }
int Model::threads() const { return impl_->pool->threads(); }
uint64_t Model::arenaBytes() const { return impl_->arenaSize; }

void Model::run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs) {
  Impl& I = *impl_;
  if (inputs.size() != I.inputs.size())
    throw RuntimeError("the model has " + std::to_string(I.inputs.size()) + " inputs, got " +
                       std::to_string(inputs.size()));
  if (outputs.size() != I.outputs.size())
    throw RuntimeError("the model has " + std::to_string(I.outputs.size()) + " outputs, got " +
                       std::to_string(outputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i)
    if (I.inputs[i].bytes && inputs[i] != I.inPtr[i]) std::memcpy(I.inPtr[i], inputs[i], I.inputs[i].bytes);
  const AtcRt* rt = I.pool->rt();
  if (I.profile) {
    for (auto& s : I.steps) {
      auto t0 = std::chrono::steady_clock::now();
      s.fn(I.args.data() + s.argBegin, rt);
      s.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    I.runs++;
  } else {
    for (auto& s : I.steps) s.fn(I.args.data() + s.argBegin, rt);
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    if (I.outputs[i].bytes) std::memcpy(outputs[i], I.outPtr[i], I.outputs[i].bytes);
}

}  // namespace rt
}  // namespace atc
