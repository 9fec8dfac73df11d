// Backend phase 2: where every value lives. Liveness over the lowered steps, buffer groups
// (values sharing memory: in-place aliases of input 0), the arena plan (plan_memory.h), and
// the weights blob (constants, laid out in order of first use).
#pragma once
#include <cstdint>
#include <map>
#include <vector>

#include "backend/lowering.h"
#include "backend/plan_memory.h"

namespace atc {

// A memory region of the plan: an arena group or a weight.
struct PlanRegion {
  bool weights = false;
  int64_t offset = 0, size = 0;
};

class BufferPlan {
 public:
  // Plans the arena; marks aliased nodes of `lowered` as skipped. reuse=false: no aliasing
  // and no memory reuse (--disable_reuse_memory=1).
  BufferPlan(Graph& g, std::vector<LoweredNode>& lowered, bool reuse);
  // The region index of v: node inputs that are constants read the weights, the rest the arena.
  int regionOf(const Value* v, bool nodeInput = false);
  int workspaceOf(int step) const { return workspace_[step]; }
  int64_t arenaSize() const { return arenaSize_; }
  const std::vector<PlanRegion>& regions() const { return regions_; }
  size_t weightBytes() const { return (size_t)weightEnd_; }
  // Copies every weight to dst[offset] (dst: weightBytes() bytes, zeroed). With releaseFrom,
  // the values of that graph holding a weight drop it once it is copied (they are no longer
  // constants): atc's peak memory stays near one copy of the weights.
  void fillWeights(uint8_t* dst, Graph* releaseFrom);

 private:
  void liveness(const Graph& g, const std::vector<LoweredNode>& lowered);
  void groupBuffers(const Graph& g, std::vector<LoweredNode>& lowered, bool reuse);
  int weightOf(const Value* v);

  std::map<const Value*, int> lastUse_, defAt_, groupOf_;
  std::vector<PlanBuffer> groups_;
  std::vector<int> workspace_;
  int64_t arenaSize_ = 0;
  std::vector<PlanRegion> regions_;
  int64_t weightEnd_ = 0;
  std::vector<std::pair<int, const Tensor*>> weightData_;  // region -> the constant that fills it
  std::map<int, int> weightIndex_;                   // region -> index in weightData_
  std::map<const Tensor*, int> weightRegion_;  // lookup only: layout follows first use
  std::map<std::pair<uint64_t, size_t>, std::vector<int>> byContent_;  // (FNV-1a, size) -> regions
};

}  // namespace atc
