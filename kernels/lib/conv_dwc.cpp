// conv_dwc: depthwise 2-D convolution (G == C == OC) with 16 channels in the vector lanes, for
// rows of fewer than 28 outputs (and 28 from a strided input: ops/cube/conv.cpp
// useDepthwiseLanes), where the plane-per-task kernel conv_dw spends its 16 lanes on rows of 7
// or 14 outputs and its time on per-row copies. NCHW in and out, X f32/f16/bf16 (CV_DTYPE), Y
// f32/f16/bf16 (CV_ODT); W prepacked at compile time as [ceil(C/16)][KH*KW][16] float32 (zero
// past C, ops/cube/conv.cpp packDepthwiseLanes).
// A unit is (n, block of 16 channels), taken in bands of CV_MB output rows:
//   1. the band's input rows are transposed into a zero-padded pixel-major tile
//      [CV_PADH][CV_PADW][16] (16x16 register transposes, cube_transpose16_regs; chunks of 16
//      pixels of a row);
//   2. each output pixel is one vector of 16 channels: KH*KW multiply-adds of a weight vector
//      by an input pixel vector, 8 output pixels at a time (4 on 256-bit targets, CV_MR), each
//      its own accumulator; the activation runs here, on 16 useful lanes, unless a residual
//      must be added first;
//   3. the band's outputs (pixel-major, [ceil16(CV_MB*OW)][16]) are transposed back in chunks of
//      16 pixels, which are contiguous in each NCHW output plane: whole-vector stores.
// Units per task: CV_KC (0 reads as 1); a task's units reuse its workspace slot (CV_SLOT floats:
// the input tile, then the output tile). Params: CubeConvParam (cube_params.h). bufs: X, W, [B],
// Y, workspace.
#include "kernels/lib/cube_gemm.h"
#include "kernels/lib/cube_params.h"
#include "kernels/lib/cube_ukoc.h"

ATC_KERNEL(conv_dwc)

static inline ATCK_INLINE int64_t dwc_upt(const int64_t* P) { return P[CV_KC] > 0 ? P[CV_KC] : 1; }
static inline ATCK_INLINE int64_t dwc_units(const int64_t* P) { return P[CV_N] * ((P[CV_C] + 15) / 16); }

int64_t atck_conv_dwc_ntasks(const int64_t* P) { return (dwc_units(P) + dwc_upt(P) - 1) / dwc_upt(P); }

// Input rows [r0, r0 + rows) of channels c0.. (n's planes at xoff) into the padded pixel-major
// tile: tile[rr][q] = X[c][r0 + rr][q - PW] (channels past C repeat the last one), 0 outside.
static inline ATCK_INLINE void dwc_fill(const int64_t* P, const void* X, int64_t xoff, int64_t nc, int64_t r0,
                                        int64_t rows, float* tile) {
  const int64_t IH = P[CV_IH], IW = P[CV_IW], PW = P[CV_PW], PADW = P[CV_PADW], xdt = P[CV_DTYPE];
  const int64_t total = P[CV_N] * P[CV_C] * IH * IW, plane = IH * IW;
  const int64_t hi = cube_min(IW, PADW - PW);  // input columns that land in the tile
  const atck_v16f z = atck_splat16(0.0f);
  for (int64_t rr = 0; rr < rows; ++rr) {
    float* d = tile + rr * PADW * 16;
    const int64_t ih = r0 + rr;
    if (ih < 0 || ih >= IH || hi <= 0) {
      for (int64_t q = 0; q < PADW; ++q) {
        atck_st16(d + q * 16, z);
        __asm__ volatile("");  // no memset call (cube_copy_f32)
      }
      continue;
    }
    for (int64_t q = 0; q < cube_min(PW, PADW); ++q) atck_st16(d + q * 16, z);  // PW > PADW: IW + end pad < SW
    for (int64_t q = PW + hi; q < PADW; ++q) atck_st16(d + q * 16, z);
    for (int64_t j0 = 0; j0 < hi; j0 += 16) {
      const int64_t cnt = cube_min(16, hi - j0);
      atck_v16f a[16], b[16];
      const int64_t o0 = xoff + ih * IW + j0;
      if (o0 + (nc - 1) * plane + 16 <= total) {  // whole vectors (lanes past the row: ignored)
        for (int l = 0; l < 16; ++l) a[l] = cube_load16_dt(xdt, X, o0 + (l < nc ? l : nc - 1) * plane);
      } else {  // the tensor's last row: no read past its end
        for (int l = 0; l < 16; ++l) {
          float t[16];
          for (int q = 0; q < 16; ++q) t[q] = q < cnt ? cube_ldx(X, xdt, o0 + (l < nc ? l : nc - 1) * plane + q) : 0.0f;
          a[l] = atck_ld16(t);
        }
      }
      cube_transpose16_regs(a, b);
      for (int64_t p = 0; p < cnt; ++p) {
        atck_st16(d + (PW + j0 + p) * 16, a[p]);
        __asm__ volatile("");
      }
    }
  }
}

