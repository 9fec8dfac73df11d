// Sequence control steps (docs/om-format.md, "Sequence steps"): sequences made at run time
// (ops/control/sequence_ops.cpp) live in a SequenceStore for the length of a run. A handle, an
// int64 the store gives out (0: no sequence, an empty optional), stands for one in the arena;
// a sequence never changes, an insert makes a new one sharing the old one's tensors.
//   seq_make   args: x... | h              a sequence of copies of the tensors
//   seq_insert args: h, x, pos? | h'       pos outside [-n, n] fails the run
//   seq_length args: h | n
//   seq_output args: h | h                 a graph output; h = 0 fails the run unless allow_none
//   seq_at     args: h, pos | y            y: static (the element must have its dims) or run-sized
//   seq_erase  args: h, pos? | h'          pos outside [-n, n - 1] fails the run (absent: -1)
//   seq_concat args: h | y                 ConcatFromSequence (axis, new_axis); y run-sized
//   seq_split  args: x, split? | h         SplitToSequence (axis, keepdims) by sizes a run gives
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/atc_runtime.h"
#include "runtime/plan_buffer.h"

namespace atc {
namespace rt {

struct SeqArg {
  int64_t buf = -1;  // buffer id; -1: absent
  std::string dtype;
  int32_t dtypeCode = 0;
  size_t esize = 0;
  std::vector<int64_t> dims;  // static dims, or the bound of a value shaped by data
  int64_t shapeAt = -1;       // shaped by data: the byte offset of its actual dims in its buffer
  bool run = false;           // run-sized: its dims are in the arena at runDims
  uint64_t runDims = 0;
};

struct SeqStepSpec {
  size_t step = 0;
  std::string kind, node;
  std::vector<SeqArg> args;  // inputs then the output
  bool allowNone = false;
  int64_t axis = 0;                      // seq_concat, seq_split
  bool newAxis = false, keepdims = true;  // seq_concat; seq_split
  int64_t outRun = -1;  // a run-sized output's index in the gear's run buffers (set by the loader)
};

bool isSequenceStepKind(const std::string& control);

// The sequence steps of a plan, checked against the buffers (stepArgs: each step's buffer
// ids). Throws RuntimeError "<what>: invalid execution plan: ...".
std::vector<SeqStepSpec> checkSequenceSteps(const nlohmann::json& steps,
                                            const std::vector<std::vector<int64_t>>& stepArgs,
                                            const std::vector<PlanBuffer>& bufs, const std::string& what);

struct SeqTensor {
  TensorDesc desc;  // dtype, dtypeCode, shape, bytes
  std::vector<uint8_t> data;
};

class SequenceStore {
 public:
  void reset();
  // Counts `bytes` of new tensor data against the machine's memory (RuntimeError beyond it).
  void account(uint64_t bytes);
  int64_t make(std::vector<std::shared_ptr<const SeqTensor>> elems);
  int64_t insert(int64_t h, std::shared_ptr<const SeqTensor> x, int64_t pos, const std::string& node);
  int64_t length(int64_t h, const std::string& node) const;
  std::vector<std::shared_ptr<const SeqTensor>> list(int64_t h, const std::string& node) const;
  // Throws RuntimeError naming `node` unless h was made in this run (0 when allowNone).
  void check(int64_t h, const std::string& node, bool allowNone = false) const;

 private:
  struct Entry {
    int64_t parent = 0;  // the sequence this one extends by `last` (0: none, the empty one)
    std::shared_ptr<const SeqTensor> last;
    int64_t length = 0;
  };
  int64_t add(Entry e);
  std::vector<Entry> entries_;  // handle h: entries_[h - 1]
  uint64_t bytes_ = 0;
};

// Runs one sequence step over its arguments' current addresses (args, as the kernels get
// them) and the arena (for run-sized dims). sizeOutput(dims): gives a run-sized output its
// dims and memory (RunBuffer::size), returns its address. Throws RuntimeError naming the node.
void runSequenceStep(const SeqStepSpec& s, SequenceStore& store, void* const* args, const uint8_t* arena,
                     const std::function<void*(const std::vector<int64_t>&)>& sizeOutput);

}  // namespace rt
}  // namespace atc
