// Kernel "qconv": integer convolution of ConvInteger and QLinearConv (params: quant_params.h
// QConvParam). Direct convolution: one task per (image, output channel) accumulates
// (x - x_zp) * (w - w_zp[oc]) in an int32 plane (Y itself for int32 outputs, else the task's workspace slot), one weight tap
// at a time over contiguous output rows (vectorised over output columns), then adds the int32
// bias and runs the output stage. Padding contributes nothing (a padded x equals its zero
// point), so out-of-range taps are skipped. bufs: X, [x_scale, x_zp], W, ..., Y, workspace.
#include "kernels/lib/quant_common.h"

ATC_KERNEL(qconv)

int64_t atck_qconv_ntasks(const int64_t* P) { return P[QC_N] * P[QC_OC]; }

// Output columns [lo, hi) whose input column ow*S + off lies in [0, I).
static inline ATCK_INLINE void qconv_cols(int64_t off, int64_t S, int64_t I, int64_t O, int64_t* lo, int64_t* hi) {
  *lo = off >= 0 ? 0 : (-off + S - 1) / S;
  *hi = I - 1 - off < 0 ? 0 : (I - 1 - off) / S + 1;
  if (*hi > O) *hi = O;
  if (*lo > *hi) *lo = *hi;
}

static inline ATCK_INLINE void qconv_accumulate(const int64_t* P, void** bufs, int64_t n, int64_t oc, int32_t* acc) {
  const int64_t C = P[QC_C], OC = P[QC_OC], G = P[QC_G], cg = C / G, g = oc / (OC / G);
  const int64_t ID = P[QC_ID], IH = P[QC_IH], IW = P[QC_IW], OD = P[QC_OD], OH = P[QC_OH], OW = P[QC_OW];
  const int64_t KD = P[QC_KD], KH = P[QC_KH], KW = P[QC_KW];
  const void* X = bufs[P[QC_XBUF]];
  const void* Wt = bufs[P[QC_WBUF]];
  const int64_t xdt = P[QC_XDT], wdt = P[QC_WDT];
  const int32_t xzp = atck_q_zp(P + QC_XW, bufs, 0), wzp = atck_q_zp(P + QC_WW, bufs, oc);
  for (int64_t i = 0; i < OD * OH * OW; ++i) acc[i] = 0;
  for (int64_t ic = 0; ic < cg; ++ic) {
    const int64_t xc = (n * C + g * cg + ic) * ID;
    for (int64_t kd = 0; kd < KD; ++kd)
      for (int64_t kh = 0; kh < KH; ++kh)
        for (int64_t kw = 0; kw < KW; ++kw) {
          const int64_t widx = (((oc * cg + ic) * KD + kd) * KH + kh) * KW + kw;
          const int32_t wv = atck_q_ld(Wt, wdt, widx) - wzp;
          if (wv == 0) continue;
          int64_t c0, c1;
          const int64_t offw = kw * P[QC_DW] - P[QC_PW];
          qconv_cols(offw, P[QC_SW], IW, OW, &c0, &c1);
          for (int64_t od = 0; od < OD; ++od) {
            const int64_t id = od * P[QC_SD] - P[QC_PD] + kd * P[QC_DD];
            if (id < 0 || id >= ID) continue;
            for (int64_t oh = 0; oh < OH; ++oh) {
              const int64_t ih = oh * P[QC_SH] - P[QC_PH] + kh * P[QC_DH];
              if (ih < 0 || ih >= IH) continue;
              const int64_t xr = ((xc + id) * IH + ih) * IW + offw;
              int32_t* ar = acc + (od * OH + oh) * OW;
              const int64_t sw = P[QC_SW];
              for (int64_t ow = c0; ow < c1; ++ow)
                ar[ow] = (int32_t)((uint32_t)ar[ow] + (uint32_t)wv * (uint32_t)(atck_q_ld(X, xdt, xr + ow * sw) - xzp));
            }
          }
        }
  }
}

void atck_qconv_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t OC = P[QC_OC], plane = P[QC_OD] * P[QC_OH] * P[QC_OW];
  void* Y = bufs[P[QC_YBUF]];
  const AtckQOut q = atck_qout(P[QC_MODE], P[QC_YDT], P[QC_YZBUF], P[QC_YZDT], P[QC_YSBUF], P[QC_YSDT], bufs);
  for (int64_t t = begin; t < end; ++t) {
    const int64_t n = t / OC, oc = t % OC;
    // int32 outputs accumulate in place; requantized ones in the task's workspace slot.
    int32_t* acc = q.mode == QO_INT32
                       ? (int32_t*)Y + t * plane
                       : (int32_t*)((((uintptr_t)bufs[P[QC_YBUF] + 1] + 63) & ~(uintptr_t)63) + t * P[QC_SLOT]);
    qconv_accumulate(P, bufs, n, oc, acc);
    const int32_t bias = P[QC_BBUF] >= 0 ? ((const int32_t*)bufs[P[QC_BBUF]])[oc] : 0;
    const float mult = q.mode == QO_REQUANT
                           ? (atck_q_scale(P + QC_XW, bufs, 0) * atck_q_scale(P + QC_WW, bufs, oc)) / q.yscale
                           : 0.0f;
    const int64_t y0 = t * plane;
    for (int64_t i = 0; i < plane; ++i)
      atck_qstore(q, Y, y0 + i, (int32_t)((uint32_t)acc[i] + (uint32_t)bias), mult);
  }
}
