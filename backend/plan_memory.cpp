#include "backend/plan_memory.h"

#include <algorithm>
#include <limits>

namespace atc {
namespace {
int64_t alignUp(int64_t x) { return (x + kPlanAlign - 1) / kPlanAlign * kPlanAlign; }
}  // namespace

int64_t planArena(std::vector<PlanBuffer>& bufs, bool reuse) {
  std::vector<size_t> order(bufs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  // Largest first; ties by first use then index (deterministic).
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (bufs[a].size != bufs[b].size) return bufs[a].size > bufs[b].size;
    return bufs[a].first < bufs[b].first;
  });
  int64_t arena = 0;
  std::vector<size_t> placed;
  for (size_t idx : order) {
    PlanBuffer& b = bufs[idx];
    int64_t need = alignUp(b.size);
    if (need == 0) {
      b.offset = 0;
      continue;
    }
    // Occupied intervals of placed buffers whose lifetime overlaps b's.
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (size_t p : placed) {
      const PlanBuffer& o = bufs[p];
      if (!reuse || (o.first <= b.last && b.first <= o.last)) busy.push_back({o.offset, o.offset + alignUp(o.size)});
    }
    std::sort(busy.begin(), busy.end());
    int64_t bestOff = -1, bestGap = std::numeric_limits<int64_t>::max();
    int64_t cursor = 0;
    for (auto& iv : busy) {
      if (iv.first > cursor) {
        int64_t gap = iv.first - cursor;
        if (gap >= need && gap < bestGap) bestGap = gap, bestOff = cursor;
      }
      cursor = std::max(cursor, iv.second);
    }
    if (bestOff < 0) bestOff = cursor;  // after everything live at the same time
    b.offset = bestOff;
    arena = std::max(arena, bestOff + need);
    placed.push_back(idx);
  }
  return arena;
}

}  // namespace atc
