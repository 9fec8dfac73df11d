// affine_grid: AffineGrid (opset 20). For each batch n, Y[n, (d,) h, w] = theta[n] @ [x, y, (z,)
// 1], x, y, z the normalised coordinates of w, h, d in [-1, 1] (align_corners: -1 + 2 i / (n - 1);
// else -1 + (2 i + 1) / n), computed in double as the ONNX reference. The spatial sizes come
// from the size input ([N, C, H, W] or [N, C, D, H, W]), a constant or fed at run time (Y
// run-sized, kernels/lib/run_sized.h; a size below 1 is invalid).
// bufs = {theta, size, Y (+ Y's dims slot)}; P = {dtype, N, nd (2 or 3), align_corners, run-sized}.
#include "kernels/lib/run_sized.h"

ATC_KERNEL(affine_grid)

int64_t atck_affine_grid_ntasks(const int64_t*) { return 1; }

static inline ATCK_INLINE double atck_ag_coord(int64_t i, int64_t n, int64_t align) {
  if (align) return n > 1 ? -1.0 + 2.0 * (double)i / (double)(n - 1) : -1.0;
  const double step = 2.0 / (double)n;
  return -1.0 + step / 2 + (double)i * step;
}

void atck_affine_grid_task(const int64_t* P, void** bufs, int64_t begin, int64_t) {
  const int64_t dt = P[0], N = P[1], nd = P[2], align = P[3];
  const int64_t* size = (const int64_t*)bufs[1];
  int64_t sp[3] = {1, 1, 1};  // D, H, W
  int valid = 1;
  for (int64_t d = 0; d < nd; ++d) {
    sp[3 - nd + d] = size[2 + d];
    if (size[2 + d] < 1) valid = 0;
  }
  if (P[4] && !bufs[2]) {
    if (begin != 0) return;
    int64_t od[5] = {N};
    for (int64_t d = 0; d < nd; ++d) od[1 + d] = sp[3 - nd + d];
    od[1 + nd] = nd;
    if (valid) atck_rs_put(bufs[3], od, nd + 2);
    else atck_rs_invalid(bufs[3], nd + 2);
    return;
  }
  if (!valid) return;
  const int64_t k = nd + 1;  // theta is [N, nd, nd + 1]
  int64_t o = 0;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t zd = 0; zd < sp[0]; ++zd)
      for (int64_t h = 0; h < sp[1]; ++h)
        for (int64_t w = 0; w < sp[2]; ++w) {
          const double base[4] = {atck_ag_coord(w, sp[2], align), atck_ag_coord(h, sp[1], align),
                                  nd == 3 ? atck_ag_coord(zd, sp[0], align) : 1.0, 1.0};
          for (int64_t r = 0; r < nd; ++r) {
            double acc = 0;
            for (int64_t c = 0; c < k; ++c) {
              const int64_t t = (n * nd + r) * k + c;
              const double th = dt == ATCK_F64 ? ((const double*)bufs[0])[t] : (double)((const float*)bufs[0])[t];
              acc += th * base[c];
            }
            atck_rs_store(bufs[2], dt, o++, acc);
          }
        }
}
