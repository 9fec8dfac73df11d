// nms: ONNX NonMaxSuppression. Per batch and class: the boxes scoring above score_threshold
// (when given), by descending score (equal scores in box order), each kept unless its IoU
// with a box already kept in that class exceeds iou_threshold, at most
// max_output_boxes_per_class of them. Output int64 [count, 3] rows (batch, class, box),
// batch-major; its actual dims written after the data (kernels/lib/data_shape.h).
// bufs: boxes, scores, [max_output], [iou_threshold], [score_threshold] (P[NM_NIN] slots,
// null when absent), Y, workspace (3 * N int64).
#include "kernels/lib/data_shape.h"
#include "kernels/lib/math_dtype.h"

ATC_KERNEL(nms)

enum { NM_B, NM_C, NM_N, NM_CENTER, NM_NIN, NM_AT, NM_BDT, NM_SDT };

int64_t atck_nms_ntasks(const int64_t*) { return 1; }

// Corners (y1, x1, y2, x2) ordered min/max of box i of batch b.
static inline ATCK_INLINE void atck_nms_box(const int64_t* P, const void* boxes, int64_t b, int64_t i, float* r) {
  float v[4];
  for (int k = 0; k < 4; ++k) v[k] = atck_ld<float>(boxes, P[NM_BDT], (b * P[NM_N] + i) * 4 + k);
  if (P[NM_CENTER]) {  // x_center, y_center, width, height
    r[0] = v[1] - v[3] / 2, r[1] = v[0] - v[2] / 2, r[2] = v[1] + v[3] / 2, r[3] = v[0] + v[2] / 2;
  } else {
    r[0] = v[0] < v[2] ? v[0] : v[2], r[2] = v[0] < v[2] ? v[2] : v[0];
    r[1] = v[1] < v[3] ? v[1] : v[3], r[3] = v[1] < v[3] ? v[3] : v[1];
  }
}

static inline ATCK_INLINE bool atck_nms_suppress(const float* a, const float* b, float thr) {
  const float ya = a[0] > b[0] ? a[0] : b[0], xa = a[1] > b[1] ? a[1] : b[1];
  const float yb = a[2] < b[2] ? a[2] : b[2], xb = a[3] < b[3] ? a[3] : b[3];
  const float areaA = (a[2] - a[0]) * (a[3] - a[1]), areaB = (b[2] - b[0]) * (b[3] - b[1]);
  if (areaA <= 0.f || areaB <= 0.f) return false;
  const float inter = (yb > ya ? yb - ya : 0.f) * (xb > xa ? xb - xa : 0.f);
  const float uni = areaA + areaB - inter;
  if (uni <= 0.f) return false;
  return inter / uni > thr;
}

void atck_nms_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  if (begin > 0 || end < 1) return;
  const int64_t B = P[NM_B], C = P[NM_C], N = P[NM_N], nin = P[NM_NIN];
  const void* boxes = bufs[0];
  const void* scores = bufs[1];
  int64_t maxOut = nin > 2 && bufs[2] ? ((const int64_t*)bufs[2])[0] : 0;
  if (maxOut > N) maxOut = N;
  const float iouThr = nin > 3 && bufs[3] ? ((const float*)bufs[3])[0] : 0.f;
  const bool hasScoreThr = nin > 4 && bufs[4];
  const float scoreThr = hasScoreThr ? ((const float*)bufs[4])[0] : 0.f;
  int64_t* y = (int64_t*)bufs[nin];
  int64_t* idx = (int64_t*)bufs[nin + 1];
  int64_t *tmp = idx + N, *kept = idx + 2 * N;
  int64_t count = 0;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t c = 0; c < C; ++c) {
      const int64_t s0 = (b * C + c) * N;
      int64_t m = 0;
      for (int64_t i = 0; i < N && maxOut > 0; ++i)
        if (!hasScoreThr || atck_ld<float>(scores, P[NM_SDT], s0 + i) > scoreThr) idx[m++] = i;
      atck_merge_sort(idx, tmp, m, [&](int64_t p, int64_t q) {
        return atck_ld<float>(scores, P[NM_SDT], s0 + p) > atck_ld<float>(scores, P[NM_SDT], s0 + q);
      });
      int64_t nk = 0;
      for (int64_t j = 0; j < m && nk < maxOut; ++j) {
        float cand[4], other[4];
        atck_nms_box(P, boxes, b, idx[j], cand);
        bool drop = false;
        for (int64_t t = 0; t < nk && !drop; ++t) {
          atck_nms_box(P, boxes, b, kept[t], other);
          drop = atck_nms_suppress(cand, other, iouThr);
        }
        if (drop) continue;
        kept[nk++] = idx[j];
        y[count * 3] = b, y[count * 3 + 1] = c, y[count * 3 + 2] = idx[j];
        ++count;
      }
    }
  const int64_t dims[2] = {count, 3};
  atck_put_dims(y, P[NM_AT], dims, 2);
}
