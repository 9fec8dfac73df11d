// See loop_control.h.
#include "runtime/loop_control.h"

#include <climits>
#include <cstring>

#include "runtime/atc_runtime.h"
#include "runtime/sequence_control.h"
#include "support/checked_math.h"
#include "support/strings.h"

namespace atc {
namespace rt {
namespace {

RuntimeError bad(const std::string& what, const std::string& msg) {
  return RuntimeError(what + ": invalid execution plan: " + msg);
}

struct ArgCheck {
  const std::vector<PlanBuffer>& bufs;
  const std::string& what;
  const std::string& step;
  // Buffer `id` holds `bytes` bytes; written: an arena buffer.
  void fits(int64_t id, uint64_t bytes, bool written, bool optional = false) const {
    if (id < 0) {
      if (optional) return;
      throw bad(what, step + " lacks a required argument");
    }
    const PlanBuffer& b = bufs[(size_t)id];
    if (b.run || (written && b.weights) || b.size < bytes)
      throw bad(what, step + " has an argument of " + std::to_string(bytes) + " bytes in buffer " + std::to_string(id) +
                          (b.run                  ? ", a run-sized one"
                           : written && b.weights ? ", in the weights"
                                                  : ", which is smaller"));
  }
};

// The carried values' dims, and where values whose shape comes from data keep their actual dims.
void checkShapes(const nlohmann::json& se, LoopSpec& L, int64_t n, size_t k, const std::vector<PlanBuffer>& bufs,
                 const std::string& what, const std::string& name) {
  L.carriedDims = se.at("carried_dims").get<std::vector<std::vector<int64_t>>>();
  const auto at = se.at("shape_at").get<std::vector<int64_t>>();
  if ((int64_t)L.carriedDims.size() != n || at.size() != 2 + (size_t)n + k || at[0] != -1 || at[1] != -1)
    throw bad(what, name + "'s carried dims or shape offsets do not match its arguments");
  auto check = [&](size_t pos, size_t rank, uint64_t bytes) {
    if (at[pos] < 0) return at[pos];
    const PlanBuffer& b = bufs[(size_t)L.endArgs[pos]];
    uint64_t off = (uint64_t)at[pos];
    if (at[pos] % 8 || off < bytes || off > b.size || (b.size - off) / 8 < std::max<size_t>(rank, 1))
      throw bad(what, name + ": the actual dims of argument " + std::to_string(pos) + " do not lie in its buffer");
    return at[pos];
  };
  for (int64_t j = 0; j < n; ++j) {
    int64_t el = -1;
    if (!shapeSize(L.carriedDims[(size_t)j], 1, nullptr, &el) || el < 0)
      throw bad(what, name + ": carried value " + std::to_string(j) + " has invalid dims");
    L.carriedShapeAt.push_back(check(2 + (size_t)j, L.carriedDims[(size_t)j].size(), L.carriedBytes[(size_t)j]));
  }
  for (size_t j = 0; j < k; ++j) {
    L.scanShapeAt.push_back(check(2 + (size_t)n + j, L.scanDims[j].size(), L.scanBytes[j]));
    L.scanEsize.push_back(bufs[(size_t)L.endArgs[2 + 2 * (size_t)n + k + j]].esize);
  }
}

LoopSpec checkOneLoop(const nlohmann::json& steps, const std::vector<std::vector<int64_t>>& stepArgs, size_t i,
                      const std::vector<PlanBuffer>& bufs, const std::string& what) {
  const auto& sb = steps[i];
  LoopSpec L;
  L.node = sb.value("node", std::string());
  L.begin = i;
  L.end = sb.at("end").get<size_t>();
  const std::string name = "loop step " + std::to_string(i);
  if (L.end <= i || L.end >= steps.size() || steps[L.end].value("control", std::string()) != "loop_end" ||
      steps[L.end].at("begin").get<size_t>() != i)
    throw bad(what, name + " has no matching loop_end after it");
  const auto& se = steps[L.end];
  const int64_t n = sb.at("carried").get<int64_t>();
  L.beginArgs = stepArgs[i];
  L.endArgs = stepArgs[L.end];
  if (n < 0 || n > 100000 || se.at("carried").get<int64_t>() != n || (int64_t)L.beginArgs.size() != 4 + 2 * n ||
      (int64_t)L.endArgs.size() < 2 + 2 * n || (L.endArgs.size() - 2 - 2 * (size_t)n) % 2)
    throw bad(what, name + "'s argument counts do not match its carried values");
  const size_t k = (L.endArgs.size() - 2 - 2 * (size_t)n) / 2;
  const auto bb = sb.at("bytes").get<std::vector<uint64_t>>(), eb = se.at("bytes").get<std::vector<uint64_t>>();
  L.scanDims = se.at("scan_dims").get<std::vector<std::vector<int64_t>>>();
  if (bb.size() != L.beginArgs.size() || eb.size() != L.endArgs.size() || L.scanDims.size() != k)
    throw bad(what, name + "'s byte counts do not match its arguments");
  ArgCheck c{bufs, what, name};
  c.fits(L.beginArgs[0], 8, false, true);
  c.fits(L.beginArgs[1], 1, false, true);
  c.fits(L.beginArgs[2 + n], 8, true);
  c.fits(L.beginArgs[3 + n], 1, true);
  if ((L.beginArgs[0] >= 0 && bb[0] != 8) || (L.beginArgs[1] >= 0 && bb[1] != 1) || bb[2 + n] != 8 || bb[3 + n] != 1 ||
      L.endArgs[0] != L.beginArgs[2 + n] || eb[1] != 1)
    throw bad(what, name + " has a trip count, condition or iteration number of the wrong size");
  c.fits(L.endArgs[1], 1, false);
  for (int64_t j = 0; j < n; ++j) {
    uint64_t b = bb[2 + j];
    if (bb[4 + n + j] != b || eb[2 + j] != b || eb[2 + n + k + j] != b)
      throw bad(what, name + ": carried value " + std::to_string(j) + " has different sizes across the loop");
    c.fits(L.beginArgs[2 + j], b, false);
    c.fits(L.beginArgs[4 + n + j], b, true);
    c.fits(L.endArgs[2 + j], b, false);
    c.fits(L.endArgs[2 + n + k + j], b, true);
    L.carriedBytes.push_back(b);
  }
  std::vector<size_t> sizes;
  for (size_t j = 0; j < k; ++j) {
    const uint64_t b = eb[2 + n + j];
    c.fits(L.endArgs[2 + n + j], b, false);
    int64_t out = L.endArgs[2 + 2 * n + k + j];
    if (out < 0 || !bufs[(size_t)out].run || bufs[(size_t)out].rank != (int64_t)L.scanDims[j].size() + 1)
      throw bad(what, name + ": scan output " + std::to_string(j) + " is not in a run-sized buffer of its rank");
    int64_t want = -1;
    if (!shapeSize(L.scanDims[j], bufs[(size_t)out].esize, nullptr, &want) || (uint64_t)want != b)
      throw bad(what, name + ": scan output " + std::to_string(j) + "'s dims do not match its bytes");
    L.scanBytes.push_back(b);
    sizes.push_back(2 + 2 * (size_t)n + k + j);
  }
  if (se.at("sizes").get<std::vector<size_t>>() != sizes)
    throw bad(what, name + " sizes other arguments than its scans");
  checkShapes(se, L, n, k, bufs, what, name);
  return L;
}

}  // namespace

std::vector<LoopSpec> checkLoopSteps(const nlohmann::json& steps, const std::vector<std::vector<int64_t>>& stepArgs,
                                     const std::vector<PlanBuffer>& bufs, const std::string& what) {
  std::vector<LoopSpec> loops;
  std::vector<size_t> open;  // the begins of the loops around this step: nested, never crossing
  for (size_t i = 0; i < steps.size(); ++i) {
    if (!steps[i].contains("control")) continue;
    const std::string kind = steps[i].at("control").get<std::string>();
    if (isSequenceStepKind(kind)) continue;  // checked by checkSequenceSteps (sequence_control.h)
    if (kind == "loop_end") {
      if (open.empty() || steps[i].at("begin").get<size_t>() != open.back())
        throw bad(what, "the loop_end step " + std::to_string(i) + " does not close the innermost open loop");
      open.pop_back();
      continue;
    }
    if (kind != "loop_begin") throw bad(what, "unknown control step " + kind);
    loops.push_back(checkOneLoop(steps, stepArgs, i, bufs, what));
    open.push_back(i);
  }
  if (!open.empty()) throw bad(what, "a loop_begin without its loop_end");
  return loops;
}

LoopRunner::LoopRunner(const LoopSpec& spec, const std::function<uint8_t*(int64_t)>& ptr,
                       const std::function<size_t(int64_t)>& runIndex)
    : spec_(spec) {
  const size_t n = spec.carriedBytes.size(), k = spec.scanBytes.size();
  const auto& b = spec.beginArgs;
  const auto& e = spec.endArgs;
  m_ = b[0] >= 0 ? ptr(b[0]) : nullptr;
  cond_ = b[1] >= 0 ? ptr(b[1]) : nullptr;
  iter_ = ptr(b[2 + n]);
  condIn_ = ptr(b[3 + n]);
  condOut_ = ptr(e[1]);
  for (size_t j = 0; j < n; ++j) {
    init_.push_back(ptr(b[2 + j]));
    carriedIn_.push_back(ptr(b[4 + n + j]));
    carriedOut_.push_back(ptr(e[2 + j]));
    final_.push_back(ptr(e[2 + n + k + j]));
  }
  for (size_t j = 0; j < k; ++j) {
    scan_.push_back(ptr(e[2 + n + j]));
    scanRun_.push_back(runIndex(e[2 + 2 * n + k + j]));
  }
  scanData_.resize(k);
  scanActual_.resize(k);
  uint64_t total = 0;
  for (uint64_t x : spec.carriedBytes) total += x;
  staging_.resize(total);
}

// Copies through a staging buffer: a carried output may be another carried value's input
// (a body that swaps two values), so no input may be overwritten before every output is read.
template <class Src>
void LoopRunner::copyCarried(const std::vector<Src>& from, const std::vector<uint8_t*>& to) {
  size_t at = 0;
  for (size_t j = 0; j < from.size(); ++j) {
    std::memcpy(staging_.data() + at, from[j], spec_.carriedBytes[j]);
    at += spec_.carriedBytes[j];
  }
  at = 0;
  for (size_t j = 0; j < to.size(); ++j) {
    std::memcpy(to[j], staging_.data() + at, spec_.carriedBytes[j]);
    at += spec_.carriedBytes[j];
  }
}

size_t LoopRunner::begin() {
  trip_ = INT64_MAX;
  if (m_) std::memcpy(&trip_, m_, 8);
  const bool go = cond_ ? *cond_ != 0 : true;
  copyCarried(init_, carriedIn_);
  const int64_t zero = 0;
  std::memcpy(iter_, &zero, 8);
  *condIn_ = go ? 1 : 0;
  count_ = 0;
  for (auto& d : scanData_) d.clear();
  zero_ = !go || trip_ <= 0;
  return zero_ ? spec_.end : spec_.begin + 1;
}

std::vector<int64_t> LoopRunner::actualDims(const uint8_t* buf, int64_t at, size_t rank) const {
  std::vector<int64_t> dims(rank);
  if (rank) std::memcpy(dims.data(), buf + at, 8 * rank);
  return dims;
}

// Each iteration's carried values keep their shape; its scan values have the first one's.
void LoopRunner::checkIteration() {
  const std::string it = "loop " + spec_.node + ", iteration " + std::to_string(count_ - 1) + ": ";
  for (size_t j = 0; j < carriedOut_.size(); ++j) {
    if (spec_.carriedShapeAt[j] < 0) continue;
    auto dims = actualDims(carriedOut_[j], spec_.carriedShapeAt[j], spec_.carriedDims[j].size());
    if (dims != spec_.carriedDims[j])
      throw RuntimeError(it + "loop-carried value " + std::to_string(j) + " leaves the body with the shape [" +
                         joinInts(dims) + "], not [" + joinInts(spec_.carriedDims[j]) +
                         "] as it entered (atc runs "
                         "loops whose carried values keep their shapes)");
  }
  for (size_t j = 0; j < scan_.size(); ++j) {
    if (spec_.scanShapeAt[j] < 0) {
      scanActual_[j] = spec_.scanDims[j];
      continue;
    }
    auto dims = actualDims(scan_[j], spec_.scanShapeAt[j], spec_.scanDims[j].size());
    for (size_t d = 0; d < dims.size(); ++d)
      if (dims[d] < 0 || dims[d] > spec_.scanDims[j][d])
        throw RuntimeError(it + "scan value " + std::to_string(j) + " has no valid shape ([" + joinInts(dims) + "])");
    if (count_ > 1 && dims != scanActual_[j])
      throw RuntimeError(it + "scan value " + std::to_string(j) + " has the shape [" + joinInts(dims) +
                         "], the "
                         "first iteration's had [" +
                         joinInts(scanActual_[j]) + "]");
    scanActual_[j] = dims;
  }
}

size_t LoopRunner::end(uint8_t* arena, std::vector<void*>& args, std::vector<RunBuffer>& runBufs) {
  if (!zero_) {
    ++count_;
    checkIteration();
    for (size_t j = 0; j < scan_.size(); ++j) {
      int64_t bytes = 0;
      shapeSize(scanActual_[j], spec_.scanEsize[j], nullptr, &bytes);
      if (scanData_[j].size() + (uint64_t)bytes > runMemoryLimit())
        throw RuntimeError("loop " + spec_.node + ": after " + std::to_string(count_) + " iterations, scan output " +
                           std::to_string(j) + " needs more memory than this machine has (" +
                           std::to_string(runMemoryLimit()) + " bytes)");
      scanData_[j].insert(scanData_[j].end(), scan_[j], scan_[j] + bytes);
    }
    if (*condOut_ != 0 && count_ < trip_) {
      copyCarried(carriedOut_, carriedIn_);
      std::memcpy(iter_, &count_, 8);
      *condIn_ = 1;
      return spec_.begin + 1;
    }
    copyCarried(carriedOut_, final_);
  } else {
    copyCarried(carriedIn_, final_);  // no iteration: the initial values, as loop_begin set them
  }
  for (size_t j = 0; j < scan_.size(); ++j) {
    RunBuffer& rb = runBufs[scanRun_[j]];
    std::vector<int64_t> dims = {count_};
    const auto& each = count_ ? scanActual_[j] : spec_.scanDims[j];
    dims.insert(dims.end(), each.begin(), each.end());
    std::memcpy(arena + rb.dimsOffset(), dims.data(), 8 * dims.size());
    rb.size(arena, args);
    if (!scanData_[j].empty()) std::memcpy(const_cast<void*>(rb.data()), scanData_[j].data(), scanData_[j].size());
  }
  return spec_.end + 1;
}

}  // namespace rt
}  // namespace atc
