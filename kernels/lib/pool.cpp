// pool: max / average / Lp pooling over 1-3 spatial dims (normalised to D,H,W), NC planes.
// Also used for the global pools (window = whole plane). f32 and f16 (fp32 arithmetic).
// Params: CubePoolParam (cube_params.h). bufs: X, Y, [Indices (int64)].
// Windows entirely inside the input take a branch-free path (trip counts are constants
// once the params are baked in, so it unrolls); 2-D max / average pools without Indices take the
// vectorised band path (pool_band.h).
#include <math.h>

#include "kernels/lib/cube_params.h"
#include "kernels/lib/kernel_abi.h"
#include "kernels/lib/pool_band.h"
#include "kernels/lib/vec_math.h"

ATC_KERNEL(pool)

int64_t atck_pool_ntasks(const int64_t* P) {
  return (P[PL_NC] + P[PL_PLANES_PER_TASK] - 1) / P[PL_PLANES_PER_TASK];
}

static inline ATCK_INLINE float pool_ld(const void* p, int64_t i, int64_t dt) {
  if (dt == ATCK_F16) return atck_h2f(((const uint16_t*)p)[i]);
  return ((const float*)p)[i];
}
static inline ATCK_INLINE void pool_st(void* p, int64_t i, float v, int64_t dt) {
  if (dt == ATCK_F16) ((uint16_t*)p)[i] = atck_f2h(v);
  else ((float*)p)[i] = v;
}

// float16 2-D max / average windows without Indices off the band path (column-strided ones):
// the KH input rows of an output row are widened to float32 once (16-lane conversions) instead
// of one scalar conversion per tap (a 3x3 stride-2 MaxPool over 64x112x112: 0.49 -> 0.11 ms,
// 1 thread, Zen 5). Same taps, order and rules as the loops of atck_pool_task.
enum { POOL_F16_ROWBUF = 4096 };
static inline ATCK_INLINE void pool_f16_rows(const int64_t* P, const void* X, void* Y, int64_t pl0, int64_t pl1) {
  const int64_t kind = P[PL_KIND], IH = P[PL_IH], IW = P[PL_IW], OH = P[PL_OH], OW = P[PL_OW];
  const int64_t KH = P[PL_KH], KW = P[PL_KW], SH = P[PL_SH], SW = P[PL_SW], DH = P[PL_DH], DW = P[PL_DW];
  const int64_t PH = P[PL_PH], PW = P[PL_PW];
  float rb[POOL_F16_ROWBUF];
  for (int64_t pl = pl0; pl < pl1; ++pl) {
    const uint16_t* x = (const uint16_t*)X + pl * IH * IW;
    for (int64_t oh = 0; oh < OH; ++oh) {
      const int64_t h0 = oh * SH - PH;
      for (int64_t kh = 0; kh < KH; ++kh) {
        const int64_t ih = h0 + kh * DH;
        if (ih >= 0 && ih < IH) {
          ATCK_VEC16
          for (int64_t q = 0; q < IW; ++q) rb[kh * IW + q] = atck_h2f(x[ih * IW + q]);
        }
      }
      for (int64_t ow = 0; ow < OW; ++ow) {
        const int64_t w0 = ow * SW - PW;
        const bool inW = w0 >= 0 && w0 + (KW - 1) * DW < IW;
        float acc = kind == 0 ? -INFINITY : 0.0f;
        int64_t cnt = 0;
        for (int64_t kh = 0; kh < KH; ++kh) {
          const int64_t ih = h0 + kh * DH;
          if (ih < 0 || ih >= IH) continue;
          const float* r = rb + kh * IW;
          for (int64_t kw = 0; kw < KW; ++kw) {
            const int64_t iw = w0 + kw * DW;
            if (!inW && (iw < 0 || iw >= IW)) continue;
            const float v = r[iw];
            acc = kind == 0 ? (v > acc ? v : acc) : acc + v;
            ++cnt;
          }
        }
        float out = acc;
        if (kind == 1) {
          int64_t div = cnt;
          if (P[PL_COUNT_PAD])
            div = pool_taps(h0, KH, DH, -PH, IH + P[PL_EH]) * pool_taps(w0, KW, DW, -PW, IW + P[PL_EW]);
          out = div > 0 ? acc / (float)div : 0.0f;
        }
        ((uint16_t*)Y)[(pl * OH + oh) * OW + ow] = atck_f2h(out);
      }
    }
  }
}

