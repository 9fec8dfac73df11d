// Kernels of ai.onnx.ml ops.
// binarizer: Y = X > threshold ? 1 : 0 (float32 / float64). bufs = {X, Y}; P = {dtype, n, threshold (double)}.
// feature_extract: ArrayFeatureExtractor: Y[o, j] = X[o, idx[j]] over X's last axis; an index
//   outside [0, last) gives 0 (the reference raises). bufs = {X, idx, Y};
//   P = {esize, outer, last, nIdx, idx dtype}.
#include "kernels/lib/index_elem.h"

ATC_KERNEL(binarizer)
ATC_KERNEL(feature_extract)

int64_t atck_binarizer_ntasks(const int64_t*) { return 1; }

void atck_binarizer_task(const int64_t* P, void** bufs, int64_t, int64_t) {
  const double th = atck_d(P[2]);
  for (int64_t i = 0; i < P[1]; ++i) {
    if (P[0] == ATCK_F64) ((double*)bufs[1])[i] = ((const double*)bufs[0])[i] > th ? 1.0 : 0.0;
    else ((float*)bufs[1])[i] = (double)((const float*)bufs[0])[i] > th ? 1.f : 0.f;
  }
}

int64_t atck_feature_extract_ntasks(const int64_t* P) { return P[1]; }

void atck_feature_extract_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t es = P[0], last = P[2], ni = P[3];
  const char* x = (const char*)bufs[0];
  char* y = (char*)bufs[2];
  for (int64_t o = begin; o < end; ++o)
    for (int64_t j = 0; j < ni; ++j) {
      const int64_t k = atck_index_at(bufs[1], P[4], j);
      char* dst = y + (o * ni + j) * es;
      if (k < 0 || k >= last) memset(dst, 0, (size_t)es);
      else atck_move_one(dst, x + (o * last + k) * es, es);
    }
}
