// Run-sized values (docs/dynamic-shapes.md, "Run-sized values"): the outputs of ops whose
// shape comes from input values with no static bound (Expand, Resize, OneHot... with a
// run-time shape). Their kernel writes the dims into a slot of the arena in a size pass (called
// with the output's pointer null); the runtime then gives the value memory of that size, kept
// and grown across runs, and calls the kernel again.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace atc {
namespace rt {

// The most one run-sized value may take: the machine's memory (an allocation beyond it would
// succeed lazily and end in an out-of-memory kill instead of an error).
uint64_t runMemoryLimit();

class RunBuffer {
 public:
  RunBuffer(std::string name, uint64_t dimsOffset, int64_t rank, size_t esize)
      : name_(std::move(name)), dimsOffset_(dimsOffset), rank_(rank), esize_(esize) {}
  ~RunBuffer();
  RunBuffer(RunBuffer&& o) noexcept;
  RunBuffer(const RunBuffer&) = delete;
  RunBuffer& operator=(const RunBuffer&) = delete;
  RunBuffer& operator=(RunBuffer&&) = delete;

  // Reads the dims the size pass wrote into the slot at arena + dimsOffset, checks them (-1:
  // the kernel found no valid shape; a size beyond the runtime's tensor limit), grows the
  // memory when needed and points every argument slot of this value (args[i] for i in
  // argSlots) at it. Throws RuntimeError naming the value.
  void size(const uint8_t* arena, std::vector<void*>& args);
  // Where args carries this value's data pointer.
  std::vector<size_t> argSlots;
  const std::vector<int64_t>& dims() const { return dims_; }
  uint64_t bytes() const { return bytes_; }
  const void* data() const { return data_; }
  int64_t rank() const { return rank_; }
  size_t esize() const { return esize_; }
  uint64_t dimsOffset() const { return dimsOffset_; }
  void setName(const std::string& n) { name_ = n; }

 private:
  std::string name_;
  uint64_t dimsOffset_;
  int64_t rank_;
  size_t esize_;
  void* data_ = nullptr;
  uint64_t cap_ = 0, bytes_ = 0;
  std::vector<int64_t> dims_;
};

}  // namespace rt
}  // namespace atc
