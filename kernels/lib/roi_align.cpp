// Kernel "roi_align": RoiAlign (ops/datamove/roi_align.cpp), float32, following ONNX's
// reference (onnx/reference/ops/op_roi_align.py, ONNX Runtime's CPU kernel): each output bin
// of a roi averages (avg) or takes the largest weighted tap of (max) a grid of bilinear
// samples; the grid has sampling_ratio points per bin and dim, or ceil(roi size / bins).
// Hostile values: the grid is at most ROI_MAX_GRID points per dim, a sample outside
// [-1, size] (NaN included) reads 0, a batch index outside [0, N) is clamped (kernels cannot
// raise errors).
// Params (never renumber): [0] N, [1] C, [2] H, [3] W, [4] R (rois), [5] oh, [6] ow,
// [7] sampling_ratio, [8] spatial_scale (double bits), [9] half_pixel, [10] mode (0 avg, 1 max).
// bufs: X [N, C, H, W], rois [R, 4], batch_indices [R] (int64), Y [R, C, oh, ow].
// One task per (roi, channel).
#include "kernels/lib/kernel_abi.h"
#include "kernels/lib/math_ops.h"

ATC_KERNEL(roi_align)

#define ROI_MAX_GRID 512

namespace {

// Samples per bin along one dim.
ATCK_INLINE int64_t roiGrid(int64_t ratio, double size, int64_t bins) {
  if (ratio > 0) return ratio;
  double g = ceil(size / (double)bins);
  if (!(g >= 1.0)) return 0;  // empty, negative or NaN
  return g > ROI_MAX_GRID ? ROI_MAX_GRID : (int64_t)g;
}

struct RoiTap {
  int64_t lo, hi;  // the two rows (or columns) the sample reads
  double l, h;     // their weights
  bool in;         // inside [-1, size]
};

ATCK_INLINE RoiTap roiTap(double y, int64_t size) {
  RoiTap t = {0, 0, 0, 0, false};
  if (!(y >= -1.0 && y <= (double)size)) return t;
  if (y < 0) y = 0;
  int64_t lo = (int64_t)y, hi;
  if (lo >= size - 1) {
    hi = lo = size - 1;
    y = (double)lo;
  } else {
    hi = lo + 1;
  }
  t.lo = lo, t.hi = hi, t.l = y - (double)lo, t.h = 1.0 - t.l, t.in = true;
  return t;
}

}  // namespace

int64_t atck_roi_align_ntasks(const int64_t* P) { return P[4] * P[1]; }

void atck_roi_align_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t N = P[0], C = P[1], H = P[2], W = P[3], oh = P[5], ow = P[6], ratio = P[7];
  const double scale = atck_d(P[8]), offset = P[9] ? 0.5 : 0.0;
  const bool halfPixel = P[9] != 0, isMax = P[10] != 0;
  const float* X = (const float*)bufs[0];
  const float* rois = (const float*)bufs[1];
  const int64_t* batch = (const int64_t*)bufs[2];
  float* Y = (float*)bufs[3];
  for (int64_t t = begin; t < end; ++t) {
    const int64_t r = t / C, c = t % C;
    int64_t b = batch[r];
    b = b < 0 ? 0 : b >= N ? N - 1 : b;
    const float* img = X + (b * C + c) * H * W;
    const double x0 = rois[r * 4 + 0] * scale - offset, y0 = rois[r * 4 + 1] * scale - offset;
    double rw = rois[r * 4 + 2] * scale - offset - x0, rh = rois[r * 4 + 3] * scale - offset - y0;
    if (!halfPixel) {  // malformed rois become 1x1
      rw = rw > 1.0 ? rw : 1.0;
      rh = rh > 1.0 ? rh : 1.0;
    }
    const double binH = rh / (double)oh, binW = rw / (double)ow;
    const int64_t gh = roiGrid(ratio, rh, oh), gw = roiGrid(ratio, rw, ow);
    const double count = gh * gw > 1 ? (double)(gh * gw) : 1.0;
    float* out = Y + t * oh * ow;
    for (int64_t ph = 0; ph < oh; ++ph)
      for (int64_t pw = 0; pw < ow; ++pw) {
        double acc = 0.0;
        bool first = true;
        for (int64_t iy = 0; iy < gh; ++iy) {
          const RoiTap ty = roiTap(y0 + ph * binH + (iy + 0.5) * binH / (double)gh, H);
          for (int64_t ix = 0; ix < gw; ++ix) {
            const RoiTap tx = roiTap(x0 + pw * binW + (ix + 0.5) * binW / (double)gw, W);
            double v1 = 0, v2 = 0, v3 = 0, v4 = 0;
            if (ty.in && tx.in) {
              v1 = ty.h * tx.h * img[ty.lo * W + tx.lo];
              v2 = ty.h * tx.l * img[ty.lo * W + tx.hi];
              v3 = ty.l * tx.h * img[ty.hi * W + tx.lo];
              v4 = ty.l * tx.l * img[ty.hi * W + tx.hi];
            }
            if (!isMax) {
              acc += v1 + v2 + v3 + v4;
            } else {
              double m = v1 > v2 ? v1 : v2;
              m = m > v3 ? m : v3;
              m = m > v4 ? m : v4;
              acc = first || m > acc ? m : acc;
              first = false;
            }
          }
        }
        out[ph * ow + pw] = (float)(isMax ? acc : acc / count);
      }
  }
}
