// The WEIGHTS_DATA blob of one .om: every constant a plan reads, laid out in order of first
// use at 64-byte aligned offsets, one copy per distinct content (weights are read-only, so
// equal bytes share one place: 20k MatMuls reading copies of one weight, or the gears of a
// dynamic model, which import the same weights once per gear).
#pragma once
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "ir/tensor.h"

namespace atc {

class WeightStore {
 public:
  struct Place {
    int64_t offset = 0, size = 0;
  };
  // Where t's bytes go (placed on first sight; a tensor with the bytes of one already placed
  // shares its place). The store keeps the placed tensors alive until fill().
  Place place(const TensorPtr& t);
  size_t bytes() const { return (size_t)end_; }
  // Copies every weight to dst[offset] (dst: bytes() bytes, zeroed) and drops the store's
  // reference to each as soon as it is copied: with the graphs' references already dropped
  // (BufferPlan::releaseConstants), atc's peak memory stays near one copy of the weights.
  void fill(uint8_t* dst);
  // Drops every weight whose bytes begin another (larger or equal) one's, and lays the rest
  // out again in their order: the slices pos[:, :S] of a position table that a range build
  // folds once per shape then cost nothing beyond the largest. Returns old offset -> new
  // offset for every place handed out so far (a dropped one: where its bytes now are).
  std::map<int64_t, int64_t> mergePrefixes();

 private:
  int64_t end_ = 0;
  std::vector<std::pair<Place, TensorPtr>> held_;                 // in layout order
  std::map<const Tensor*, size_t> byTensor_;                      // held tensor -> index in held_
  std::map<std::pair<uint64_t, size_t>, std::vector<size_t>> byContent_;  // (FNV-1a, size) -> indices
};

}  // namespace atc