// Output rows [oh0, oh0 + ohn) of the band into out[(oh - oh0) * OW + ow][16]: NP pixels at a
// time along each row (the last group of a row repeats its last pixel).
template <int NP>
static inline ATCK_INLINE void dwc_compute(const int64_t* P, const float* tile, const float* w, atck_v16f bias,
                                           int64_t ohn, int act, float* out) {
  const int64_t OW = P[CV_OW], KH = P[CV_KH], KW = P[CV_KW], SH = P[CV_SH], SW = P[CV_SW];
  const int64_t DH = P[CV_DH], DW = P[CV_DW], PADW = P[CV_PADW];
  for (int64_t r = 0; r < ohn; ++r)
    for (int64_t ow0 = 0; ow0 < OW; ow0 += NP) {
      int64_t col[NP];
      for (int p = 0; p < NP; ++p) col[p] = (ow0 + p < OW ? ow0 + p : OW - 1) * SW * 16;
      atck_v16f acc[NP];
      for (int p = 0; p < NP; ++p) acc[p] = bias;
      for (int64_t kh = 0; kh < KH; ++kh) {
        const float* row = tile + (r * SH + kh * DH) * PADW * 16;
        for (int64_t kw = 0; kw < KW; ++kw) {
          const atck_v16f wv = atck_ld16(w + (kh * KW + kw) * 16);
          const float* rk = row + kw * DW * 16;
          for (int p = 0; p < NP; ++p) acc[p] += wv * atck_ld16(rk + col[p]);
        }
      }
      float* o = out + (r * OW + ow0) * 16;
      for (int p = 0; p < NP; ++p) {
        if (act) acc[p] = cube_epi16(P + CV_EPI, acc[p], 0);
        if (ow0 + p < OW) atck_st16(o + p * 16, acc[p]);
      }
    }
}

// The band's npx pixels back to NCHW: 16 pixels at a time, transposed into one vector per
// channel; the residual and activation here when the tile holds raw sums (res).
static inline ATCK_INLINE void dwc_store(const int64_t* P, void** bufs, const float* out, int64_t yoff, int64_t nc,
                                         int64_t npx, int res) {
  const int64_t OHW = P[CV_OH] * P[CV_OW], ydt = P[CV_ODT] ? P[CV_ODT] : ATCK_F32;
  void* Y = bufs[P[CV_YIDX]];
  const float* R = res ? (const float*)bufs[P[CV_EPI + 3] - 1] : 0;
  for (int64_t j0 = 0; j0 < npx; j0 += 16) {
    const int64_t cnt = cube_min(16, npx - j0);
    atck_v16f a[16], b[16];
    for (int p = 0; p < 16; ++p) {  // the empty asm: no memcpy of the 16 rows (cube_copy_f32)
      a[p] = atck_ld16(out + (j0 + p) * 16);
      __asm__ volatile("");
    }
    cube_transpose16_regs(a, b);
    for (int64_t c = 0; c < nc; ++c) {
      const int64_t o = yoff + c * OHW + j0;
      atck_v16f v = a[c];
      if (res) {
        float rt[16];
        for (int l = 0; l < 16; ++l) rt[l] = 0.0f;
        cube_copy_f32(rt, R + o, cnt);
        v = cube_epi16(P + CV_EPI, v, rt);
      }
      cube_store16_dt(ydt, Y, o, v, cnt);
    }
  }
}

void atck_conv_dwc_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t C = P[CV_C], CB = (C + 15) / 16, IHW = P[CV_IH] * P[CV_IW], OH = P[CV_OH], OW = P[CV_OW];
  const int64_t KH = P[CV_KH], SH = P[CV_SH], DH = P[CV_DH], PH = P[CV_PH], MB = P[CV_MB];
  const int64_t upt = dwc_upt(P), units = dwc_units(P);
  const float* W = (const float*)bufs[1];
  const float* Bias = P[CV_HAS_BIAS] ? (const float*)bufs[2] : 0;
  const int res = P[CV_EPI + 3] != 0, act = !res && P[CV_EPI] != 0;
  const int wide = P[CV_MR] == CUBE_MR_WIDE;
  for (int64_t tk = begin; tk < end; ++tk) {
    float* tile = cube_align(bufs[P[CV_YIDX] + 1]) + tk * P[CV_SLOT];
    float* out = tile + P[CV_PADH] * P[CV_PADW] * 16;
    for (int64_t u = tk * upt; u < cube_min(units, (tk + 1) * upt); ++u) {
      const int64_t n = u / CB, c0 = (u % CB) * 16, nc = cube_min(16, C - c0);
      const float* w = W + (u % CB) * P[CV_KH] * P[CV_KW] * 16;
      float bt[16];
      for (int l = 0; l < 16; ++l) bt[l] = Bias && l < nc ? Bias[c0 + l] : 0.0f;
      const atck_v16f bias = atck_ld16(bt);
      for (int64_t oh0 = 0; oh0 < OH; oh0 += MB) {
        const int64_t ohn = cube_min(MB, OH - oh0);
        dwc_fill(P, bufs[0], (n * C + c0) * IHW, nc, oh0 * SH - PH, (ohn - 1) * SH + (KH - 1) * DH + 1, tile);
        if (wide) dwc_compute<8>(P, tile, w, bias, ohn, act, out);
        else dwc_compute<4>(P, tile, w, bias, ohn, act, out);
        dwc_store(P, bufs, out, (n * C + c0) * OH * OW + oh0 * OW, nc, ohn * OW, res);
      }
    }
  }
}
