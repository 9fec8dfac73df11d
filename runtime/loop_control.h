// Loop control steps (docs/om-format.md, "Loop steps"): an ONNX Loop that atc could not unroll
// runs here. The plan's loop_begin step reads the trip count and condition and sets the body's
// inputs; the steps after it are the body; the loop_end step appends the scan values, and either
// copies the carried values back and jumps to the body's first step or writes the final values
// and sizes the scan outputs (run-sized: [iterations, ...]).
//   loop_begin args: M?, cond?, initial x carried | iteration_num, cond_in, carried_in x carried
//   loop_end args:   iteration_num, cond_out, carried_out x carried, scan x k | final x carried,
//                    scan_output x k
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/plan_buffer.h"
#include "runtime/run_sized.h"

namespace atc {
namespace rt {

struct LoopSpec {
  std::string node;
  size_t begin = 0, end = 0;                // step indexes
  std::vector<int64_t> beginArgs, endArgs;  // buffer ids, -1: absent
  std::vector<uint64_t> carriedBytes, scanBytes;
  std::vector<std::vector<int64_t>> scanDims;  // per scan output: one iteration's dims (a bound: below)
  std::vector<size_t> scanEsize;
  std::vector<std::vector<int64_t>> carriedDims;
  // Values whose shape comes from data: the byte offset of their actual dims in their buffer (-1:
  // a static shape). A carried value must keep its dims; every scan value has the first one's.
  std::vector<int64_t> carriedShapeAt, scanShapeAt;
};

// The loops of a plan's steps, checked: pairs, no loop inside another, argument and byte
// counts against the buffers (stepArgs: each step's buffer ids). Throws RuntimeError
// "<what>: invalid execution plan: ...".
std::vector<LoopSpec> checkLoopSteps(const nlohmann::json& steps, const std::vector<std::vector<int64_t>>& stepArgs,
                                     const std::vector<PlanBuffer>& bufs, const std::string& what);

class LoopRunner {
 public:
  // ptr(id): a buffer's address; runIndex(id): a run buffer's index in the gear's run buffers.
  LoopRunner(const LoopSpec& spec, const std::function<uint8_t*(int64_t)>& ptr,
             const std::function<size_t(int64_t)>& runIndex);
  // The index of the step to run next.
  size_t begin();
  size_t end(uint8_t* arena, std::vector<void*>& args, std::vector<RunBuffer>& runBufs);

 private:
  template <class Src>  // const uint8_t* or uint8_t*
  void copyCarried(const std::vector<Src>& from, const std::vector<uint8_t*>& to);
  std::vector<int64_t> actualDims(const uint8_t* buf, int64_t at, size_t rank) const;
  void checkIteration();
  LoopSpec spec_;
  const uint8_t *m_ = nullptr, *cond_ = nullptr, *condOut_ = nullptr;
  uint8_t *iter_ = nullptr, *condIn_ = nullptr;
  std::vector<const uint8_t*> init_, carriedOut_, scan_;
  std::vector<uint8_t*> carriedIn_, final_;
  std::vector<size_t> scanRun_;
  std::vector<std::vector<int64_t>> scanActual_;  // the dims of this run's scan values
  int64_t trip_ = 0, count_ = 0;
  bool zero_ = false;
  std::vector<std::vector<uint8_t>> scanData_;
  std::vector<uint8_t> staging_;
};

}  // namespace rt
}  // namespace atc