void atck_pool_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t dt = P[PL_DTYPE], kind = P[PL_KIND];
  const int64_t ID = P[PL_ID], IH = P[PL_IH], IW = P[PL_IW];
  const int64_t OD = P[PL_OD], OH = P[PL_OH], OW = P[PL_OW];
  const int64_t KD = P[PL_KD], KH = P[PL_KH], KW = P[PL_KW];
  const int64_t SD = P[PL_SD], SH = P[PL_SH], SW = P[PL_SW];
  const int64_t DD = P[PL_DD], DH = P[PL_DH], DW = P[PL_DW];
  const int64_t PD = P[PL_PD], PH = P[PL_PH], PW = P[PL_PW];
  const int64_t countPad = P[PL_COUNT_PAD];
  const float p = (float)atck_d(P[PL_P]);
  const int64_t NC = P[PL_NC];
  const int64_t IPIX = ID * IH * IW, OPIX = OD * OH * OW;
  const void* X = bufs[0];
  void* Y = bufs[P[PL_YIDX]];
  int64_t* Ind = P[PL_INDICES] ? (int64_t*)bufs[P[PL_YIDX] + 1] : 0;
  int64_t pl0 = begin * P[PL_PLANES_PER_TASK];
  int64_t pl1 = end * P[PL_PLANES_PER_TASK];
  if (pl1 > NC) pl1 = NC;
  if (P[PL_BAND]) {
    for (int64_t task = begin; task < end; ++task)
      pool_band_planes(P, bufs, task, task * P[PL_PLANES_PER_TASK],
                       cube_min(NC, (task + 1) * P[PL_PLANES_PER_TASK]));
    return;
  }
  // Global max / average pool (the window is the whole unpadded plane): a contiguous reduction in
  // four 16-lane accumulators. The scalar loop below is one dependent add per element (a
  // 56x56x144 GlobalAveragePool took 0.2 ms). Sums are reassociated (float rounding differs
  // from the scalar order in the last bits); max keeps the scalar rule (NaN never replaces).
  if (OPIX == 1 && kind <= 1 && !Ind && KD == ID && KH == IH && KW == IW && PD == 0 && PH == 0 && PW == 0 &&
      IPIX >= 64) {
    const float init = kind == 0 ? -INFINITY : 0.0f;
    for (int64_t pl = pl0; pl < pl1; ++pl) {
      const int64_t ib = pl * IPIX;
      atck_v16f a[4];
      for (int q = 0; q < 4; ++q) a[q] = atck_splat16(init);
      int64_t i = 0;
      for (; i + 64 <= IPIX; i += 64)
        for (int q = 0; q < 4; ++q) {
          const atck_v16f v = cube_load16_dt(dt, X, ib + i + 16 * q);
          if (kind == 0) a[q] = v > a[q] ? v : a[q];
          else a[q] += v;
        }
      float acc = init;
      for (int q = 0; q < 4; ++q)
        for (int l = 0; l < 16; ++l) {
          const float v = a[q][l];
          acc = kind == 0 ? (v > acc ? v : acc) : acc + v;
        }
      for (; i < IPIX; ++i) {
        const float v = pool_ld(X, ib + i, dt);
        acc = kind == 0 ? (v > acc ? v : acc) : acc + v;
      }
      pool_st(Y, pl, kind == 0 ? acc : acc / (float)IPIX, dt);
    }
    return;
  }
  if (dt == ATCK_F16 && kind <= 1 && !Ind && ID == 1 && OD == 1 && KD == 1 && PD == 0 &&
      KH * IW <= POOL_F16_ROWBUF) {
    pool_f16_rows(P, X, Y, pl0, pl1);
    return;
  }
  for (int64_t pl = pl0; pl < pl1; ++pl) {
    const int64_t ib = pl * IPIX, ob = pl * OPIX;
    for (int64_t od = 0; od < OD; ++od)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          const int64_t d0 = od * SD - PD, h0 = oh * SH - PH, w0 = ow * SW - PW;
          const bool interior = d0 >= 0 && d0 + (KD - 1) * DD < ID && h0 >= 0 &&
                                h0 + (KH - 1) * DH < IH && w0 >= 0 && w0 + (KW - 1) * DW < IW;
          float acc = kind == 0 ? -INFINITY : 0.0f;
          int64_t best = -1, cnt = 0;
          if (interior && !Ind) {  // float32 or float16 (dt is a constant once the params are baked in)
            const int64_t x = ib + (d0 * IH + h0) * IW + w0;
            for (int64_t kd = 0; kd < KD; ++kd)
              for (int64_t kh = 0; kh < KH; ++kh)
                for (int64_t kw = 0; kw < KW; ++kw) {
                  const float v = pool_ld(X, x + (kd * DD * IH + kh * DH) * IW + kw * DW, dt);
                  if (kind == 0) acc = v > acc ? v : acc;
                  else if (kind == 1) acc += v;
                  else acc += p == 2.0f ? v * v : (p == 1.0f ? fabsf(v) : powf(fabsf(v), p));
                }
            cnt = KD * KH * KW;
          } else {
            for (int64_t kd = 0; kd < KD; ++kd) {
              const int64_t id = d0 + kd * DD;
              if (id < 0 || id >= ID) continue;
              for (int64_t kh = 0; kh < KH; ++kh) {
                const int64_t ih = h0 + kh * DH;
                if (ih < 0 || ih >= IH) continue;
                for (int64_t kw = 0; kw < KW; ++kw) {
                  const int64_t iw = w0 + kw * DW;
                  if (iw < 0 || iw >= IW) continue;
                  const int64_t idx = (id * IH + ih) * IW + iw;
                  const float v = pool_ld(X, ib + idx, dt);
                  ++cnt;
                  if (kind == 0) {
                    if (best < 0 || v > acc) {
                      acc = v;
                      best = idx;
                    }
                  } else if (kind == 1) {
                    acc += v;
                  } else {
                    acc += p == 2.0f ? v * v : (p == 1.0f ? fabsf(v) : powf(fabsf(v), p));
                  }
                }
              }
            }
          }
          float out;
          if (kind == 0) {
            out = acc;
          } else if (kind == 1) {
            int64_t div = cnt;
            if (countPad)  // taps inside the padded input [-pad_begin, in + pad_end)
              div = pool_taps(d0, KD, DD, -PD, ID + P[PL_ED]) *
                    pool_taps(h0, KH, DH, -PH, IH + P[PL_EH]) *
                    pool_taps(w0, KW, DW, -PW, IW + P[PL_EW]);
            out = div > 0 ? acc / (float)div : 0.0f;
          } else {
            out = p == 2.0f ? sqrtf(acc) : (p == 1.0f ? acc : powf(acc, 1.0f / p));
          }
          const int64_t oi = ob + (od * OH + oh) * OW + ow;
          pool_st(Y, oi, out, dt);
          if (Ind) {
            if (best < 0) best = 0;
            int64_t gi = best;
            if (P[PL_STORAGE_ORDER]) {  // column-major index within the plane
              int64_t bw = best % IW, bh = (best / IW) % IH, bd = best / (IW * IH);
              gi = (bw * IH + bh) * ID + bd;
            }
            Ind[oi] = ib + gi;
          }
        }
  }
}
