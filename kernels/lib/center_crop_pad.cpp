// center_crop_pad: CenterCropPad (opset 18). Along each of `axes` the output has the size the
// shape input gives: a smaller size keeps the centre (start (dim - size) / 2, rounded down), a
// larger one centres X in zeros (before: (size - dim) / 2). bufs = {X, shape, Y} (+ Y's dims slot
// when the shape is fed at run time: Y run-sized, kernels/lib/run_sized.h).
// P = {esize, rank, nAxes, shape dtype, run-sized, axes[nAxes], X dims[rank]}. One task.
#include "kernels/lib/run_sized.h"

ATC_KERNEL(center_crop_pad)

int64_t atck_center_crop_pad_ntasks(const int64_t*) { return 1; }

void atck_center_crop_pad_task(const int64_t* P, void** bufs, int64_t begin, int64_t) {
  const int64_t es = P[0], r = P[1], na = P[2], dt = P[3];
  const int64_t* axes = P + 5;
  const int64_t* xd = axes + na;
  int64_t od[ATCK_RS_MAX_RANK], off[ATCK_RS_MAX_RANK];
  int valid = 1;
  for (int64_t d = 0; d < r; ++d) od[d] = xd[d], off[d] = 0;
  for (int64_t i = 0; i < na; ++i) {
    const int64_t a = axes[i], sh = atck_rs_int(bufs[1], dt, i), dim = xd[a];
    if (sh < 0) valid = 0;
    od[a] = sh;
    off[a] = sh < dim ? (dim - sh) / 2 : -((sh - dim) / 2);  // source index = output index + off
  }
  if (P[4] && !bufs[2]) {
    if (begin != 0) return;
    if (valid) atck_rs_put(bufs[3], od, r);
    else atck_rs_invalid(bufs[3], r);
    return;
  }
  int64_t n = 1, idx[ATCK_RS_MAX_RANK] = {0};
  for (int64_t d = 0; d < r; ++d) n *= od[d];
  const char* x = (const char*)bufs[0];
  char* y = (char*)bufs[2];
  for (int64_t i = 0; i < n; ++i) {
    int64_t src = 0, inside = 1;
    for (int64_t d = 0; d < r; ++d) {
      const int64_t s = idx[d] + off[d];
      if (s < 0 || s >= xd[d]) inside = 0;
      src = src * xd[d] + s;
    }
    if (inside) atck_move_one(y + i * es, x + src * es, es);
    else memset(y + i * es, 0, (size_t)es);
    for (int64_t d = r - 1; d >= 0; --d) {
      if (++idx[d] < od[d]) break;
      idx[d] = 0;
    }
  }
}
