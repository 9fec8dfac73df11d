// cumsum: running sums along one axis. bufs = {in, axis, out}.
// P = {dtype, outer, n (axis length), inner, exclusive, reverse}. Items: outer slices.
// float16/bfloat16 accumulate in float32 (rounded per output element).
#include "kernels/lib/index_elem.h"

ATC_KERNEL(cumsum)

namespace {
template <class T, class Acc>
ATCK_INLINE void scan(const T* in, T* out, int64_t n, int64_t inner, bool excl, bool rev) {
  for (int64_t i = 0; i < inner; ++i) {
    Acc acc = 0;
    for (int64_t s = 0; s < n; ++s) {
      int64_t j = rev ? n - 1 - s : s;
      Acc v = (Acc)in[j * inner + i];
      if (excl) { out[j * inner + i] = (T)acc; acc += v; }
      else { acc += v; out[j * inner + i] = (T)acc; }
    }
  }
}

ATCK_INLINE void scanHalf(const uint16_t* in, uint16_t* out, int64_t n, int64_t inner, bool excl,
                          bool rev, bool bf) {
  for (int64_t i = 0; i < inner; ++i) {
    float acc = 0;
    for (int64_t s = 0; s < n; ++s) {
      int64_t j = rev ? n - 1 - s : s;
      uint16_t h = in[j * inner + i];
      float v = bf ? atck_bf2f(h) : atck_h2f(h);
      float o = excl ? acc : acc + v;
      acc += v;
      out[j * inner + i] = bf ? atck_f2bf(o) : atck_f2h(o);
    }
  }
}
}  // namespace

int64_t atck_cumsum_ntasks(const int64_t* P) { return P[2] * P[3] == 0 ? 0 : P[1]; }

void atck_cumsum_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t dt = P[0], n = P[2], inner = P[3];
  bool excl = P[4] != 0, rev = P[5] != 0;
  for (int64_t o = begin; o < end; ++o) {
    int64_t off = o * n * inner;
    switch (dt) {
      case ATCK_F32: scan<float, float>((const float*)bufs[0] + off, (float*)bufs[2] + off, n, inner, excl, rev); break;
      case ATCK_F64: scan<double, double>((const double*)bufs[0] + off, (double*)bufs[2] + off, n, inner, excl, rev); break;
      case ATCK_I32: scan<int32_t, int32_t>((const int32_t*)bufs[0] + off, (int32_t*)bufs[2] + off, n, inner, excl, rev); break;
      case ATCK_I64: scan<int64_t, int64_t>((const int64_t*)bufs[0] + off, (int64_t*)bufs[2] + off, n, inner, excl, rev); break;
      case ATCK_U32: scan<uint32_t, uint32_t>((const uint32_t*)bufs[0] + off, (uint32_t*)bufs[2] + off, n, inner, excl, rev); break;
      case ATCK_U64: scan<uint64_t, uint64_t>((const uint64_t*)bufs[0] + off, (uint64_t*)bufs[2] + off, n, inner, excl, rev); break;
      case ATCK_F16: scanHalf((const uint16_t*)bufs[0] + off, (uint16_t*)bufs[2] + off, n, inner, excl, rev, false); break;
      case ATCK_BF16: scanHalf((const uint16_t*)bufs[0] + off, (uint16_t*)bufs[2] + off, n, inner, excl, rev, true); break;
      default: break;
    }
  }
}
