// Resize's coordinate mapping and filter taps, shared by the lowering (ops/datamove/resize.cpp
// builds per-dim tap tables from them for the resize kernel) and by resize_rt (scales or sizes
// fed at run time: the taps are computed per output coordinate). They follow the ONNX
// reference implementation.
#pragma once
#include "kernels/lib/index_elem.h"

// coordinate_transformation_mode codes.
enum {
  ATCK_RZ_HALF_PIXEL, ATCK_RZ_PYTORCH_HALF_PIXEL, ATCK_RZ_ALIGN_CORNERS, ATCK_RZ_ASYMMETRIC,
  ATCK_RZ_TF_HALF_PIXEL_FOR_NN, ATCK_RZ_TF_CROP_AND_RESIZE, ATCK_RZ_HALF_PIXEL_SYMMETRIC
};
// nearest_mode codes; modes.
enum { ATCK_RZ_ROUND_PREFER_FLOOR, ATCK_RZ_ROUND_PREFER_CEIL, ATCK_RZ_FLOOR, ATCK_RZ_CEIL };
enum { ATCK_RZ_NEAREST, ATCK_RZ_LINEAR, ATCK_RZ_CUBIC };

// The filter of one dim: what the taps of every output coordinate along it depend on.
struct AtckRzDim {
  int64_t mode, ctm, nearestMode, antialias, excludeOutside;
  double cubicA, scale;
  int64_t inLen, outLen;
  double roiB, roiE;  // tf_crop_and_resize: the crop box along this dim
};

// Input coordinate of output coordinate x; *outside for crop extrapolation.
static inline ATCK_INLINE double atck_rz_source(const AtckRzDim& s, int64_t x, int* outside) {
  const double scale = s.scale, inLen = (double)s.inLen;
  const double outLen = scale * inLen;  // as the ONNX reference (not the rounded size)
  const double xf = (double)x;
  *outside = 0;
  switch (s.ctm) {
    case ATCK_RZ_HALF_PIXEL: return (xf + 0.5) / scale - 0.5;
    case ATCK_RZ_HALF_PIXEL_SYMMETRIC: {  // opset 19: the output grid centred on the input's
      double adj = outLen > 0 ? (double)s.outLen / outLen : 1.0;
      return inLen / 2 * (1 - adj) + (xf + 0.5) / scale - 0.5;
    }
    case ATCK_RZ_PYTORCH_HALF_PIXEL: return s.outLen > 1 ? (xf + 0.5) / scale - 0.5 : 0.0;
    case ATCK_RZ_ALIGN_CORNERS: return outLen <= 1 ? 0.0 : xf * (inLen - 1) / (outLen - 1);
    case ATCK_RZ_ASYMMETRIC: return xf / scale;
    case ATCK_RZ_TF_HALF_PIXEL_FOR_NN: return (xf + 0.5) / scale;
    default: {  // tf_crop_and_resize
      double r = outLen <= 1 ? (s.roiE - s.roiB) * (inLen - 1) / 2
                             : xf * (s.roiE - s.roiB) * (inLen - 1) / (outLen - 1);
      r += s.roiB * (inLen - 1);
      if (r < 0 || r > inLen - 1) *outside = 1;
      return r;
    }
  }
}

static inline ATCK_INLINE int64_t atck_rz_nearest(int64_t m, double x) {
  const double f = __builtin_floor(x);
  if (m == ATCK_RZ_FLOOR) return (int64_t)f;
  if (m == ATCK_RZ_CEIL) return (int64_t)__builtin_ceil(x);
  if (x - f == 0.5) return m == ATCK_RZ_ROUND_PREFER_FLOOR ? (int64_t)f : (int64_t)f + 1;
  return (int64_t)__builtin_round(x);
}

