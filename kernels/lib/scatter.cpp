// Scatter family (serial: duplicate indices make items dependent). out = data, then updates
// are written (or combined: reduction 1 add, 2 mul, 3 max, 4 min; dtype f32/f64/i32/i64).
// scatter_nd: bufs = {data, indices [n, k], updates [n, slice], out}.
//   P = {sliceElems, esize, dtype, reduction, idxDt, n, k, dataBytes, dims[k], strides[k] (elems)}.
// scatter_elements: bufs = {data, indices, updates, out}; indices and updates have one shape.
//   P = {esize, dtype, reduction, idxDt, rank, axis, dataBytes, idxDims[rank], dataStrides[rank],
//        axisDim (data dim along axis)}.
#include "kernels/lib/index_elem.h"

ATC_KERNEL(scatter_nd)
ATC_KERNEL(scatter_elements)

namespace {

template <class T>
ATCK_INLINE void combineT(char* dst, const char* src, int64_t red) {
  T a, b;
  memcpy(&a, dst, sizeof(T));
  memcpy(&b, src, sizeof(T));
  T r = b;
  if (red == 1) r = a + b;
  else if (red == 2) r = a * b;
  else if (red == 3) r = a > b ? a : b;
  else if (red == 4) r = a < b ? a : b;
  memcpy(dst, &r, sizeof(T));
}

ATCK_INLINE void combine(char* dst, const char* src, int64_t es, int64_t dtype, int64_t red) {
  if (red == 0) { atck_move_one(dst, src, es); return; }
  switch (dtype) {
    case ATCK_F32: combineT<float>(dst, src, red); break;
    case ATCK_F64: combineT<double>(dst, src, red); break;
    case ATCK_I32: combineT<int32_t>(dst, src, red); break;
    case ATCK_I64: combineT<int64_t>(dst, src, red); break;
    default: atck_move_one(dst, src, es);
  }
}

ATCK_INLINE int64_t fixIndex(int64_t i, int64_t n) {
  if (i < 0) i += n;
  if (i < 0) i = 0;
  if (i >= n) i = n - 1;
  return i;
}

}  // namespace

int64_t atck_scatter_nd_ntasks(const int64_t* P) { return P[7] > 0 ? 1 : 0; }

void atck_scatter_nd_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t slice = P[0], es = P[1], dtype = P[2], red = P[3], dt = P[4], n = P[5], k = P[6];
  const int64_t* dims = P + 8;
  const int64_t* strides = P + 8 + k;
  const int64_t check = P[8 + 2 * k];  // support_out_of_bound_index: skip out-of-range updates
  const void* ind = bufs[1];
  const char* upd = (const char*)bufs[2];
  char* out = (char*)bufs[3];
  if (out != bufs[0]) memcpy(out, bufs[0], (size_t)P[7]);
  for (int64_t t = 0; t < n; ++t) {
    int64_t off = 0;
    bool ok = true;
    for (int64_t j = 0; j < k; ++j) {
      int64_t raw = atck_index_at(ind, dt, t * k + j);
      ok = ok && (!check || (raw >= -dims[j] && raw < dims[j]));
      off += fixIndex(raw, dims[j]) * strides[j];
    }
    if (!ok) continue;
    if (red == 0) {
      memcpy(out + off * es, upd + t * slice * es, (size_t)(slice * es));
    } else {
      for (int64_t e = 0; e < slice; ++e)
        combine(out + (off + e) * es, upd + (t * slice + e) * es, es, dtype, red);
    }
  }
}

int64_t atck_scatter_elements_ntasks(const int64_t* P) { return P[6] > 0 ? 1 : 0; }

void atck_scatter_elements_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t es = P[0], dtype = P[1], red = P[2], dt = P[3], r = P[4], axis = P[5];
  const int64_t* dims = P + 7;
  const int64_t* dstr = P + 7 + r;
  int64_t axisDim = P[7 + 2 * r], check = P[8 + 2 * r];
  const void* ind = bufs[1];
  const char* upd = (const char*)bufs[2];
  char* out = (char*)bufs[3];
  if (out != bufs[0]) memcpy(out, bufs[0], (size_t)P[6]);
  int64_t n = 1;
  for (int64_t d = 0; d < r; ++d) n *= dims[d];
  int64_t idx[ATCK_MAX_RANK];
  for (int64_t d = 0; d < r; ++d) idx[d] = 0;
  for (int64_t lin = 0; lin < n; ++lin) {
    int64_t off = 0;
    int64_t raw = atck_index_at(ind, dt, lin);
    for (int64_t d = 0; d < r; ++d)
      off += (d == axis ? fixIndex(raw, axisDim) : idx[d]) * dstr[d];
    if (check && !(raw >= -axisDim && raw < axisDim)) {
      atck_odometer_next(idx, dims, r);
      continue;
    }
    combine(out + off * es, upd + lin * es, es, dtype, red);
    atck_odometer_next(idx, dims, r);
  }
}
