// resize_rt: Resize / Upsample whose scales or sizes (or tf_crop_and_resize's roi) are fed at run
// time. The output is run-sized (kernels/lib/run_sized.h): the size pass computes the output
// dims as the lowering does for constants (ops/datamove/resize.cpp), the data pass computes each
// output element's taps on the fly (kernels/lib/resize_coords.h) and sums over their product.
// Invalid values (a scale <= 0, a negative size, a filter wider than ATCK_RZR_MAX_TAPS taps
// per dim or ATCK_RZR_MAX_COMBOS in all) give -1 dims: the run fails.
// bufs = {X, roi, scales, sizes (absent: null), Y, Y's dims slot} (Upsample-9 / Resize-10: X,
// scales, Y, slot); P below, then axes[nAxes], X's dims[rank]. One task.
#include "kernels/lib/resize_coords.h"
#include "kernels/lib/run_sized.h"

ATC_KERNEL(resize_rt)

enum {
  RZR_DT, RZR_ES, RZR_RANK, RZR_MODE, RZR_CTM, RZR_NEAREST, RZR_ANTIALIAS, RZR_EXCLUDE, RZR_CUBIC_A, RZR_EXTRAP,
  RZR_POLICY,  // keep_aspect_ratio_policy: 0 stretch, 1 not_larger, 2 not_smaller
  RZR_NAXES, RZR_SIZES, RZR_SRC, RZR_SRC_DT, RZR_ROI, RZR_ROI_DT, RZR_NIN, RZR_HEADER
};
#define ATCK_RZR_MAX_TAPS 64
#define ATCK_RZR_MAX_COMBOS 4096

int64_t atck_resize_rt_ntasks(const int64_t*) { return 1; }

static inline ATCK_INLINE double atck_rzr_float(const void* p, int64_t dt, int64_t i) {
  if (dt == ATCK_F64) return ((const double*)p)[i];
  if (dt == ATCK_F16) return (double)atck_h2f(((const uint16_t*)p)[i]);
  return (double)((const float*)p)[i];
}

// Per dim: the filter (scale, lengths, roi); 0 when the values are invalid.
static inline ATCK_INLINE int atck_rzr_spec(const int64_t* P, void** bufs, AtckRzDim* z) {
  const int64_t r = P[RZR_RANK], na = P[RZR_NAXES];
  const int64_t* axes = P + RZR_HEADER;
  const int64_t* in = axes + na;
  for (int64_t d = 0; d < r; ++d) {
    z[d].mode = P[RZR_MODE];
    z[d].ctm = P[RZR_CTM];
    z[d].nearestMode = P[RZR_NEAREST];
    z[d].antialias = P[RZR_ANTIALIAS];
    z[d].excludeOutside = P[RZR_EXCLUDE];
    z[d].cubicA = atck_d(P[RZR_CUBIC_A]);
    z[d].scale = 1.0;
    z[d].inLen = z[d].outLen = in[d];
    z[d].roiB = 0.0;
    z[d].roiE = 1.0;
  }
  const void* src = bufs[P[RZR_SRC]];
  if (P[RZR_SIZES]) {
    double scale = P[RZR_POLICY] == 1 ? 1e300 : 0.0;
    for (int64_t i = 0; i < na; ++i) {
      const int64_t sz = atck_index_at(src, P[RZR_SRC_DT], i), n = in[axes[i]];
      if (sz < 0) return 0;
      const double q = n > 0 ? (double)sz / (double)n : 1.0;
      if (P[RZR_POLICY] == 1) scale = q < scale ? q : scale;
      else scale = q > scale ? q : scale;
    }
    for (int64_t i = 0; i < na; ++i) {
      AtckRzDim& s = z[axes[i]];
      const int64_t sz = atck_index_at(src, P[RZR_SRC_DT], i);
      if (P[RZR_POLICY] == 0) {
        s.outLen = sz;
        s.scale = s.inLen > 0 ? (double)sz / (double)s.inLen : 1.0;
      } else {  // one scale for every axis; sizes rounded half to even as the ONNX reference
        s.scale = scale;
        s.outLen = (int64_t)__builtin_nearbyint(scale * (double)s.inLen);
      }
    }
  } else {
    for (int64_t i = 0; i < na; ++i) {
      AtckRzDim& s = z[axes[i]];
      const double q = atck_rzr_float(src, P[RZR_SRC_DT], i);
      if (!(q > 0) || q > 1e12) return 0;
      s.scale = q;
      s.outLen = (int64_t)__builtin_floor((double)s.inLen * q);
    }
  }
  if (P[RZR_ROI] >= 0 && bufs[P[RZR_ROI]])
    for (int64_t i = 0; i < na; ++i) {
      z[axes[i]].roiB = atck_rzr_float(bufs[P[RZR_ROI]], P[RZR_ROI_DT], i);
      z[axes[i]].roiE = atck_rzr_float(bufs[P[RZR_ROI]], P[RZR_ROI_DT], i + na);
    }
  int64_t combos = 1;
  for (int64_t d = 0; d < r; ++d) {
    const int64_t t = atck_rz_taps(z[d]);
    if (t > ATCK_RZR_MAX_TAPS || z[d].outLen < 0) return 0;
    combos *= t;
    if (combos > ATCK_RZR_MAX_COMBOS) return 0;
  }
  return 1;
}

