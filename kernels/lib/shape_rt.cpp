// Run-sized shape ops (kernels/lib/run_sized.h): their shape-giving inputs are fed at run time.
// range_rt: Range. bufs = {start, limit, delta, Y, slot}; P = {dtype}. Count ceil((limit -
//   start) / delta) (in double for float types, exactly for integers); a zero delta or a NaN
//   count is invalid.
// fill_rt: ConstantOfShape. bufs = {shape, Y, slot}; P = {esize, valueBits, shape length}.
// reshape_rt: Reshape, Unsqueeze and Squeeze: Y = X's bytes with the dims the run-time input
//   gives. bufs = {X, shape or axes, Y, slot}; P = {esize, kind (0 reshape, 1 unsqueeze,
//   2 squeeze), input length L, allowzero, X rank, X dims[rank]}. Reshape: 0 copies X's dim
//   (unless allowzero), one -1 is inferred; Unsqueeze / Squeeze: axes in [-rank, rank), no repeats
//   (Squeeze: each a dim of 1).
#include "kernels/lib/run_sized.h"

ATC_KERNEL(range_rt)
ATC_KERNEL(fill_rt)
ATC_KERNEL(reshape_rt)
ATC_KERNEL(shape_rt)

// shape_rt: Shape (dims [begin, end)) or Size (mode 1: their product) of a run-sized value.
// bufs = {X, Y, X's dims slot}; P = {begin, end, mode}. Y is static.
int64_t atck_shape_rt_ntasks(const int64_t*) { return 1; }

void atck_shape_rt_task(const int64_t* P, void** bufs, int64_t, int64_t) {
  const int64_t* dims = (const int64_t*)bufs[2];
  int64_t* y = (int64_t*)bufs[1];
  if (P[2] == 1) {
    int64_t n = 1;
    for (int64_t d = P[0]; d < P[1]; ++d) n *= dims[d];
    y[0] = n;
    return;
  }
  for (int64_t d = P[0]; d < P[1]; ++d) y[d - P[0]] = dims[d];
}

static inline ATCK_INLINE int atck_rr_float(int64_t dt) {
  return dt == ATCK_F32 || dt == ATCK_F64 || dt == ATCK_F16 || dt == ATCK_BF16;
}

static inline ATCK_INLINE double atck_rr_d(const void* p, int64_t dt) {
  switch (dt) {
    case ATCK_F32: return ((const float*)p)[0];
    case ATCK_F64: return ((const double*)p)[0];
    case ATCK_F16: return atck_h2f(((const uint16_t*)p)[0]);
    case ATCK_BF16: return atck_bf2f(((const uint16_t*)p)[0]);
    default: return (double)atck_index_at(p, dt, 0);
  }
}

int64_t atck_range_rt_ntasks(const int64_t*) { return 1; }

void atck_range_rt_task(const int64_t* P, void** bufs, int64_t begin, int64_t) {
  const int64_t dt = P[0];
  if (!bufs[3]) {
    if (begin != 0) return;
    int64_t n = -1;
    if (atck_rr_float(dt)) {
      const double s = atck_rr_d(bufs[0], dt), l = atck_rr_d(bufs[1], dt), d = atck_rr_d(bufs[2], dt);
      const double c = __builtin_ceil((l - s) / d);
      if (d != 0 && c == c && c < 4e18) n = c > 0 ? (int64_t)c : 0;
    } else {
      const int64_t s = atck_index_at(bufs[0], dt, 0), l = atck_index_at(bufs[1], dt, 0);
      const int64_t d = atck_index_at(bufs[2], dt, 0);
      if (d != 0) {
        const __int128 num = (__int128)l - s;
        __int128 q = num / d;
        if (q * d != num && ((num > 0) == (d > 0))) ++q;  // ceil
        if (q <= (__int128)4000000000000000000LL) n = q < 0 ? 0 : (int64_t)q;
      }
    }
    if (n >= 0) atck_rs_put(bufs[4], &n, 1);
    else atck_rs_invalid(bufs[4], 1);
    return;
  }
  const int64_t n = ((const int64_t*)bufs[4])[0];
  void* out = bufs[3];
  if (atck_rr_float(dt)) {
    const double s = atck_rr_d(bufs[0], dt), d = atck_rr_d(bufs[2], dt);
    for (int64_t i = 0; i < n; ++i) atck_rs_store(out, dt, i, s + (double)i * d);
  } else {
    const int64_t s = atck_index_at(bufs[0], dt, 0), d = atck_index_at(bufs[2], dt, 0);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t v = (int64_t)((uint64_t)s + (uint64_t)i * (uint64_t)d);  // wraps as the narrow type would
      switch (dt) {
        case ATCK_I64: ((int64_t*)out)[i] = v; break;
        case ATCK_I32: ((int32_t*)out)[i] = (int32_t)v; break;
        case ATCK_I16: ((int16_t*)out)[i] = (int16_t)v; break;
        case ATCK_I8: ((int8_t*)out)[i] = (int8_t)v; break;
        case ATCK_U8: ((uint8_t*)out)[i] = (uint8_t)v; break;
        default: break;
      }
    }
  }
}

