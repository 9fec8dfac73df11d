// Collapses a dense input shape and a sorted set of reduced axes into alternating kept and
// reduced dims (size-1 dims dropped, adjacent dims of one kind merged) with their element
// strides: the layout the "reduce" and "normalize" kernels take.
#pragma once
#include <algorithm>
#include <vector>

#include "ir/tensor.h"

namespace atc {

struct ReduceLayout {
  std::vector<int64_t> keptShape, keptStrides, redShape, redStrides;
  int64_t nout = 1, nred = 1;
};

inline ReduceLayout collapseReduce(const Shape& shape, const std::vector<int64_t>& sortedAxes) {
  ReduceLayout L;
  const int64_t rank = (int64_t)shape.size();
  std::vector<int64_t> strides(rank);
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= shape[d];
  }
  int lastKind = -1;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = shape[d];
    bool red = std::binary_search(sortedAxes.begin(), sortedAxes.end(), d);
    (red ? L.nred : L.nout) *= size;
    if (size == 1) continue;
    int kind = red ? 1 : 0;
    auto& sh = red ? L.redShape : L.keptShape;
    auto& st = red ? L.redStrides : L.keptStrides;
    if (kind == lastKind) {
      sh.back() *= size;
      st.back() = strides[d];
    } else {
      sh.push_back(size);
      st.push_back(strides[d]);
    }
    lastKind = kind;
  }
  if (L.redShape.empty()) {
    L.redShape.push_back(1);
    L.redStrides.push_back(0);
  }
  return L;
}

}  // namespace atc
