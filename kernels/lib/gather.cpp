// Gather family. Index tensors are int64 or int32 (idxDt = 5 / 6); negative indices count
// from the end; out-of-range indices are clamped (kernels cannot raise errors).
//
// gather: bufs = {data, indices, out}; data viewed as [pre, axisDim, post] (post in bytes),
//   out = [pre, nidx, post]. P = {postBytes, pre, axisDim, nidx, idxDt}. Items: pre * nidx.
// gather_elements: bufs = {data, indices, out}; out has the indices' shape.
//   P = {esize, idxDt, rank, axis, idxDims[rank], dataStrides[rank], axisDim}. Items: rows.
// gather_nd: bufs = {data, indices, out}. data viewed as [batch, ...]; indices [batch, m, k].
//   P = {sliceBytes, idxDt, batch, m, k, dataBatchStride (slices), dims[k], strides[k] (slices)}.
//   Items: batch * m.
#include "kernels/lib/index_elem.h"

ATC_KERNEL(gather)
ATC_KERNEL(gather_elements)
ATC_KERNEL(gather_nd)

// support_out_of_bound_index (last param = 1): an index outside [-n, n) reads zeros.
static inline int atck_index_ok(int64_t i, int64_t n) { return i >= -n && i < n; }

static inline int64_t atck_fix_index(int64_t i, int64_t n) {
  if (i < 0) i += n;
  if (i < 0) i = 0;
  if (i >= n) i = n - 1;
  return i;
}

int64_t atck_gather_ntasks(const int64_t* P) { return P[0] == 0 ? 0 : P[1] * P[3]; }

void atck_gather_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t post = P[0], axisDim = P[2], nidx = P[3], dt = P[4], check = P[5];
  const char* data = (const char*)bufs[0];
  const void* ind = bufs[1];
  char* out = (char*)bufs[2];
  for (int64_t t = begin; t < end; ++t) {
    int64_t p = t / nidx, j = t % nidx;
    int64_t raw = atck_index_at(ind, dt, j);
    if (check && !atck_index_ok(raw, axisDim)) {
      memset(out + t * post, 0, (size_t)post);
      continue;
    }
    int64_t i = atck_fix_index(raw, axisDim);
    memcpy(out + t * post, data + (p * axisDim + i) * post, (size_t)post);
  }
}

int64_t atck_gather_elements_ntasks(const int64_t* P) {
  int64_t r = P[2];
  int64_t n = 1;
  for (int64_t d = 0; d + 1 < r; ++d) n *= P[4 + d];
  if (r == 0 || P[4 + r - 1] == 0) return 0;
  return n;
}

void atck_gather_elements_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t es = P[0], dt = P[1], r = P[2], axis = P[3];
  const int64_t* dims = P + 4;
  const int64_t* dstr = P + 4 + r;
  int64_t axisDim = P[4 + 2 * r], check = P[5 + 2 * r];
  const char* data = (const char*)bufs[0];
  const void* ind = bufs[1];
  char* out = (char*)bufs[2];
  int64_t last = r - 1, len = dims[last];
  int64_t idx[ATCK_MAX_RANK];
  atck_unravel(begin, dims, last, idx);
  for (int64_t row = begin; row < end; ++row) {
    int64_t base = 0;
    for (int64_t d = 0; d < last; ++d)
      if (d != axis) base += idx[d] * dstr[d];
    for (int64_t x = 0; x < len; ++x) {
      int64_t lin = row * len + x;
      int64_t raw = atck_index_at(ind, dt, lin);
      if (check && !atck_index_ok(raw, axisDim)) {
        memset(out + lin * es, 0, (size_t)es);
        continue;
      }
      int64_t i = atck_fix_index(raw, axisDim);
      int64_t off = base + i * dstr[axis];
      if (axis != last) off += x * dstr[last];
      atck_move_one(out + lin * es, data + off * es, es);
    }
    atck_odometer_next(idx, dims, last);
  }
}

int64_t atck_gather_nd_ntasks(const int64_t* P) { return P[0] == 0 ? 0 : P[2] * P[3]; }

void atck_gather_nd_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t sb = P[0], dt = P[1], m = P[3], k = P[4], bstride = P[5];
  const int64_t* dims = P + 6;
  const int64_t* strides = P + 6 + k;
  const int64_t check = P[6 + 2 * k];
  const char* data = (const char*)bufs[0];
  const void* ind = bufs[1];
  char* out = (char*)bufs[2];
  for (int64_t t = begin; t < end; ++t) {
    int64_t b = t / m;
    int64_t off = b * bstride;
    int ok = 1;
    for (int64_t j = 0; j < k; ++j) {
      int64_t raw = atck_index_at(ind, dt, t * k + j);
      ok = ok && (!check || atck_index_ok(raw, dims[j]));
      off += atck_fix_index(raw, dims[j]) * strides[j];
    }
    if (!ok) {
      memset(out + t * sb, 0, (size_t)sb);
      continue;
    }
    memcpy(out + t * sb, data + off * sb, (size_t)sb);
  }
}
