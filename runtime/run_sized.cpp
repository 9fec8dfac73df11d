#include "runtime/run_sized.h"

#include <stdlib.h>
#include <unistd.h>

#include <cstring>

#include "runtime/atc_runtime.h"
#include "support/checked_math.h"
#include "support/strings.h"

namespace atc {
namespace rt {

uint64_t runMemoryLimit() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  uint64_t phys = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : (uint64_t)kMaxTensorBytes;
  return phys < (uint64_t)kMaxTensorBytes ? phys : (uint64_t)kMaxTensorBytes;
}

RunBuffer::~RunBuffer() { free(data_); }

RunBuffer::RunBuffer(RunBuffer&& o) noexcept
    : argSlots(std::move(o.argSlots)), name_(std::move(o.name_)), dimsOffset_(o.dimsOffset_), rank_(o.rank_),
      esize_(o.esize_), data_(o.data_), cap_(o.cap_), bytes_(o.bytes_), dims_(std::move(o.dims_)) {
  o.data_ = nullptr;
  o.cap_ = 0;
}

void RunBuffer::size(const uint8_t* arena, std::vector<void*>& args) {
  std::vector<int64_t> dims((size_t)rank_);
  std::memcpy(dims.data(), arena + dimsOffset_, 8 * (size_t)rank_);
  for (int64_t d : dims)
    if (d < 0)
      throw RuntimeError("output " + name_ + ": this run's input values give it no valid shape (" +
                         "[" + joinInts(dims) + "]: for example an Expand shape that does not broadcast, a negative " +
                         "size, repeat or depth)");
  int64_t bytes = 0;
  if (!shapeSize(dims, esize_, nullptr, &bytes) || (uint64_t)bytes > runMemoryLimit())
    throw RuntimeError("output " + name_ + ": this run's input values give it shape [" + joinInts(dims) +
                       "], more memory than this machine has (" + std::to_string(runMemoryLimit()) + " bytes)");
  if ((uint64_t)bytes > cap_ || !data_) {
    uint64_t want = (uint64_t)bytes + (uint64_t)bytes / 4;  // room to grow a little without a new allocation
    want = (want + 63) / 64 * 64;
    if (want == 0) want = 64;
    void* p = aligned_alloc(64, want);
    if (!p) throw RuntimeError("output " + name_ + ": out of memory allocating " + std::to_string(want) + " bytes");
    free(data_);
    data_ = p;
    cap_ = want;
  }
  dims_ = dims;
  bytes_ = (uint64_t)bytes;
  for (size_t s : argSlots) args[s] = data_;
}

}  // namespace rt
}  // namespace atc