static inline ATCK_INLINE int64_t atck_rz_clamp(int64_t i, int64_t n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

// Taps per output coordinate: 1 (nearest), 2 (linear), 4 (cubic), or with antialias when
// downsampling the filter's footprint widened by 1/scale.
static inline ATCK_INLINE int64_t atck_rz_taps(const AtckRzDim& s) {
  if (s.mode == ATCK_RZ_NEAREST) return 1;
  const int lin = s.mode == ATCK_RZ_LINEAR;
  if (!s.antialias || s.scale >= 1.0) return lin ? 2 : 4;
  const int64_t start = (int64_t)__builtin_floor((lin ? -1.0 : -2.0) / s.scale) + 1;
  return 2 - 2 * start;
}

// The taps (input index, -1 when outside the crop box, and weight) of output coordinate x.
static inline ATCK_INLINE void atck_rz_tap_row(const AtckRzDim& s, int64_t x, int64_t taps, int64_t* ii, double* ww) {
  const int64_t inN = s.inLen;
  int outside = 0;
  const double src = atck_rz_source(s, x, &outside);
  for (int64_t k = 0; k < taps; ++k) ii[k] = 0, ww[k] = 0;
  if (outside || inN == 0) {
    for (int64_t k = 0; k < taps; ++k) ii[k] = -1;
  } else if (s.mode == ATCK_RZ_NEAREST) {
    ii[0] = atck_rz_clamp(atck_rz_nearest(s.nearestMode, src), inN);
    ww[0] = 1.0;
  } else if (s.antialias && s.scale < 1.0) {
    // Opset 18 antialias (ONNX reference): around x0 = ceil(src) - 1 with ratio = src - x0 in
    // (0, 1], point x0 + i (edge-clamped) gets the filter value at scale * (i - ratio): a
    // triangle (linear) or the cubic kernel, normalised to sum 1.
    const double A = s.cubicA;
    const int64_t start = 1 - taps / 2;
    const double x0 = __builtin_ceil(src) - 1, ratio = src - x0;
    double sum = 0;
    for (int64_t k = 0; k < taps; ++k) {
      double t = __builtin_fabs(s.scale * ((double)(start + k) - ratio)), c;
      if (s.mode == ATCK_RZ_LINEAR) c = 1.0 - t > 0.0 ? 1.0 - t : 0.0;
      else if (t <= 1) c = (A + 2) * t * t * t - (A + 3) * t * t + 1;
      else if (t < 2) c = A * t * t * t - 5 * A * t * t + 8 * A * t - 4 * A;
      else c = 0;
      ii[k] = atck_rz_clamp((int64_t)x0 + start + k, inN);
      ww[k] = c;
      sum += c;
    }
    for (int64_t k = 0; k < taps; ++k) ww[k] = sum != 0 ? ww[k] / sum : 0;
  } else if (s.mode == ATCK_RZ_LINEAR) {
    const double f = __builtin_floor(src), r = src - f;
    ii[0] = atck_rz_clamp((int64_t)f, inN);
    ii[1] = atck_rz_clamp((int64_t)f + 1, inN);
    ww[0] = 1 - r;
    ww[1] = r;
  } else {
    const double f = __builtin_floor(src), r = src - f, A = s.cubicA;
    const double t = r + 1, u = 1 - r, v = 2 - r;
    double c[4] = {((A * t - 5 * A) * t + 8 * A) * t - 4 * A, ((A + 2) * r - (A + 3)) * r * r + 1,
                   ((A + 2) * u - (A + 3)) * u * u + 1, ((A * v - 5 * A) * v + 8 * A) * v - 4 * A};
    double sum = 0;
    for (int k = 0; k < 4; ++k) {
      const int64_t raw = (int64_t)f - 1 + k;
      if (s.excludeOutside && (raw < 0 || raw >= inN)) c[k] = 0;
      sum += c[k];
      ii[k] = atck_rz_clamp(raw, inN);
    }
    for (int k = 0; k < 4; ++k) ww[k] = s.excludeOutside && sum != 0 ? c[k] / sum : c[k];
  }
}

// One element of dtype dt as float, and back (integers rounded to nearest even and saturated).
static inline ATCK_INLINE float atck_load_f(const char* p, int64_t dt) {
  switch (dt) {
    case ATCK_F32: { float v; memcpy(&v, p, 4); return v; }
    case ATCK_F64: { double v; memcpy(&v, p, 8); return (float)v; }
    case ATCK_F16: { uint16_t v; memcpy(&v, p, 2); return atck_h2f(v); }
    case ATCK_BF16: { uint16_t v; memcpy(&v, p, 2); return atck_bf2f(v); }
    case ATCK_I64: { int64_t v; memcpy(&v, p, 8); return (float)v; }
    case ATCK_I32: { int32_t v; memcpy(&v, p, 4); return (float)v; }
    case ATCK_I16: { int16_t v; memcpy(&v, p, 2); return (float)v; }
    case ATCK_I8: return (float)*(const int8_t*)p;
    case ATCK_U8: return (float)*(const uint8_t*)p;
    default: return 0.f;
  }
}

static inline ATCK_INLINE int64_t atck_round_sat(float v, double lo, double hi) {
  double r = __builtin_nearbyint((double)v);
  if (r < lo) r = lo;
  if (r > hi) r = hi;
  return (int64_t)r;
}

static inline ATCK_INLINE void atck_store_f(char* p, int64_t dt, float v) {
  switch (dt) {
    case ATCK_F32: memcpy(p, &v, 4); return;
    case ATCK_F64: { double d = v; memcpy(p, &d, 8); return; }
    case ATCK_F16: { uint16_t h = atck_f2h(v); memcpy(p, &h, 2); return; }
    case ATCK_BF16: { uint16_t h = atck_f2bf(v); memcpy(p, &h, 2); return; }
    case ATCK_I64: { int64_t x = atck_round_sat(v, -9.2e18, 9.2e18); memcpy(p, &x, 8); return; }
    case ATCK_I32: { int32_t x = (int32_t)atck_round_sat(v, -2147483648.0, 2147483647.0); memcpy(p, &x, 4); return; }
    case ATCK_I16: { int16_t x = (int16_t)atck_round_sat(v, -32768.0, 32767.0); memcpy(p, &x, 2); return; }
    case ATCK_I8: *(int8_t*)p = (int8_t)atck_round_sat(v, -128.0, 127.0); return;
    case ATCK_U8: *(uint8_t*)p = (uint8_t)atck_round_sat(v, 0.0, 255.0); return;
    default: return;
  }
}

