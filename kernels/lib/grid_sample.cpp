// Kernel "grid_sample": GridSample (ops/datamove/grid_sample.cpp), float32, 2 or 3 spatial
// dims. Y[n, c, p] = X[n, c] sampled at the grid's point p, coordinates in [-1, 1]
// (grid[..., 0] is along the last spatial dim), following ONNX's reference: the point is
// denormalised (align_corners), moved inside the border by the padding mode when it is out
// of [min, max] (border: clamped to [0, size - 1]; reflection: reflected), then nearest (round
// half to even), linear (2 taps) or cubic (4 taps, alpha -0.75) per dim; a tap outside
// the input reads 0 (zeros), the edge (border) or its reflection (reflection).
// Params (never renumber): [0] N, [1] C, [2] r (2 or 3), [3] O (output points per image),
// [4] mode (0 nearest, 1 linear, 2 cubic), [5] padding (0 zeros, 1 border, 2 reflection),
// [6] align_corners, [7..7+r) input spatial sizes (outermost first).
// bufs: X [N, C, D...], Grid [N, O..., r], Y [N, C, O...]. One task per (n, block of points).
#include "kernels/lib/kernel_abi.h"
#include "kernels/lib/math_ops.h"

ATC_KERNEL(grid_sample)

#define GS_BLOCK 64

