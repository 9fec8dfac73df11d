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

// 16 padded columns of a float16 input row (element offset s of its column 0) from input column
// q0, widened into *out: the input where 0 <= q < IW, pf elsewhere. Whole-vector loads wherever
// they stay inside the tensor (total elements); lanes outside the row are replaced by pf.
// (Results through a pointer and the conversion written out: g++'s out-of-line copies of
// functions returning a 64-byte vector warn in the host build.)
static inline ATCK_INLINE void pool_s2_ld(const uint16_t* X, int64_t total, int64_t s, int64_t q0, int64_t IW,
                                          float pf, atck_v16f* out) {
  const atck_v16f pv = atck_splat16(pf);
  if (q0 >= IW || q0 + 16 <= 0) {
    *out = pv;
    return;
  }
  const int whole = q0 >= 0 && q0 + 16 <= IW;
  atck_v16f v;
  if (whole || (s + q0 >= 0 && s + q0 + 16 <= total)) {
    for (int l = 0; l < 16; ++l) v[l] = atck_h2f(X[s + q0 + l]);
  } else {
    for (int l = 0; l < 16; ++l) v[l] = q0 + l >= 0 && q0 + l < IW ? atck_h2f(X[s + q0 + l]) : 0.0f;
  }
  if (whole) {
    *out = v;
    return;
  }
  const atck_v16f io = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  const atck_v16f q = io + atck_splat16((float)q0);
  *out = q >= atck_splat16(0.0f) && q < atck_splat16((float)IW) ? v : pv;
}

