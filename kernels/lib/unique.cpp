// unique: ONNX Unique. The distinct slices of X along an axis (or the distinct elements of
// flattened X): sorted ascending (lexicographic over a slice's elements in row-major order) or
// in order of first occurrence; then the index of each one's first occurrence, the position
// of every input slice in the output (inverse_indices) and the counts. Y, indices and counts
// are data-shaped (their dims written after the data, kernels/lib/data_shape.h);
// inverse_indices has a static shape. One task.
// bufs: X, Y, [indices], [inverse_indices], [counts] (P[UQ_NOUT] outputs), workspace (5 * N int64).
#include "kernels/lib/data_shape.h"
#include "kernels/lib/math_dtype.h"

ATC_KERNEL(unique)

enum { UQ_DT, UQ_ESIZE, UQ_OUTER, UQ_N, UQ_INNER, UQ_SORTED, UQ_NOUT, UQ_AXIS, UQ_AT_Y, UQ_AT_I, UQ_AT_C, UQ_RANK,
       UQ_DIMS };

int64_t atck_unique_ntasks(const int64_t*) { return 1; }

// -1, 0, 1: slice a against slice b.
template <class C>
static inline ATCK_INLINE int atck_unique_cmp(const int64_t* P, const void* x, int64_t a, int64_t b) {
  const int64_t n = P[UQ_N], inner = P[UQ_INNER];
  for (int64_t o = 0; o < P[UQ_OUTER]; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      const C va = atck_ld<C>(x, P[UQ_DT], (o * n + a) * inner + j), vb = atck_ld<C>(x, P[UQ_DT], (o * n + b) * inner + j);
      if (va < vb) return -1;
      if (vb < va) return 1;
    }
  return 0;
}

// Groups of equal slices: first[g] (first occurrence), count[g], and group[i] of every slice,
// groups in sorted order or in order of first occurrence. Returns the number of groups.
template <class C>
static inline ATCK_INLINE int64_t atck_unique_groups(const int64_t* P, const void* x, int64_t* ws) {
  const int64_t n = P[UQ_N];
  int64_t *idx = ws, *tmp = ws + n, *first = ws + 2 * n, *count = ws + 3 * n, *group = ws + 4 * n;
  for (int64_t i = 0; i < n; ++i) idx[i] = i;
  atck_merge_sort(idx, tmp, n, [&](int64_t a, int64_t b) { return atck_unique_cmp<C>(P, x, a, b) < 0; });
  int64_t u = 0;
  for (int64_t s = 0; s < n; ++s) {
    if (s == 0 || atck_unique_cmp<C>(P, x, idx[s - 1], idx[s]) != 0) first[u] = idx[s], count[u++] = 0;
    count[u - 1]++;
    group[idx[s]] = u - 1;  // stable sort: the group's first slice is its first occurrence
  }
  if (!P[UQ_SORTED]) {  // renumber the groups by first occurrence
    for (int64_t g = 0; g < u; ++g) idx[g] = g;
    atck_merge_sort(idx, tmp, u, [&](int64_t a, int64_t b) { return first[a] < first[b]; });
    for (int64_t g = 0; g < u; ++g) tmp[idx[g]] = g;  // old group -> new position
    for (int64_t i = 0; i < n; ++i) group[i] = tmp[group[i]];
    for (int64_t g = 0; g < u; ++g) tmp[g] = first[idx[g]];
    for (int64_t g = 0; g < u; ++g) first[g] = tmp[g];
    for (int64_t g = 0; g < u; ++g) tmp[g] = count[idx[g]];
    for (int64_t g = 0; g < u; ++g) count[g] = tmp[g];
  }
  return u;
}

void atck_unique_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  if (begin > 0 || end < 1) return;
  const int64_t n = P[UQ_N], inner = P[UQ_INNER], es = P[UQ_ESIZE], nout = P[UQ_NOUT];
  const void* x = bufs[0];
  int64_t* ws = (int64_t*)bufs[1 + nout];
  int64_t u;
  switch (P[UQ_DT]) {
    case ATCK_U64: u = atck_unique_groups<uint64_t>(P, x, ws); break;
    case ATCK_F32:
    case ATCK_F16:
    case ATCK_BF16:
    case ATCK_F64: u = atck_unique_groups<double>(P, x, ws); break;
    default: u = atck_unique_groups<int64_t>(P, x, ws); break;
  }
  const int64_t *first = ws + 2 * n, *count = ws + 3 * n, *group = ws + 4 * n;
  char* y = (char*)bufs[1];
  const int64_t row = inner * es;
  for (int64_t o = 0; o < P[UQ_OUTER]; ++o)
    for (int64_t g = 0; g < u; ++g) {
      const char* src = (const char*)x + (o * n + first[g]) * row;
      char* dst = y + (o * u + g) * row;
      for (int64_t b = 0; b < row; ++b) dst[b] = src[b];
    }
  int64_t dims[8];
  for (int64_t d = 0; d < P[UQ_RANK]; ++d) dims[d] = d == P[UQ_AXIS] ? u : P[UQ_DIMS + d];
  atck_put_dims(y, P[UQ_AT_Y], dims, P[UQ_RANK]);
  if (nout > 1) {
    int64_t* ind = (int64_t*)bufs[2];
    for (int64_t g = 0; g < u; ++g) ind[g] = first[g];
    atck_put_dims(ind, P[UQ_AT_I], &u, 1);
  }
  if (nout > 2)
    for (int64_t i = 0; i < n; ++i) ((int64_t*)bufs[3])[i] = group[i];
  if (nout > 3) {
    int64_t* cnt = (int64_t*)bufs[4];
    for (int64_t g = 0; g < u; ++g) cnt[g] = count[g];
    atck_put_dims(cnt, P[UQ_AT_C], &u, 1);
  }
}
