// cast_lp: Cast / CastLike where either side is a cast-only format (float8, float4, int4,
// uint4, int2, uint2; kernels/lib/cast_lp.h). P = {n, from dtype, to dtype, saturate,
// round_mode (E8M0: 0 up, 1 down, 2 nearest), output buffer index}; bufs: X, [like], Y.
// A float8 / float4 source decodes to float, an int4 / int2 one to an integer; a float source
// reaches a float8 / float4 / E8M0 target through float32 (a float64 input is rounded to
// float32 first), an int4 / int2 target through rounding to nearest even, then keeping the
// integer's low bits (cast_lp.h).
#include "kernels/lib/cast_lp.h"
#include "kernels/lib/math_dtype.h"

ATC_KERNEL(cast_lp)

static const int64_t kCastLpChunk = 1 << 14;

int64_t atck_cast_lp_ntasks(const int64_t* P) { return (P[0] + kCastLpChunk - 1) / kCastLpChunk; }

static inline ATCK_INLINE int atck_lp_is_int(int64_t dt) {
  return dt == ATCK_I4 || dt == ATCK_U4 || dt == ATCK_I2 || dt == ATCK_U2;
}
static inline ATCK_INLINE int atck_lp_is_float(int64_t dt) {
  return dt >= ATCK_F8E4M3FN && dt <= ATCK_F4E2M1 && dt != ATCK_F8E8M0;
}
// Source or target of integer kind (int4 / int2 included, bool and the wider integers).
static inline ATCK_INLINE int atck_lp_intlike(int64_t dt) {
  return atck_lp_is_int(dt) || (dt >= ATCK_I64 && dt <= ATCK_BOOL);
}

void atck_cast_lp_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t n = P[0], from = P[1], to = P[2];
  const int sat = (int)P[3], rm = (int)P[4];
  const void* X = bufs[0];
  void* Y = bufs[P[5]];
  const int64_t lo = begin * kCastLpChunk, hi = end * kCastLpChunk < n ? end * kCastLpChunk : n;
  const uint8_t* xb = (const uint8_t*)X;
  uint8_t* yb = (uint8_t*)Y;
  for (int64_t i = lo; i < hi; ++i) {
    // Integer to integer: exact int64 arithmetic (int4 / int2 targets keep the low bits).
    if (atck_lp_intlike(from) && atck_lp_intlike(to)) {
      int64_t v = from == ATCK_I4 || from == ATCK_I2 ? (int64_t)(int8_t)xb[i]
                  : from == ATCK_U4 || from == ATCK_U2 ? (int64_t)xb[i]
                                                       : atck_ld<int64_t>(X, from, i);
      if (from == ATCK_U64) v = (int64_t)((const uint64_t*)X)[i];
      if (atck_lp_is_int(to)) yb[i] = atck_lp_encode_int_i(to, v);
      else atck_st<int64_t>(Y, to, i, v);
      continue;
    }
    double v;
    if (atck_lp_is_float(from) || from == ATCK_F8E8M0) v = (double)atck_lp_decode(from, xb[i]);
    else if (from == ATCK_I4 || from == ATCK_I2) v = (double)(int8_t)xb[i];
    else if (from == ATCK_U4 || from == ATCK_U2) v = (double)xb[i];
    else v = atck_ld<double>(X, from, i);
    if (to == ATCK_F8E8M0) yb[i] = atck_lp_encode_e8m0((float)v, sat, rm);
    else if (atck_lp_is_float(to)) yb[i] = atck_lp_encode_mf(to, (float)v, sat);
    else if (atck_lp_is_int(to)) yb[i] = atck_lp_encode_int_f(to, v);
    else atck_st<double>(Y, to, i, v);
  }
}
