// split_rt: Split (opset 13+) whose `split` sizes come at run time. Output i takes the next
// split[i] slices of X along the axis; each output's dims (X's, with split[i] on the axis) go
// after its data (Value::shapeFromData; the bound is X's shape). A negative size or sizes not
// summing to the axis dim give -1 as every dim of every output: the run fails.
// bufs: X, split, outputs.
#include "kernels/lib/data_shape.h"

ATC_KERNEL(split_rt)

enum { SP_ESIZE, SP_RANK, SP_AXIS, SP_NOUT, SP_NIN, SP_AT, SP_HEADER };  // then X's dims[RANK]
#define ATCK_SP_MAX_RANK 16

int64_t atck_split_rt_ntasks(const int64_t*) { return 1; }

void atck_split_rt_task(const int64_t* P, void** bufs, int64_t, int64_t) {
  const int64_t rank = P[SP_RANK], axis = P[SP_AXIS], nout = P[SP_NOUT], es = P[SP_ESIZE];
  const int64_t* dims = P + SP_HEADER;
  const int64_t* split = (const int64_t*)bufs[1];
  const int64_t dim = dims[axis];
  int64_t outer = 1, inner = 1, sum = 0;
  for (int64_t d = 0; d < axis; ++d) outer *= dims[d];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= dims[d];
  int ok = 1;
  for (int64_t i = 0; i < nout && ok; ++i) {
    ok = split[i] >= 0 && split[i] <= dim - sum;  // no overflow: sum <= dim
    sum += ok ? split[i] : 0;
  }
  ok = ok && sum == dim;
  int64_t od[ATCK_SP_MAX_RANK];
  const char* x = (const char*)bufs[0];
  for (int64_t i = 0, off = 0; i < nout; ++i) {
    char* y = (char*)bufs[P[SP_NIN] + i];
    for (int64_t d = 0; d < rank; ++d) od[d] = !ok ? -1 : d == axis ? split[i] : dims[d];
    atck_put_dims(y, P[SP_AT], od, rank);
    if (!ok) continue;
    const int64_t row = split[i] * inner * es;
    for (int64_t o = 0; o < outer && row > 0; ++o)
      memcpy(y + o * row, x + ((o * dim + off) * inner) * es, (size_t)row);
    off += split[i];
  }
}
