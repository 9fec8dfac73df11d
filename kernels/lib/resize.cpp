// resize: separable N-d resampling with per-dim tap tables computed by the lowering (all
// ONNX coordinate transformation modes, nearest modes, linear and cubic coefficients).
// bufs = {in, out}.
// P = {dtype, esize, rank, nearest (1: single tap, bytes are moved), extrapBits (double), outBuf,
//      taps[r] (0 = identity dim), outDims[r], inDims[r],
//      then for each dim with taps > 0: idx[outDim * taps], wbits[outDim * taps] (double)}.
// An index of -1 means outside the crop box: the output element is the extrapolation value.
// Items: output rows (all dims but the last).
#include "kernels/lib/index_elem.h"
#include "kernels/lib/resize_coords.h"

ATC_KERNEL(resize)

namespace {

const int64_t kMaxCombos = ATCK_RESIZE_MAX_COMBOS;

struct ResizeView {
  int64_t dt, es, rank, nearest, outBuf;
  double extrap;
  const int64_t* taps;
  const int64_t* od;
  const int64_t* id;
  const int64_t* tabIdx[ATCK_MAX_RANK];
  const int64_t* tabW[ATCK_MAX_RANK];
};

ATCK_INLINE void viewOf(const int64_t* P, ResizeView& v) {
  v.dt = P[0];
  v.es = P[1];
  v.rank = P[2];
  v.nearest = P[3];
  v.extrap = atck_d(P[4]);
  v.outBuf = P[5];
  v.taps = P + 6;
  v.od = P + 6 + v.rank;
  v.id = P + 6 + 2 * v.rank;
  const int64_t* t = P + 6 + 3 * v.rank;
  for (int64_t d = 0; d < v.rank; ++d) {
    int64_t n = v.taps[d] > 0 ? v.od[d] * v.taps[d] : 0;
    v.tabIdx[d] = t;
    v.tabW[d] = t + n;
    t += 2 * n;
  }
}

}  // namespace

int64_t atck_resize_ntasks(const int64_t* P) {
  int64_t r = P[2];
  int64_t n = 1;
  for (int64_t d = 0; d < r; ++d) n *= P[6 + r + d];
  if (n == 0) return 0;
  return r == 0 ? 1 : n / P[6 + r + r - 1];
}

void atck_resize_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  ResizeView v;
  viewOf(P, v);
  const char* in = (const char*)bufs[0];
  char* out = (char*)bufs[v.outBuf];
  int64_t es = v.es;
  if (v.rank == 0) { atck_move_one(out, in, es); return; }
  int64_t last = v.rank - 1;
  int64_t len = v.od[last];
  int64_t istr[ATCK_MAX_RANK];
  int64_t s = 1;
  for (int64_t d = last; d >= 0; --d) { istr[d] = s; s *= v.id[d]; }
  int64_t idx[ATCK_MAX_RANK];
  atck_unravel(begin, v.od, last, idx);
  int64_t comboOff[kMaxCombos];
  float comboW[kMaxCombos];
  int64_t lt = v.taps[last];
  for (int64_t row = begin; row < end; ++row) {
    char* orow = out + row * len * es;
    // Leading dims: expand the tap combinations into (offset, weight) pairs.
    int64_t nc = 1;
    comboOff[0] = 0;
    comboW[0] = 1.f;
    bool outside = false;
    for (int64_t d = 0; d < last && !outside; ++d) {
      int64_t t = v.taps[d];
      if (t == 0) {
        for (int64_t c = 0; c < nc; ++c) comboOff[c] += idx[d] * istr[d];
        continue;
      }
      const int64_t* ti = v.tabIdx[d] + idx[d] * t;
      const int64_t* tw = v.tabW[d] + idx[d] * t;
      if (ti[0] < 0) { outside = true; break; }
      int64_t nn = nc * t;
      if (nn > kMaxCombos) nn = kMaxCombos;
      // Fill from the back so sources are read before being overwritten.
      for (int64_t c = nc - 1; c >= 0; --c) {
        int64_t o = comboOff[c];
        float w = comboW[c];
        for (int64_t k = t - 1; k >= 0; --k) {
          int64_t j = c * t + k;
          if (j >= kMaxCombos) continue;
          comboOff[j] = o + ti[k] * istr[d];
          comboW[j] = w * (float)atck_d(tw[k]);
        }
      }
      nc = nn;
    }
    atck_odometer_next(idx, v.od, last);
    if (outside) {
      for (int64_t x = 0; x < len; ++x) atck_store_f(orow + x * es, v.dt, (float)v.extrap);
      continue;
    }
    if (v.nearest) {
      const char* irow = in + comboOff[0] * es;
      if (lt == 0) { memcpy(orow, irow, (size_t)(len * es)); continue; }
      const int64_t* ti = v.tabIdx[last];
      for (int64_t x = 0; x < len; ++x) {
        if (ti[x] < 0) atck_store_f(orow + x * es, v.dt, (float)v.extrap);
        else atck_move_one(orow + x * es, irow + ti[x] * es, es);
      }
      continue;
    }
    for (int64_t x = 0; x < len; ++x) {
      float acc = 0.f;
      if (lt == 0) {
        for (int64_t c = 0; c < nc; ++c) acc += comboW[c] * atck_load_f(in + (comboOff[c] + x) * es, v.dt);
      } else {
        const int64_t* ti = v.tabIdx[last] + x * lt;
        const int64_t* tw = v.tabW[last] + x * lt;
        if (ti[0] < 0) { atck_store_f(orow + x * es, v.dt, (float)v.extrap); continue; }
        for (int64_t k = 0; k < lt; ++k) {
          float wk = (float)atck_d(tw[k]);
          float part = 0.f;
          for (int64_t c = 0; c < nc; ++c)
            part += comboW[c] * atck_load_f(in + (comboOff[c] + ti[k]) * es, v.dt);
          acc += wk * part;
        }
      }
      atck_store_f(orow + x * es, v.dt, acc);
    }
  }
}
