// max_unpool: MaxUnpool (opsets 9, 11, 22). Y is zeros of the output shape with X's elements
// placed at their indices I (flat positions in the inferred shape [N, C, (in - 1) stride -
// pads + kernel...], as MaxPool's Indices give them) and the inferred block at Y's origin
// (output_shape may be larger: the rest stays 0). output_shape fed at run time makes Y
// run-sized (kernels/lib/run_sized.h; a dim below the inferred one is invalid); an index
// outside the inferred shape is skipped. bufs = {X, I, [output_shape], Y (+ Y's dims slot)};
// P = {esize, rank, index dtype, X elements, nin, run-sized, inferred dims[rank], static Y dims[rank]}.
#include "kernels/lib/run_sized.h"

ATC_KERNEL(max_unpool)

int64_t atck_max_unpool_ntasks(const int64_t*) { return 1; }

void atck_max_unpool_task(const int64_t* P, void** bufs, int64_t begin, int64_t) {
  const int64_t es = P[0], r = P[1], idt = P[2], nx = P[3], nin = P[4];
  const int64_t* inf = P + 6;
  int64_t od[ATCK_RS_MAX_RANK];
  int valid = 1;
  for (int64_t d = 0; d < r; ++d) {
    od[d] = P[5] ? ((const int64_t*)bufs[2])[d] : P[6 + r + d];
    if (od[d] < inf[d]) valid = 0;
  }
  if (P[5] && !bufs[nin]) {
    if (begin != 0) return;
    if (valid) atck_rs_put(bufs[nin + 1], od, r);
    else atck_rs_invalid(bufs[nin + 1], r);
    return;
  }
  if (!valid) return;
  int64_t total = 1, itotal = 1;
  for (int64_t d = 0; d < r; ++d) total *= od[d], itotal *= inf[d];
  char* y = (char*)bufs[nin];
  memset(y, 0, (size_t)(total * es));
  const char* x = (const char*)bufs[0];
  for (int64_t j = 0; j < nx; ++j) {
    int64_t k = atck_index_at(bufs[1], idt, j);
    if (k < 0 || k >= itotal) continue;
    int64_t pos = 0, mul = 1;
    for (int64_t d = r - 1; d >= 0; --d) {
      pos += (k % inf[d]) * mul;
      k /= inf[d];
      mul *= od[d];
    }
    atck_move_one(y + pos * es, x + j * es, es);
  }
}
