#include "backend/weight_store.h"

#include <algorithm>
#include <cstring>

namespace atc {

WeightStore::Place WeightStore::place(const TensorPtr& t) {
  auto it = byTensor_.find(t.get());
  if (it != byTensor_.end()) return held_[it->second].first;
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint8_t b : t->data) h = (h ^ b) * 0x100000001b3ull;
  auto& same = byContent_[{h, t->data.size()}];
  for (size_t i : same) {
    const Tensor* have = held_[i].second.get();
    if (std::equal(t->data.begin(), t->data.end(), have->data.begin())) {
      // t is not held, nor remembered: its address may be reused once its graph is gone.
      return held_[i].first;
    }
  }
  Place p{(end_ + 63) / 64 * 64, (int64_t)t->data.size()};
  end_ = p.offset + p.size;
  held_.push_back({p, t});
  byTensor_[t.get()] = held_.size() - 1;
  same.push_back(held_.size() - 1);
  return p;
}

void WeightStore::fill(uint8_t* dst) {
  // The lookups name tensors that may be freed below: forget them first.
  byTensor_.clear();
  byContent_.clear();
  for (auto& [p, t] : held_) {
    if (!t->data.empty()) std::memcpy(dst + p.offset, t->data.data(), t->data.size());
    t.reset();
  }
  held_.clear();
}

}  // namespace atc
