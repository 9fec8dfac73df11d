// Backend phase 2: where every value lives. Liveness over the lowered steps, buffer groups
// (values sharing memory: in-place aliases of input 0), the arena plan (plan_memory.h), and
// the regions of the weights blob (backend/weight_store.h) the plan's constants live in.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "backend/lowering.h"
#include "backend/plan_memory.h"
#include "backend/weight_store.h"

namespace atc {

// A memory region of the plan: an arena group or a weight. A run-sized value's region
// (run = true) is its dims slot in the arena (offset, size); its data lives in memory the
// runtime allocates per run (docs/dynamic-shapes.md, "Run-sized values").
struct PlanRegion {
  bool weights = false;
  int64_t offset = 0, size = 0;
  bool run = false;
  int64_t rank = 0, esize = 0;  // run: the value's rank and element size
};

class BufferPlan {
 public:
  // Plans the arena; marks aliased nodes of `lowered` as skipped. reuse=false: no aliasing
  // and no memory reuse (--disable_reuse_memory=1). Constants are placed in `weights`, which
  // may be shared by the plans of several graphs (the gears of a dynamic model).
  // redzone > 0 (an `oom` build): each arena buffer is placed with that many free bytes before
  // and after it (a multiple of 64, so the buffer stays aligned).
  BufferPlan(Graph& g, std::vector<LoweredNode>& lowered, bool reuse, WeightStore& weights, int64_t redzone = 0);
  // The region index of v: node inputs that are constants read the weights, the rest the arena.
  int regionOf(const Value* v, bool nodeInput = false);
  int workspaceOf(int step) const { return workspace_[step]; }
  // A run-sized value's dims slot as a plain arena region (the argument its kernel's size pass
  // writes the dims to).
  int dimsRegionOf(const Value* v);
  int64_t arenaSize() const { return arenaSize_; }
  const std::vector<PlanRegion>& regions() const { return regions_; }
  // The values of g whose constant the weight store holds drop it (they are no longer
  // constants): the store's reference is then the only one, and WeightStore::fill frees each
  // weight once it is copied. Call after the last regionOf.
  void releaseConstants(Graph& g);

 private:
  void liveness(const Graph& g, const std::vector<LoweredNode>& lowered);
  void extendAcrossLoops(const std::vector<LoweredNode>& lowered);
  void groupBuffers(const Graph& g, std::vector<LoweredNode>& lowered, bool reuse);
  bool sliceConcat(const Node& n, int step, const std::set<const Value*>& graphOut);
  int weightOf(const Value* v);

  std::map<const Value*, int> lastUse_, defAt_, groupOf_, uses_;
  std::set<int> ownGroup_;  // groups made for one value (no alias shares them)
  // A Concat's input written in place into its slice of the output (sliceConcat): the input's
  // group (left empty in the arena), the output's group, the byte offset of the slice.
  struct Slice {
    int group, concatGroup;
    int64_t offset, size;
  };
  std::vector<Slice> slices_;
  bool sliceConcats_ = false;
  std::vector<PlanBuffer> groups_;
  std::vector<int> workspace_;
  int64_t arenaSize_ = 0;
  std::vector<PlanRegion> regions_;
  std::map<int, int> dimsRegion_;  // run-sized value's group -> its dims slot's plain region
  WeightStore& weights_;
  std::map<const Tensor*, int> weightRegion_;  // this graph's constants -> their region
  // (weight offset, size) -> region (equal bytes: one region; an empty constant shares its
  // offset with the next weight, so the size is part of the key)
  std::map<std::pair<int64_t, int64_t>, int> regionAt_;
};

}  // namespace atc