// Y's element at output index idx[]: the sum over the tap combinations.
static inline ATCK_INLINE void atck_rzr_element(const int64_t* P, const AtckRzDim* z, const char* x, char* y,
                                               const int64_t* idx, const int64_t* xs) {
  const int64_t r = P[RZR_RANK], dt = P[RZR_DT], es = P[RZR_ES];
  int64_t ti[ATCK_RS_MAX_RANK][ATCK_RZR_MAX_TAPS], nt[ATCK_RS_MAX_RANK];
  double tw[ATCK_RS_MAX_RANK][ATCK_RZR_MAX_TAPS];
  for (int64_t d = 0; d < r; ++d) {
    nt[d] = atck_rz_taps(z[d]);
    atck_rz_tap_row(z[d], idx[d], nt[d], ti[d], tw[d]);
    if (ti[d][0] < 0) {
      atck_store_f(y, dt, (float)atck_d(P[RZR_EXTRAP]));
      return;
    }
  }
  if (P[RZR_MODE] == ATCK_RZ_NEAREST) {
    int64_t off = 0;
    for (int64_t d = 0; d < r; ++d) off += ti[d][0] * xs[d];
    atck_move_one(y, x + off * es, es);
    return;
  }
  int64_t k[ATCK_RS_MAX_RANK] = {0};
  double acc = 0;
  for (;;) {
    int64_t off = 0;
    double w = 1;
    for (int64_t d = 0; d < r; ++d) off += ti[d][k[d]] * xs[d], w *= tw[d][k[d]];
    acc += w * (double)atck_load_f(x + off * es, dt);
    int64_t d = r - 1;
    for (; d >= 0; --d) {
      if (++k[d] < nt[d]) break;
      k[d] = 0;
    }
    if (d < 0) break;
  }
  atck_store_f(y, dt, (float)acc);
}

void atck_resize_rt_task(const int64_t* P, void** bufs, int64_t begin, int64_t) {
  const int64_t r = P[RZR_RANK], nin = P[RZR_NIN];
  void* slot = bufs[nin + 1];
  AtckRzDim z[ATCK_RS_MAX_RANK];
  const int ok = atck_rzr_spec(P, bufs, z);
  if (!bufs[nin]) {
    if (begin != 0) return;
    int64_t od[ATCK_RS_MAX_RANK];
    for (int64_t d = 0; d < r; ++d) od[d] = z[d].outLen;
    if (ok) atck_rs_put(slot, od, r);
    else atck_rs_invalid(slot, r);
    return;
  }
  const char* x = (const char*)bufs[0];
  char* y = (char*)bufs[nin];
  const int64_t es = P[RZR_ES];
  int64_t xs[ATCK_RS_MAX_RANK], n = 1, idx[ATCK_RS_MAX_RANK] = {0};
  for (int64_t d = r - 1, st = 1; d >= 0; --d) xs[d] = st, st *= z[d].inLen;
  for (int64_t d = 0; d < r; ++d) n *= z[d].outLen;
  for (int64_t i = 0; i < n; ++i) {
    atck_rzr_element(P, z, x, y + i * es, idx, xs);
    for (int64_t d = r - 1; d >= 0; --d) {
      if (++idx[d] < z[d].outLen) break;
      idx[d] = 0;
    }
  }
}