int64_t atck_fill_rt_ntasks(const int64_t*) { return 1; }

void atck_fill_rt_task(const int64_t* P, void** bufs, int64_t begin, int64_t) {
  const int64_t L = P[2];
  if (!bufs[1]) {
    if (begin != 0) return;
    int64_t od[ATCK_RS_MAX_RANK];
    for (int64_t d = 0; d < L; ++d) {
      od[d] = ((const int64_t*)bufs[0])[d];
      if (od[d] < 0) {
        atck_rs_invalid(bufs[2], L);
        return;
      }
    }
    atck_rs_put(bufs[2], od, L);
    return;
  }
  int64_t n = 1;
  for (int64_t d = 0; d < L; ++d) n *= ((const int64_t*)bufs[2])[d];
  atck_fill_elems((char*)bufs[1], n, P[0], P[1]);
}

int64_t atck_reshape_rt_ntasks(const int64_t*) { return 1; }

// The output dims; 0 when the run-time values are invalid for X.
static inline ATCK_INLINE int atck_rsh_dims(const int64_t* P, void** bufs, int64_t* od, int64_t* orank) {
  const int64_t kind = P[1], L = P[2], allowZero = P[3], r = P[4];
  const int64_t* xd = P + 5;
  const int64_t* v = (const int64_t*)bufs[1];
  int64_t total = 1;
  for (int64_t d = 0; d < r; ++d) total *= xd[d];
  if (kind == 0) {  // Reshape
    int64_t known = 1, at = -1;
    *orank = L;
    for (int64_t i = 0; i < L; ++i) {
      int64_t d = v[i];
      if (d == 0 && !allowZero) {
        if (i >= r) return 0;
        d = xd[i];
      } else if (d == -1) {
        if (at >= 0) return 0;
        at = i;
        continue;
      } else if (d < -1) {
        return 0;
      }
      od[i] = d;
      if (d && known > INT64_MAX / d) return 0;
      known *= d;
    }
    if (at >= 0) {
      if (known == 0 || total % known) return 0;
      od[at] = total / known;
    } else if (known != total) {
      return 0;
    }
    return 1;
  }
  const int64_t R = kind == 1 ? r + L : r - L;  // Unsqueeze / Squeeze
  if (R < 0 || R > ATCK_RS_MAX_RANK) return 0;
  int marked[ATCK_RS_MAX_RANK + 8] = {0};
  const int64_t span = kind == 1 ? R : r;
  for (int64_t i = 0; i < L; ++i) {
    int64_t a = v[i] < 0 ? v[i] + span : v[i];
    if (a < 0 || a >= span || marked[a]) return 0;
    if (kind == 2 && xd[a] != 1) return 0;
    marked[a] = 1;
  }
  *orank = R;
  if (kind == 1) {
    for (int64_t d = 0, k = 0; d < R; ++d) od[d] = marked[d] ? 1 : xd[k++];
  } else {
    for (int64_t d = 0, k = 0; d < r; ++d)
      if (!marked[d]) od[k++] = xd[d];
  }
  return 1;
}

void atck_reshape_rt_task(const int64_t* P, void** bufs, int64_t begin, int64_t) {
  const int64_t r = P[4];
  if (!bufs[2]) {
    if (begin != 0) return;
    int64_t od[ATCK_RS_MAX_RANK], orank = 0;
    const int64_t R = P[1] == 0 ? P[2] : P[1] == 1 ? r + P[2] : r - P[2];
    if (atck_rsh_dims(P, bufs, od, &orank)) atck_rs_put(bufs[3], od, orank);
    else atck_rs_invalid(bufs[3], R);
    return;
  }
  int64_t total = P[0];
  for (int64_t d = 0; d < r; ++d) total *= P[5 + d];
  memcpy(bufs[2], bufs[0], (size_t)total);
}