namespace {

struct GsTaps {
  int64_t n = 0;           // taps in this dim (1, 2 or 4)
  int64_t idx[4] = {0};    // input index of each tap, -1: reads 0
  double w[4] = {0};
};

ATCK_INLINE double gsReflect(double x, double lo, double hi) {
  const double range = hi - lo;
  if (range <= 0) return lo;
  // (k's parity without an integer conversion: k may be far beyond int64's range)
  if (x < lo) {
    const double dx = lo - x, k = atck_m_floor(dx / range), r = dx - k * range;
    return atck_m_floor(k * 0.5) == k * 0.5 ? lo + r : hi - r;
  }
  if (x > hi) {
    const double dx = x - hi, k = atck_m_floor(dx / range), r = dx - k * range;
    return atck_m_floor(k * 0.5) == k * 0.5 ? hi - r : lo + r;
  }
  return x;
}

// Where tap index i reads, by the padding mode; -1 for zeros outside the input.
ATCK_INLINE int64_t gsTapIndex(int64_t i, int64_t size, int64_t pad, double lo, double hi) {
  if (pad == 1) return i < 0 ? 0 : i >= size ? size - 1 : i;
  if (pad == 2) {
    int64_t j = (int64_t)gsReflect((double)i, lo, hi);
    return j < 0 ? 0 : j >= size ? size - 1 : j;
  }
  return i >= 0 && i < size ? i : -1;
}

ATCK_INLINE void gsCubic(double t, double* c) {
  const double a = -0.75, x1 = t + 1, x2 = 1 - t, x3 = 2 - t;
  c[0] = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a;
  c[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
  c[2] = ((a + 2) * x2 - (a + 3)) * x2 * x2 + 1;
  c[3] = ((a * x3 - 5 * a) * x3 + 8 * a) * x3 - 4 * a;
}

// The taps of one dim for normalised coordinate g. Returns false for a NaN coordinate.
ATCK_INLINE bool gsDimTaps(double g, int64_t size, int64_t mode, int64_t pad, int64_t align, GsTaps* t) {
  if (!(g == g)) return false;
  // Far outside the grid's [-1, 1] every padding mode has settled (zeros: no tap hits;
  // border: the edge); bounding g keeps reflection's arithmetic finite.
  if (g < -1e7) g = -1e7;
  if (g > 1e7) g = 1e7;
  double x = align ? (g + 1) / 2.0 * (double)(size - 1) : ((g + 1) * (double)size - 1) / 2.0;
  const double lo = align ? 0.0 : -0.5, hi = align ? (double)size - 1 : (double)size - 0.5;
  if (x < lo || x > hi) {
    if (pad == 1) x = x < 0 ? 0 : x > (double)(size - 1) ? (double)(size - 1) : x;
    else if (pad == 2) x = gsReflect(x, lo, hi);
  }
  // Far outside (zeros padding): every tap misses; keeps the integer conversions defined.
  if (x < -8.0) x = -8.0;
  if (x > (double)size + 8.0) x = (double)size + 8.0;
  if (mode == 0) {
    double r = atck_m_floor(x);  // round half to even, as ONNX's reference (numpy)
    const double h = x - r;
    if (h > 0.5 || (h == 0.5 && (int64_t)r % 2 != 0)) r += 1;
    t->n = 1;
    t->idx[0] = gsTapIndex((int64_t)r, size, pad, lo, hi);
    t->w[0] = 1.0;
    return true;
  }
  const double f = atck_m_floor(x), d = x - f;
  const int64_t x0 = (int64_t)f;
  if (mode == 1) {
    t->n = 2;
    t->idx[0] = gsTapIndex(x0, size, pad, lo, hi);
    t->idx[1] = gsTapIndex(x0 + 1, size, pad, lo, hi);
    t->w[0] = 1.0 - d;
    t->w[1] = d;
    return true;
  }
  t->n = 4;
  gsCubic(d, t->w);
  for (int64_t k = 0; k < 4; ++k) t->idx[k] = gsTapIndex(x0 - 1 + k, size, pad, lo, hi);
  return true;
}

}  // namespace

int64_t atck_grid_sample_ntasks(const int64_t* P) { return P[0] * ((P[3] + GS_BLOCK - 1) / GS_BLOCK); }

void atck_grid_sample_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t C = P[1], r = P[2], O = P[3], mode = P[4], pad = P[5], align = P[6];
  const int64_t* D = P + 7;
  int64_t plane = 1;
  for (int64_t i = 0; i < r; ++i) plane *= D[i];
  const int64_t blocks = (O + GS_BLOCK - 1) / GS_BLOCK;
  const float* X = (const float*)bufs[0];
  const float* G = (const float*)bufs[1];
  float* Y = (float*)bufs[2];
  for (int64_t t = begin; t < end; ++t) {
    const int64_t n = t / blocks, p0 = (t % blocks) * GS_BLOCK;
    const int64_t p1 = p0 + GS_BLOCK < O ? p0 + GS_BLOCK : O;
    for (int64_t p = p0; p < p1; ++p) {
      GsTaps taps[3];
      bool finite = true;
      for (int64_t i = 0; i < r; ++i)  // grid component r-1-i runs along spatial dim i
        finite = gsDimTaps((double)G[(n * O + p) * r + (r - 1 - i)], D[i], mode, pad, align, &taps[i]) && finite;
      if (!finite) {
        for (int64_t c = 0; c < C; ++c) Y[(n * C + c) * O + p] = __builtin_nanf("");
        continue;
      }
      const int64_t n0 = taps[0].n, n1 = taps[1].n, n2 = r == 3 ? taps[2].n : 1;
      for (int64_t c = 0; c < C; ++c) {
        const float* x = X + (n * C + c) * plane;
        double acc = 0;
        for (int64_t a = 0; a < n0; ++a)
          for (int64_t b = 0; b < n1; ++b)
            for (int64_t e = 0; e < n2; ++e) {
              const int64_t i0 = taps[0].idx[a], i1 = taps[1].idx[b], i2 = r == 3 ? taps[2].idx[e] : 0;
              if (i0 < 0 || i1 < 0 || i2 < 0) continue;
              const double w = taps[0].w[a] * taps[1].w[b] * (r == 3 ? taps[2].w[e] : 1.0);
              const int64_t off = r == 3 ? (i0 * D[1] + i1) * D[2] + i2 : i0 * D[1] + i1;
              acc += w * (double)x[off];
            }
        Y[(n * C + c) * O + p] = (float)acc;
      }
    }
  }
}
