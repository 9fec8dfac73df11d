#include "backend/weight_store.h"

#include <algorithm>
#include <cstring>

namespace atc {

WeightStore::Place WeightStore::place(const TensorPtr& t) {
  auto it = byTensor_.find(t.get());
  if (it != byTensor_.end()) return held_[it->second].first;
  // (8 bytes per step: the store hashes every weight of every graph it is given)
  uint64_t h = 0xcbf29ce484222325ull;
  const uint8_t* d = t->data.data();
  const size_t n = t->data.size();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, d + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; i < n; ++i) h = (h ^ d[i]) * 0x100000001b3ull;
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

std::map<int64_t, int64_t> WeightStore::mergePrefixes() {
  const size_t n = held_.size();
  std::vector<size_t> order(n);  // largest first: a container is kept before what it contains
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return held_[a].second->data.size() > held_[b].second->data.size(); });
  constexpr size_t kHead = 64;  // weights are matched on their first bytes, then compared in full
  std::map<std::vector<uint8_t>, std::vector<size_t>> byHead;  // kept weights of >= kHead bytes
  std::vector<int64_t> into(n, -1);                           // the kept weight i's bytes begin
  for (size_t i : order) {
    const std::vector<uint8_t>& d = held_[i].second->data;
    if (d.size() < kHead) continue;
    std::vector<uint8_t> head(d.begin(), d.begin() + kHead);
    auto& kept = byHead[head];
    for (size_t k : kept)
      if (std::equal(d.begin(), d.end(), held_[k].second->data.begin())) {
        into[i] = (int64_t)k;
        break;
      }
    if (into[i] < 0) kept.push_back(i);
  }
  std::map<int64_t, int64_t> moved;
  std::vector<std::pair<Place, TensorPtr>> keep;
  std::vector<int64_t> newOffset(n, -1);
  int64_t end = 0;
  for (size_t i = 0; i < n; ++i) {
    if (into[i] >= 0) continue;
    Place p{(end + 63) / 64 * 64, held_[i].first.size};
    end = p.offset + p.size;
    newOffset[i] = p.offset;
    keep.push_back({p, held_[i].second});
  }
  for (size_t i = 0; i < n; ++i) moved[held_[i].first.offset] = newOffset[into[i] >= 0 ? (size_t)into[i] : i];
  held_ = std::move(keep);
  end_ = end;
  byTensor_.clear();
  byContent_.clear();  // (nothing is placed after a merge)
  return moved;
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
