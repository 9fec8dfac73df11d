// pad: bufs = {in, out}. Modes: 0 constant, 1 reflect, 2 edge, 3 wrap. Negative pads crop.
// P = {esize, rank, mode, valueBits (the pad value's bytes), outBuf (index in bufs),
//      outDims[r], inDims[r], begin[r], valueBuf (bufs index of a pad value fed at run time, or -1)}
// (begin = pads at the start of each dim). Items: output rows (all dims but the last).
#include "kernels/lib/index_elem.h"

ATC_KERNEL(pad)

namespace {
// Maps output coordinate o to the input; returns -1 when outside (constant mode).
ATCK_INLINE int64_t mapCoord(int64_t o, int64_t begin, int64_t n, int64_t mode) {
  int64_t c = o - begin;
  if (c >= 0 && c < n) return c;
  if (mode == 0 || n == 0) return -1;
  if (mode == 2) return c < 0 ? 0 : n - 1;
  if (mode == 3) {  // wrap: as if the dim's two ends were joined (numpy's "wrap")
    c %= n;
    return c < 0 ? c + n : c;
  }
  if (n == 1) return 0;
  int64_t period = 2 * (n - 1);
  c %= period;
  if (c < 0) c += period;
  return c < n ? c : period - c;
}
}  // namespace

int64_t atck_pad_ntasks(const int64_t* P) {
  int64_t r = P[1];
  int64_t n = 1;
  for (int64_t d = 0; d < r; ++d) n *= P[5 + d];
  if (n == 0) return 0;
  return r == 0 ? 1 : n / P[5 + r - 1];
}

void atck_pad_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t es = P[0], r = P[1], mode = P[2], bits = P[3];
  if (P[5 + 3 * r] >= 0) {  // the value's bytes from its buffer (little endian, es <= 8)
    uint64_t v = 0;
    memcpy(&v, bufs[P[5 + 3 * r]], (size_t)es);
    bits = (int64_t)v;
  }
  const int64_t* od = P + 5;
  const int64_t* id = P + 5 + r;
  const int64_t* pb = P + 5 + 2 * r;
  const char* in = (const char*)bufs[0];
  char* out = (char*)bufs[P[4]];
  if (r == 0) { atck_move_one(out, in, es); return; }
  int64_t last = r - 1, len = od[last], ilen = id[last], b = pb[last];
  int64_t istr[ATCK_MAX_RANK];
  int64_t s = 1;
  for (int64_t d = last; d >= 0; --d) { istr[d] = s; s *= id[d]; }
  int64_t idx[ATCK_MAX_RANK];
  atck_unravel(begin, od, last, idx);
  for (int64_t row = begin; row < end; ++row) {
    char* o = out + row * len * es;
    int64_t off = 0;
    bool outside = false;
    for (int64_t d = 0; d < last; ++d) {
      int64_t c = mapCoord(idx[d], pb[d], id[d], mode);
      if (c < 0) { outside = true; break; }
      off += c * istr[d];
    }
    atck_odometer_next(idx, od, last);
    if (outside) { atck_fill_elems(o, len, es, bits); continue; }
    const char* irow = in + off * es;
    if (mode == 0) {
      // [0, lo): value, [lo, hi): input, [hi, len): value.
      int64_t lo = b < 0 ? 0 : (b > len ? len : b);
      int64_t hi = b + ilen;
      if (hi > len) hi = len;
      if (hi < lo) hi = lo;
      atck_fill_elems(o, lo, es, bits);
      if (hi > lo) memcpy(o + lo * es, irow + (lo - b) * es, (size_t)((hi - lo) * es));
      atck_fill_elems(o + hi * es, len - hi, es, bits);
    } else {
      for (int64_t x = 0; x < len; ++x)
        atck_move_one(o + x * es, irow + mapCoord(x, b, ilen, mode) * es, es);
    }
  }
}

// pad_rt: Pad whose pads are fed at run time; the output is run-sized (kernels/lib/run_sized.h).
// bufs = {X, pads, [constant_value], [axes], Y, Y's dims slot};
// P = {esize, rank, mode, valueBits, valueBuf (-1: valueBits), nin, nAxes, pads dtype,
//      axes dtype (-1: the axes follow in P; else they are read from bufs[3]),
//      [axes[nAxes] (normalised)], X dims[rank]}. A dim below 0, a reflect / edge / wrap pad of an
// empty dim, an axis fed at run time outside [-rank, rank) or repeated, is invalid. One task.
#include "kernels/lib/run_sized.h"

ATC_KERNEL(pad_rt)

int64_t atck_pad_rt_ntasks(const int64_t*) { return 1; }

void atck_pad_rt_task(const int64_t* P, void** bufs, int64_t begin, int64_t) {
  const int64_t es = P[0], r = P[1], mode = P[2], nin = P[5], na = P[6], dt = P[7], adt = P[8];
  const int64_t* axes = P + 9;
  const int64_t* id = axes + (adt >= 0 ? 0 : na);
  int64_t pb[ATCK_RS_MAX_RANK], od[ATCK_RS_MAX_RANK];
  int valid = 1, seen[ATCK_RS_MAX_RANK] = {0};
  for (int64_t d = 0; d < r; ++d) pb[d] = 0, od[d] = id[d];
  for (int64_t i = 0; i < na; ++i) {
    int64_t a = adt >= 0 ? atck_rs_int(bufs[3], adt, i) : axes[i];
    if (a < 0) a += r;
    if (a < 0 || a >= r || seen[a]) {
      valid = 0;
      break;
    }
    seen[a] = 1;
    const int64_t b = atck_rs_int(bufs[1], dt, i), e = atck_rs_int(bufs[1], dt, i + na);
    pb[a] = b;
    od[a] = id[a] + b + e;
    if (od[a] < 0 || (mode != 0 && id[a] == 0 && od[a] > 0)) valid = 0;
  }
  char* out = (char*)bufs[nin];
  if (!out) {
    if (begin != 0) return;
    if (valid) atck_rs_put(bufs[nin + 1], od, r);
    else atck_rs_invalid(bufs[nin + 1], r);
    return;
  }
  int64_t bits = P[3];
  if (P[4] >= 0) {
    uint64_t v = 0;
    memcpy(&v, bufs[P[4]], (size_t)es);
    bits = (int64_t)v;
  }
  int64_t n = 1, idx[ATCK_RS_MAX_RANK] = {0};
  for (int64_t d = 0; d < r; ++d) n *= od[d];
  const char* in = (const char*)bufs[0];
  for (int64_t i = 0; i < n; ++i) {
    int64_t src = 0, inside = 1;
    for (int64_t d = 0; d < r; ++d) {
      const int64_t c = mapCoord(idx[d], pb[d], id[d], mode);
      if (c < 0) inside = 0;
      src = src * id[d] + (c < 0 ? 0 : c);
    }
    if (inside) atck_move_one(out + i * es, in + src * es, es);
    else atck_fill_elems(out + i * es, 1, es, bits);
    for (int64_t d = r - 1; d >= 0; --d) {
      if (++idx[d] < od[d]) break;
      idx[d] = 0;
    }
  }
}