// Float16 2-D max / average windows of column stride 2 without Indices: 16 outputs at a time.
// Bands of output rows: each input row of the band is widened and split into its two column
// phases, padded with the window's neutral value (-inf for max, 0 for average; rows outside the
// input entirely): phase f, index j holds padded column 2j + f (input column 2j + f - PW). Tap
// kw of output ow reads padded column 2 * ow + kw * DW = phase (kw * DW) % 2, index
// ow + (kw * DW) / 2: one contiguous 16-float load per tap. A padded tap compares with -inf or
// adds +0 and the taps run in the scalar loops' order, so the results are the float32 scalar
// loops' rounded once. The whole band is split before it is read (a row read right after its
// own stores waits on failed store-to-load forwards). A 3x3 stride-2 MaxPool over 64x112x112,
// 1 thread, Zen 5: 0.22 ms in pool_f16_rows, 0.086 here; the float32 scalar loops (which LLVM
// vectorises with the same shuffles, reading the input in place) take 0.08 and stay.
// rb: POOL_F16_ROWBUF floats (rows * 2 * HW used); wd: ceil16(OW) floats (average: width counts).
static inline ATCK_INLINE void pool_f16_rows_s2(const int64_t* P, const void* X, void* Y, int64_t pl0, int64_t pl1,
                                                int64_t HW, float* rb, float* wd) {
  const int64_t kind = P[PL_KIND], IH = P[PL_IH], IW = P[PL_IW], OH = P[PL_OH], OW = P[PL_OW], dt = P[PL_DTYPE];
  const int64_t KH = P[PL_KH], KW = P[PL_KW], SH = P[PL_SH], DH = P[PL_DH], DW = P[PL_DW];
  const int64_t PH = P[PL_PH], PW = P[PL_PW], total = P[PL_NC] * IH * IW;
  const float pf = kind == 0 ? -INFINITY : 0.0f;
  const atck_v16f pv = atck_splat16(pf);
  int64_t OB = 1;  // output rows per band
  while (OB < OH && (OB * SH + (KH - 1) * DH + 1) * 2 * HW <= POOL_F16_ROWBUF) ++OB;
  for (int64_t q = 0; q < (OW + 15) / 16 * 16; ++q)
    wd[q] = q < OW ? (float)pool_count(P, 2 * q - PW, KW, DW, PW, IW, P[PL_EW]) : 1.0f;
  for (int64_t pl = pl0; pl < pl1; ++pl) {
    const int64_t xb = pl * IH * IW;
    for (int64_t oh0 = 0; oh0 < OH; oh0 += OB) {
      const int64_t ohn = cube_min(OB, OH - oh0), r0 = oh0 * SH - PH, nrows = (ohn - 1) * SH + (KH - 1) * DH + 1;
      for (int64_t rr = 0; rr < nrows; ++rr) {
        float* e = rb + rr * 2 * HW;
        const int64_t ih = r0 + rr, s = xb + ih * IW;
        const int in = ih >= 0 && ih < IH;
        for (int64_t j0 = 0; j0 < HW; j0 += 16) {
          atck_v16f lo = pv, hi = pv;
          if (in) {
            pool_s2_ld((const uint16_t*)X, total, s, 2 * j0 - PW, IW, pf, &lo);
            pool_s2_ld((const uint16_t*)X, total, s, 2 * j0 + 16 - PW, IW, pf, &hi);
          }
          atck_st16(e + j0, __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30));
          atck_st16(e + HW + j0,
                    __builtin_shufflevector(lo, hi, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31));
        }
      }
      for (int64_t oh = oh0; oh < oh0 + ohn; ++oh) {
        const int64_t h0 = oh * SH - PH;
        const float ch = kind == 1 ? (float)pool_count(P, h0, KH, DH, PH, IH, P[PL_EH]) : 1.0f;
        for (int64_t ow0 = 0; ow0 < OW; ow0 += 16) {
          atck_v16f acc = pv;
          for (int64_t kh = 0; kh < KH; ++kh) {
            const float* r = rb + (h0 + kh * DH - r0) * 2 * HW + ow0;
            for (int64_t kw = 0; kw < KW; ++kw) {
              const atck_v16f v = atck_ld16(r + (kw * DW) % 2 * HW + (kw * DW) / 2);
              if (kind == 0) acc = v > acc ? v : acc;
              else acc += v;
            }
          }
          if (kind == 1) {
            const atck_v16f dv = atck_splat16(ch) * atck_ld16(wd + ow0);
            const atck_v16f q = acc / (dv > atck_splat16(0.0f) ? dv : atck_splat16(1.0f));
            acc = dv > atck_splat16(0.0f) ? q : atck_splat16(0.0f);
          }
          cube_store16_dt(dt, Y, (pl * OH + oh) * OW + ow0, acc, cube_min(16, OW - ow0));
        }
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
      pool_band_planes(P, bufs, begin, task * P[PL_PLANES_PER_TASK],
                       cube_min(NC, (task + 1) * P[PL_PLANES_PER_TASK]));
    return;
  }
  // Global max / average pool (the window is the whole unpadded plane of at least 16 elements): a
  // contiguous reduction in four 16-lane accumulators (a 7x7 plane: three vectors and one element).
  // The scalar loop below is one dependent add per element (a 56x56x144 GlobalAveragePool took
  // 0.2 ms; 576 7x7 planes 3x their vector time). Sums are reassociated (float rounding differs
  // from the scalar order in the last bits); max keeps the scalar rule (NaN never replaces).
  if (OPIX == 1 && kind <= 1 && !Ind && KD == ID && KH == IH && KW == IW && PD == 0 && PH == 0 && PW == 0 &&
      IPIX >= 16) {
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
      for (; i + 16 <= IPIX; i += 16) {  // the last whole vectors
        atck_v16f v;
        for (int l = 0; l < 16; ++l) v[l] = pool_ld(X, ib + i + l, dt);
        if (kind == 0) a[0] = v > a[0] ? v : a[0];
        else a[0] += v;
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
  // pool_f16_rows_s2's phase rows: ceil16(OW) + (KW - 1) * DW / 2 floats, rounded up to 16.
  const int64_t HW2 = ((OW + 15) / 16 * 16 + (KW - 1) * DW / 2 + 15) / 16 * 16;
  if (dt == ATCK_F16 && SW == 2 && kind <= 1 && !Ind && ID == 1 && OD == 1 && KD == 1 && PD == 0 &&
      ((KH - 1) * DH + 1) * 2 * HW2 <= POOL_F16_ROWBUF) {  // one output row's input rows fit
    float rb[POOL_F16_ROWBUF], wd[POOL_F16_ROWBUF / 2];
    pool_f16_rows_s2(P, X, Y, pl0, pl1, HW2, rb, wd);
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
