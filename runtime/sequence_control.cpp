// See sequence_control.h.
#include "runtime/sequence_control.h"

#include <cstring>

#include "runtime/run_sized.h"
#include "support/checked_math.h"
#include "support/strings.h"

namespace atc {
namespace rt {
namespace {

// The most sequences one run may make (each insert makes one): far beyond any real model, and
// small enough that the store's bookkeeping stays below a few hundred MB.
constexpr size_t kMaxSequences = size_t(1) << 22;

RuntimeError bad(const std::string& what, const std::string& msg) {
  return RuntimeError(what + ": invalid execution plan: " + msg);
}

struct StepCheck {
  const std::vector<PlanBuffer>& bufs;
  const std::string& what;
  std::string name;

  [[noreturn]] void fail(const std::string& why) const { throw bad(what, name + " " + why); }
  const PlanBuffer& buf(const SeqArg& a) const { return bufs[(size_t)a.buf]; }
  // A handle: one int64 in the arena (read: the weights too).
  void handle(const SeqArg& a, bool written) const {
    if (a.buf < 0 || a.dtype != "int64" || !a.dims.empty() || a.shapeAt >= 0 || a.run || buf(a).run ||
        buf(a).size < 8 || (written && buf(a).weights))
      fail("has a sequence handle that is not one int64 in " + std::string(written ? "the arena" : "memory"));
  }
  // A tensor copied into a sequence.
  void element(const SeqArg& a) const {
    if (a.buf < 0 || !a.esize || a.dims.size() > 8) fail("has an element of an unknown type or rank above 8");
    const PlanBuffer& b = buf(a);
    if (a.run) {
      if (!b.run || b.rank != (int64_t)a.dims.size() || b.esize != a.esize)
        fail("has a run-sized element outside a run-sized buffer of its rank and element size");
      return;
    }
    int64_t bytes = -1;
    if (b.run || !shapeSize(a.dims, a.esize, nullptr, &bytes) || (uint64_t)bytes > b.size)
      fail("has an element larger than its buffer");
    if (a.shapeAt < 0) return;
    uint64_t off = (uint64_t)a.shapeAt;
    if (off % 8 || off < (uint64_t)bytes || off > b.size || (b.size - off) / 8 < std::max<size_t>(a.dims.size(), 1))
      fail("has an element whose actual dims do not lie after its data in its buffer");
  }
  // A tensor taken out of a sequence: static (in the arena) or run-sized.
  void output(const SeqArg& a) const {
    if (a.buf < 0 || !a.esize || a.dims.size() > 8 || a.shapeAt >= 0 || buf(a).weights)
      fail("has an output of an unknown type, rank above 8 or outside the arena");
    if (a.run) return element(a);
    int64_t bytes = -1;
    if (buf(a).run || !shapeSize(a.dims, a.esize, nullptr, &bytes) || (uint64_t)bytes > buf(a).size)
      fail("has an output larger than its buffer");
  }
  void position(const SeqArg& a) const {
    if (a.buf < 0) return;
    int64_t n = 0;
    if ((a.dtype != "int64" && a.dtype != "int32") || !shapeSize(a.dims, 1, &n, nullptr) || n != 1 || a.run ||
        a.shapeAt >= 0 || buf(a).run || buf(a).size < a.esize)
      fail("has a position that is not one int32 or int64");
  }
};

const PlanBuffer& buf(const SeqArg& a, const std::vector<PlanBuffer>& bufs) { return bufs[(size_t)a.buf]; }

SeqArg readArg(const nlohmann::json& t, int64_t buf, const std::vector<PlanBuffer>& bufs) {
  SeqArg a;
  a.buf = buf;
  if (t.is_null()) return a;
  a.dtype = t.at("dtype").get<std::string>();
  a.dtypeCode = t.at("dtype_code").get<int32_t>();
  a.esize = dtypeSizeByName(a.dtype);
  a.dims = t.at("dims").get<std::vector<int64_t>>();
  a.shapeAt = t.value("shape_at", int64_t(-1));
  a.run = t.value("run", false);
  if (a.run && buf >= 0) a.runDims = bufs[(size_t)buf].offset;
  return a;
}

SeqStepSpec checkOne(const nlohmann::json& s, const std::vector<int64_t>& args, size_t i,
                     const std::vector<PlanBuffer>& bufs, const std::string& what) {
  SeqStepSpec spec;
  spec.step = i;
  spec.kind = s.at("control").get<std::string>();
  spec.node = s.value("node", std::string());
  spec.allowNone = s.value("allow_none", false);
  spec.axis = s.value("axis", int64_t(0));
  spec.newAxis = s.value("new_axis", false);
  spec.keepdims = s.value("keepdims", true);
  const auto& tensors = s.at("tensors");
  StepCheck c{bufs, what, "sequence step " + std::to_string(i) + " (" + spec.kind + ")"};
  if (!tensors.is_array() || tensors.size() != args.size()) c.fail("describes other arguments than it has");
  for (size_t k = 0; k < args.size(); ++k) spec.args.push_back(readArg(tensors[k], args[k], bufs));
  const size_t n = args.size();
  if (spec.kind == "seq_make") {
    if (n < 1) c.fail("has no output");
    for (size_t k = 0; k + 1 < n; ++k) c.element(spec.args[k]);
  } else if (spec.kind == "seq_insert") {
    if (n != 4) c.fail("has " + std::to_string(n) + " arguments (4 are required)");
    c.handle(spec.args[0], false);
    c.element(spec.args[1]);
    c.position(spec.args[2]);
  } else if (spec.kind == "seq_at" || spec.kind == "seq_erase") {
    if (n != 3) c.fail("has " + std::to_string(n) + " arguments (3 are required)");
    c.handle(spec.args[0], false);
    c.position(spec.args[1]);
    if (spec.kind == "seq_at" && spec.args[1].buf < 0) c.fail("has no position");
  } else if (spec.kind == "seq_split") {
    if (n != 3) c.fail("has " + std::to_string(n) + " arguments (3 are required)");
    c.element(spec.args[0]);
    const SeqArg& sp = spec.args[1];
    int64_t count = 0;
    if (sp.buf >= 0 && ((sp.dtype != "int64" && sp.dtype != "int32") || sp.dims.size() > 1 || sp.run ||
                        sp.shapeAt >= 0 || buf(sp, bufs).run || !shapeSize(sp.dims, sp.esize, &count, nullptr) ||
                        (uint64_t)count * sp.esize > buf(sp, bufs).size))
      c.fail("has split sizes that are not int32 or int64 of rank 0 or 1 in their buffer");
    if (spec.axis < -8 || spec.axis > 8) c.fail("has an axis out of range");
  } else {
    if (n != 2) c.fail("has " + std::to_string(n) + " arguments (2 are required)");
    c.handle(spec.args[0], false);
  }
  const bool takesOut = spec.kind == "seq_at" || spec.kind == "seq_concat";
  if (takesOut) c.output(spec.args[n - 1]);
  else c.handle(spec.args[n - 1], true);
  if (spec.kind == "seq_concat" && !spec.args[n - 1].run) c.fail("has an output that is not run-sized");
  // a run-sized output is sized by this step, and only it
  std::vector<size_t> sizes = s.value("sizes", std::vector<size_t>());
  if (sizes != (takesOut && spec.args[n - 1].run ? std::vector<size_t>{n - 1} : std::vector<size_t>()))
    c.fail("sizes other arguments than its run-sized output");
  return spec;
}

// The actual dims of argument a at `p` (its data), checked against its bound.
std::vector<int64_t> actualDims(const SeqArg& a, const uint8_t* p, const uint8_t* arena, const std::string& node) {
  if (a.shapeAt < 0 && !a.run) return a.dims;
  std::vector<int64_t> d(a.dims.size());
  if (!d.empty()) std::memcpy(d.data(), (a.run ? arena + a.runDims : p + a.shapeAt), 8 * d.size());
  for (size_t k = 0; k < d.size(); ++k)
    if (d[k] < 0 || (!a.run && d[k] > a.dims[k]))
      throw RuntimeError("op " + node + ": an element of the sequence has dims [" + joinInts(d) +
                         "] this run, outside its bound [" + joinInts(a.dims) + "]");
  return d;
}

std::shared_ptr<const SeqTensor> copyElement(const SeqArg& a, const void* p, const uint8_t* arena,
                                             const std::string& node, SequenceStore& store) {
  auto t = std::make_shared<SeqTensor>();
  t->desc.dtype = a.dtype;
  t->desc.dtypeCode = a.dtypeCode;
  t->desc.shape = actualDims(a, (const uint8_t*)p, arena, node);
  int64_t bytes = 0;
  if (!shapeSize(t->desc.shape, a.esize, nullptr, &bytes))
    throw RuntimeError("op " + node + ": an element of shape [" + joinInts(t->desc.shape) + "] is too large");
  store.account((uint64_t)bytes);
  t->desc.bytes = (uint64_t)bytes;
  if (bytes) t->data.assign((const uint8_t*)p, (const uint8_t*)p + bytes);
  return t;
}

int64_t readInt(const void* p, size_t esize) {
  if (esize == 4) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  int64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Where a tensor of `dims` taken out of a sequence goes: the output's buffer (a static output:
// the dims must be its own) or run-sized memory; the dtype and rank must be the output's.
uint8_t* outputFor(const SeqStepSpec& s, void* const* args, const std::string& dtype, const std::vector<int64_t>& dims,
                   const std::function<void*(const std::vector<int64_t>&)>& sizeOutput) {
  const SeqArg& o = s.args.back();
  bool fits = dtype == o.dtype && dims.size() == o.dims.size();
  for (size_t k = 0; fits && k < dims.size(); ++k) fits = o.dims[k] < 0 || o.dims[k] == dims[k];
  if (!fits)
    throw RuntimeError("op " + s.node + ": the sequence gives a " + dtype + " tensor of shape [" + joinInts(dims) +
                       "] this run, where the model reads " + o.dtype + " [" + joinInts(o.dims) + "] (-1: any)");
  return (uint8_t*)(o.run ? sizeOutput(dims) : args[s.args.size() - 1]);
}

// A position in [-n, n - 1], made non-negative.
int64_t positionIn(int64_t pos, int64_t n, const std::string& node) {
  if (pos < -n || pos >= n)
    throw RuntimeError("op " + node + ": the position " + std::to_string(pos) + " is outside [" + std::to_string(-n) +
                       ", " + std::to_string(n - 1) + "] for a sequence of " + std::to_string(n) + " tensors");
  return pos < 0 ? pos + n : pos;
}

int64_t normAxis(int64_t axis, size_t rank, const std::string& node) {
  if (axis < -(int64_t)rank || axis >= (int64_t)rank)
    throw RuntimeError("op " + node + ": axis " + std::to_string(axis) + " is out of range for rank " +
                       std::to_string(rank));
  return axis < 0 ? axis + (int64_t)rank : axis;
}

int64_t product(const std::vector<int64_t>& d, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t k = from; k < to; ++k) p *= d[k];
  return p;
}

// ConcatFromSequence: every element of one dtype and rank, equal dims but on the axis.
void concat(const SeqStepSpec& s, SequenceStore& store, void* const* args,
            const std::function<void*(const std::vector<int64_t>&)>& sizeOutput) {
  auto l = store.list(readInt(args[0], 8), s.node);
  if (l.empty()) throw RuntimeError("op " + s.node + ": the sequence is empty, so there is nothing to concatenate");
  const std::vector<int64_t>& d0 = l[0]->desc.shape;
  const size_t rank = d0.size() + (s.newAxis ? 1 : 0);
  const int64_t axis = normAxis(s.axis, rank, s.node);
  std::vector<int64_t> out = d0;
  if (s.newAxis) out.insert(out.begin() + axis, 0);
  else out[(size_t)axis] = 0;
  for (const auto& t : l) {
    bool same = t->desc.dtype == l[0]->desc.dtype && t->desc.shape.size() == d0.size();
    for (size_t k = 0; same && k < d0.size(); ++k)
      if (s.newAxis || (int64_t)k != axis) same = t->desc.shape[k] == d0[k];
    if (!same)
      throw RuntimeError("op " + s.node + ": the sequence holds " + l[0]->desc.dtype + " [" + joinInts(d0) + "] and " +
                         t->desc.dtype + " [" + joinInts(t->desc.shape) + "], which do not concatenate on axis " +
                         std::to_string(axis));
    out[(size_t)axis] += s.newAxis ? 1 : t->desc.shape[(size_t)axis];
  }
  int64_t bytes = 0;
  if (!shapeSize(out, dtypeSizeByName(l[0]->desc.dtype), nullptr, &bytes))
    throw RuntimeError("op " + s.node + ": the concatenation [" + joinInts(out) + "] is too large");
  uint8_t* dst = outputFor(s, args, l[0]->desc.dtype, out, sizeOutput);
  const int64_t outer = product(d0, 0, (size_t)axis);
  for (int64_t o = 0; o < outer; ++o)
    for (const auto& t : l) {
      uint64_t block = t->desc.bytes / (uint64_t)std::max<int64_t>(outer, 1);
      if (block) std::memcpy(dst, t->data.data() + (uint64_t)o * block, block);
      dst += block;
    }
}

// SplitToSequence by sizes (or one chunk size) a run gives.
std::vector<std::shared_ptr<const SeqTensor>> split(const SeqStepSpec& s, SequenceStore& store, void* const* args,
                                                    const uint8_t* arena) {
  auto x = copyElement(s.args[0], args[0], arena, s.node, store);
  const std::vector<int64_t>& d = x->desc.shape;
  const int64_t axis = normAxis(s.axis, d.size(), s.node), dim = d[(size_t)axis];
  std::vector<int64_t> sizes;
  const SeqArg& sp = s.args[1];
  if (sp.buf < 0) {
    sizes.assign((size_t)dim, 1);
  } else if (sp.dims.empty()) {
    int64_t chunk = readInt(args[1], sp.esize);
    if (chunk <= 0)
      throw RuntimeError("op " + s.node + ": the split size " + std::to_string(chunk) + " is not positive");
    for (int64_t at = 0; at < dim; at += chunk) sizes.push_back(std::min(chunk, dim - at));
  } else {
    int64_t sum = 0;
    for (int64_t k = 0; k < sp.dims[0]; ++k) {
      int64_t v = readInt((const uint8_t*)args[1] + k * (int64_t)sp.esize, sp.esize);
      if (v < 0 || !checkedAdd(sum, v, &sum))
        throw RuntimeError("op " + s.node + ": the split size " + std::to_string(v) + " is negative");
      sizes.push_back(v);
    }
    if (sum != dim)
      throw RuntimeError("op " + s.node + ": the split sizes sum to " + std::to_string(sum) + ", the axis has " +
                         std::to_string(dim));
  }
  const bool squeeze = sp.buf < 0 && !s.keepdims;
  const int64_t outer = product(d, 0, (size_t)axis), inner = product(d, (size_t)axis + 1, d.size());
  const size_t es = dtypeSizeByName(x->desc.dtype);
  std::vector<std::shared_ptr<const SeqTensor>> out;
  int64_t start = 0;
  for (int64_t len : sizes) {
    auto t = std::make_shared<SeqTensor>();
    t->desc = x->desc;
    t->desc.shape[(size_t)axis] = len;
    if (squeeze) t->desc.shape.erase(t->desc.shape.begin() + axis);
    const uint64_t block = (uint64_t)(len * inner) * es;
    t->desc.bytes = block * (uint64_t)outer;
    store.account(t->desc.bytes);
    t->data.resize(t->desc.bytes);
    for (int64_t o = 0; o < outer; ++o)
      if (block)
        std::memcpy(t->data.data() + (uint64_t)o * block, x->data.data() + ((uint64_t)(o * dim + start) * inner) * es,
                    block);
    out.push_back(std::move(t));
    start += len;
  }
  return out;
}

}  // namespace

bool isSequenceStepKind(const std::string& k) {
  return k == "seq_make" || k == "seq_insert" || k == "seq_length" || k == "seq_output" || k == "seq_at" ||
         k == "seq_erase" || k == "seq_concat" || k == "seq_split";
}

std::vector<SeqStepSpec> checkSequenceSteps(const nlohmann::json& steps,
                                            const std::vector<std::vector<int64_t>>& stepArgs,
                                            const std::vector<PlanBuffer>& bufs, const std::string& what) {
  std::vector<SeqStepSpec> out;
  for (size_t i = 0; i < steps.size(); ++i) {
    const std::string kind = steps[i].value("control", std::string());
    if (isSequenceStepKind(kind)) out.push_back(checkOne(steps[i], stepArgs[i], i, bufs, what));
  }
  return out;
}

void SequenceStore::account(uint64_t bytes) {
  bytes_ += bytes;
  if (bytes_ > runMemoryLimit())
    throw RuntimeError("the run's sequences hold more memory than this machine has (" +
                       std::to_string(runMemoryLimit()) + " bytes)");
}

void SequenceStore::reset() {
  entries_.clear();
  bytes_ = 0;
}

int64_t SequenceStore::add(Entry e) {
  if (entries_.size() >= kMaxSequences)
    throw RuntimeError("the run makes more than " + std::to_string(kMaxSequences) + " sequences");
  entries_.push_back(std::move(e));
  return (int64_t)entries_.size();
}

int64_t SequenceStore::make(std::vector<std::shared_ptr<const SeqTensor>> elems) {
  int64_t h = add(Entry{});  // the empty sequence
  for (auto& t : elems) h = add(Entry{h, std::move(t), entries_[(size_t)h - 1].length + 1});
  return h;
}

void SequenceStore::check(int64_t h, const std::string& node, bool allowNone) const {
  if (h == 0 && allowNone) return;
  if (h == 0)
    throw RuntimeError("op " + node + ": the sequence it reads does not exist on this run (an empty optional)");
  if (h < 0 || (uint64_t)h > entries_.size())
    throw RuntimeError("op " + node + ": the sequence handle " + std::to_string(h) + " was not made in this run");
}

int64_t SequenceStore::length(int64_t h, const std::string& node) const {
  check(h, node);
  return entries_[(size_t)h - 1].length;
}

std::vector<std::shared_ptr<const SeqTensor>> SequenceStore::list(int64_t h, const std::string& node) const {
  check(h, node);
  std::vector<std::shared_ptr<const SeqTensor>> l((size_t)entries_[(size_t)h - 1].length);
  for (size_t k = l.size(); k > 0; --k) {
    const Entry& e = entries_[(size_t)h - 1];
    l[k - 1] = e.last;
    h = e.parent;
  }
  return l;
}

int64_t SequenceStore::insert(int64_t h, std::shared_ptr<const SeqTensor> x, int64_t pos, const std::string& node) {
  const int64_t n = length(h, node);
  if (pos < -n || pos > n)
    throw RuntimeError("op " + node + ": the position " + std::to_string(pos) + " is outside [" + std::to_string(-n) +
                       ", " + std::to_string(n) + "] for a sequence of " + std::to_string(n) + " tensors");
  if (pos < 0) pos += n;
  if (pos == n) return add(Entry{h, std::move(x), n + 1});
  auto l = list(h, node);
  l.insert(l.begin() + pos, std::move(x));
  return make(std::move(l));
}

void runSequenceStep(const SeqStepSpec& s, SequenceStore& store, void* const* args, const uint8_t* arena,
                     const std::function<void*(const std::vector<int64_t>&)>& sizeOutput) {
  const size_t n = s.args.size();
  auto handleAt = [&](size_t k) { return readInt(args[k], 8); };
  if (s.kind == "seq_at") {
    auto l = store.list(handleAt(0), s.node);
    const SeqTensor& t = *l[(size_t)positionIn(readInt(args[1], s.args[1].esize), (int64_t)l.size(), s.node)];
    uint8_t* dst = outputFor(s, args, t.desc.dtype, t.desc.shape, sizeOutput);
    if (t.desc.bytes) std::memcpy(dst, t.data.data(), t.desc.bytes);
    return;
  }
  if (s.kind == "seq_concat") return concat(s, store, args, sizeOutput);
  int64_t out = 0;
  if (s.kind == "seq_make") {
    std::vector<std::shared_ptr<const SeqTensor>> elems;
    for (size_t k = 0; k + 1 < n; ++k) elems.push_back(copyElement(s.args[k], args[k], arena, s.node, store));
    out = store.make(std::move(elems));
  } else if (s.kind == "seq_insert") {
    int64_t h = handleAt(0);
    int64_t pos = s.args[2].buf >= 0 ? readInt(args[2], s.args[2].esize) : store.length(h, s.node);
    out = store.insert(h, copyElement(s.args[1], args[1], arena, s.node, store), pos, s.node);
  } else if (s.kind == "seq_erase") {
    int64_t h = handleAt(0);
    auto l = store.list(h, s.node);
    int64_t pos = s.args[1].buf >= 0 ? readInt(args[1], s.args[1].esize) : -1;
    l.erase(l.begin() + positionIn(pos, (int64_t)l.size(), s.node));
    out = store.make(std::move(l));
  } else if (s.kind == "seq_split") {
    out = store.make(split(s, store, args, arena));
  } else if (s.kind == "seq_length") {
    out = store.length(handleAt(0), s.node);
  } else {  // seq_output
    out = handleAt(0);
    store.check(out, s.node, s.allowNone);
  }
  std::memcpy(args[n - 1], &out, 8);
}

}  // namespace rt
}  // namespace atc
