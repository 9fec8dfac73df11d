// Checked size arithmetic: every element count and byte size computed from a shape goes
// through these, so that a hostile or broken model ([2^62] tensors, INT64_MAX dims) gives a
// clear error instead of a wrapped product, a tiny allocation and a crash.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace atc {

// The largest tensor atc accepts (bytes): far beyond any real machine, and small enough that
// offsets and sums of a few such sizes never overflow int64.
constexpr int64_t kMaxTensorBytes = int64_t(1) << 48;

// a * b into *r; false on overflow (or a negative operand).
inline bool checkedMul(int64_t a, int64_t b, int64_t* r) {
  if (a < 0 || b < 0) return false;
  return !__builtin_mul_overflow(a, b, r);
}
// a + b into *r; false on overflow (or a negative operand).
inline bool checkedAdd(int64_t a, int64_t b, int64_t* r) {
  if (a < 0 || b < 0) return false;
  return !__builtin_add_overflow(a, b, r);
}

// Elements and bytes of a static shape: false when a dim is negative, a product overflows,
// or the size exceeds kMaxTensorBytes.
inline bool shapeSize(const std::vector<int64_t>& shape, size_t elemSize, int64_t* numel, int64_t* bytes) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (!checkedMul(n, d, &n)) return false;
  int64_t b = 0;
  if (!checkedMul(n, (int64_t)elemSize, &b) || b > kMaxTensorBytes) return false;
  if (numel) *numel = n;
  if (bytes) *bytes = b;
  return true;
}

}  // namespace atc
