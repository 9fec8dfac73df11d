// cumsum: running sums (or products) along one axis. bufs = {in, axis, out}.
// P = {dtype, outer, n (axis length), inner, exclusive, reverse, product, axisDtype, rank,
// dims...}. axisDtype 0: the axis is baked into outer/n/inner; else (ATCK_I32 / ATCK_I64) it is
// the scalar bufs[1], normalised and clamped to [0, rank) (kernels cannot raise errors), and
// one task splits the shape (P[2] = all elements). Items: outer slices.
// float16/bfloat16 accumulate in float32 (rounded per output element).
#include "kernels/lib/index_elem.h"

ATC_KERNEL(cumsum)

namespace {
template <class T, class Acc>
ATCK_INLINE void scan(const T* in, T* out, int64_t n, int64_t inner, bool excl, bool rev, bool prod) {
  for (int64_t i = 0; i < inner; ++i) {
    Acc acc = prod ? (Acc)1 : (Acc)0;
    for (int64_t s = 0; s < n; ++s) {
      int64_t j = rev ? n - 1 - s : s;
      Acc v = (Acc)in[j * inner + i];
      Acc next = prod ? (Acc)(acc * v) : (Acc)(acc + v);
      out[j * inner + i] = (T)(excl ? acc : next);
      acc = next;
    }
  }
}

ATCK_INLINE void scanHalf(const uint16_t* in, uint16_t* out, int64_t n, int64_t inner, bool excl,
                          bool rev, bool bf, bool prod) {
  for (int64_t i = 0; i < inner; ++i) {
    float acc = prod ? 1.0f : 0.0f;
    for (int64_t s = 0; s < n; ++s) {
      int64_t j = rev ? n - 1 - s : s;
      uint16_t h = in[j * inner + i];
      float v = bf ? atck_bf2f(h) : atck_h2f(h);
      float next = prod ? acc * v : acc + v;
      float o = excl ? acc : next;
      acc = next;
      out[j * inner + i] = bf ? atck_f2bf(o) : atck_f2h(o);
    }
  }
}

void slices(int64_t dt, const void* inBuf, void* outBuf, int64_t begin, int64_t end, int64_t n, int64_t inner,
            bool excl, bool rev, bool prod) {
  for (int64_t o = begin; o < end; ++o) {
    int64_t off = o * n * inner;
    switch (dt) {
      case ATCK_F32: scan<float, float>((const float*)inBuf + off, (float*)outBuf + off, n, inner, excl, rev, prod); break;
      case ATCK_F64: scan<double, double>((const double*)inBuf + off, (double*)outBuf + off, n, inner, excl, rev, prod); break;
      case ATCK_I32: scan<int32_t, uint32_t>((const int32_t*)inBuf + off, (int32_t*)outBuf + off, n, inner, excl, rev, prod); break;
      case ATCK_I64: scan<int64_t, uint64_t>((const int64_t*)inBuf + off, (int64_t*)outBuf + off, n, inner, excl, rev, prod); break;
      case ATCK_U32: scan<uint32_t, uint32_t>((const uint32_t*)inBuf + off, (uint32_t*)outBuf + off, n, inner, excl, rev, prod); break;
      case ATCK_U64: scan<uint64_t, uint64_t>((const uint64_t*)inBuf + off, (uint64_t*)outBuf + off, n, inner, excl, rev, prod); break;
      case ATCK_F16: scanHalf((const uint16_t*)inBuf + off, (uint16_t*)outBuf + off, n, inner, excl, rev, false, prod); break;
      case ATCK_BF16: scanHalf((const uint16_t*)inBuf + off, (uint16_t*)outBuf + off, n, inner, excl, rev, true, prod); break;
      default: break;
    }
  }
}
}  // namespace

int64_t atck_cumsum_ntasks(const int64_t* P) { return P[2] * P[3] == 0 ? 0 : P[1]; }

void atck_cumsum_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t dt = P[0], n = P[2], inner = P[3];
  bool excl = P[4] != 0, rev = P[5] != 0, prod = P[6] != 0;
  if (P[7]) {  // run-time axis: one task, the shape split here
    const int64_t rank = P[8];
    const int64_t* dims = P + 9;
    int64_t a = P[7] == ATCK_I32 ? (int64_t) * (const int32_t*)bufs[1] : *(const int64_t*)bufs[1];
    if (a < 0) a += rank;
    if (a < 0) a = 0;
    if (a >= rank) a = rank - 1;
    int64_t outer = 1;
    inner = 1;
    for (int64_t i = 0; i < a; ++i) outer *= dims[i];
    for (int64_t i = a + 1; i < rank; ++i) inner *= dims[i];
    slices(dt, bufs[0], bufs[2], 0, outer, dims[a], inner, excl, rev, prod);
    return;
  }
  slices(dt, bufs[0], bufs[2], begin, end, n, inner, excl, rev, prod);
}
