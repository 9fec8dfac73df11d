// conv: grouped N-d convolution (NCDHW, 1-3 spatial dims) as an implicit GEMM.
// Per group: Y[M=OC/G][pixels] = W[M][K = C/G*KD*KH*KW] x col[K][pixels] (+ bias).
// W is the broadcast operand (pre-packed into MR-row panels at compile time, MR = P[CV_MR]). 1-D/2-D convs
// other than plain 1x1 ones take the band path (conv_band_task: taps read in place from a
// zero-padded band of input rows); the others build an im2col block of NB output pixels x KC
// rows per task in the workspace (a plain row copy for 1x1 stride-1 convs). The MRx16
// microkernel of the target's family (cube_gemm.h) runs over either. Params: CubeConvParam (cube_params.h).
// bufs: X, W, [B], Y, workspace.
#include "kernels/lib/cube_gemm.h"
#include "kernels/lib/cube_params.h"
#include "kernels/lib/conv_band.h"
#include "kernels/lib/conv_ocm.h"
#include "kernels/lib/conv_amx.h"

ATC_KERNEL(conv)

int64_t atck_conv_ntasks(const int64_t* P) {
  return P[CV_N] * P[CV_G] * P[CV_MBLOCKS] * P[CV_NBLOCKS];
}

// Fills dst[kk][ldb] (kk < kc) with im2col rows k0..k0+kc of output pixels p0..p0+np,
// zero padding columns np..round_up(np, 16).
// `X` + `inOff` elements: the input plane of (n, group); its dtype is P[CV_DTYPE] (f32/f16/bf16).
static inline ATCK_INLINE void conv_im2col(const int64_t* P, const void* X, int64_t inOff, int64_t k0,
                                           int64_t kc, int64_t p0, int64_t np, float* dst,
                                           int64_t ldb) {
  const int64_t ID = P[CV_ID], IH = P[CV_IH], IW = P[CV_IW];
  const int64_t OD = P[CV_OD], OH = P[CV_OH], OW = P[CV_OW];
  const int64_t KD = P[CV_KD], KH = P[CV_KH], KW = P[CV_KW];
  const int64_t SD = P[CV_SD], SH = P[CV_SH], SW = P[CV_SW];
  const int64_t DD = P[CV_DD], DH = P[CV_DH], DW = P[CV_DW];
  const int64_t PD = P[CV_PD], PH = P[CV_PH], PW = P[CV_PW];
  const int64_t npad = (np + 15) & ~(int64_t)15;
  if (KD * KH * KW == 1 && SD * SH * SW == 1 && PD == 0 && PH == 0 && PW == 0 && OD == ID && OH == IH &&
      OW == IW) {  // 1x1, stride 1, unpadded: row k is input channel k, pixels p0.. contiguous
    const int64_t xdt = P[CV_DTYPE];
    for (int64_t kk = 0; kk < kc; ++kk) {
      float* d = dst + kk * ldb;
      const int64_t src = inOff + (k0 + kk) * ID * IH * IW + p0;
      if (xdt == ATCK_F32) {
        const float* sf = (const float*)X + src;
        for (int64_t l = 0; l < np; ++l) d[l] = sf[l];
      } else {
        ATCK_VEC16
        for (int64_t l = 0; l < np; ++l) d[l] = cube_ldx(X, xdt, src + l);
      }
      for (int64_t l = np; l < npad; ++l) d[l] = 0.0f;
    }
    return;
  }
  for (int64_t kk = 0; kk < kc; ++kk) {
    int64_t k = k0 + kk;
    int64_t kw = k % KW, t = k / KW;
    int64_t kh = t % KH;
    t /= KH;
    int64_t kd = t % KD, ic = t / KD;
    const int64_t xdt = P[CV_DTYPE];
    const int64_t src = inOff + ic * ID * IH * IW;
    float* d = dst + kk * ldb;
    int64_t ow = p0 % OW, oh = (p0 / OW) % OH, od = p0 / (OW * OH);
    int64_t j = 0;
    while (j < np) {
      int64_t seg = cube_min(OW - ow, np - j);
      int64_t id = od * SD - PD + kd * DD, ih = oh * SH - PH + kh * DH;
      float* dj = d + j;
      if (id < 0 || id >= ID || ih < 0 || ih >= IH) {
        for (int64_t l = 0; l < seg; ++l) dj[l] = 0.0f;
      } else {
        const int64_t row = src + (id * IH + ih) * IW;
        int64_t iw0 = ow * SW - PW + kw * DW;
        // l in [lo, hi) reads inside the row.
        int64_t lo = iw0 >= 0 ? 0 : (-iw0 + SW - 1) / SW;
        int64_t hi = IW - iw0 <= 0 ? 0 : (IW - iw0 + SW - 1) / SW;
        if (lo > seg) lo = seg;
        if (hi > seg) hi = seg;
        if (hi < lo) hi = lo;
        for (int64_t l = 0; l < lo; ++l) dj[l] = 0.0f;
        const int64_t r = row + iw0;
        if (SW == 1) {
          ATCK_VEC16
          for (int64_t l = lo; l < hi; ++l) dj[l] = cube_ldx(X, xdt, r + l);
        } else {
          for (int64_t l = lo; l < hi; ++l) dj[l] = cube_ldx(X, xdt, r + l * SW);
        }
        for (int64_t l = hi; l < seg; ++l) dj[l] = 0.0f;
      }
      j += seg;
      ow = 0;
      if (++oh == OH) {
        oh = 0;
        ++od;
      }
    }
    for (int64_t l = np; l < npad; ++l) d[l] = 0.0f;
  }
}

// Band path (CV_BAND, 1-D/2-D convs other than plain 1x1 ones). Im2col row k = (ic, kh, kw)
// of output pixel (oh0 + r, ow) is the band float at off[k] + r * PQ + ow (conv_band_fill):
// a tile is 16 consecutive grid positions q = r * PQ + ow, read in place by the microkernel
// (cube_ukernel_off), and may span output rows; positions with ow >= OW are computed and
// dropped (a 7-wide output row of a stride-2 conv fills 7 of 8 positions). Tiles accumulate in
// an fp32 block acc[MB][NQ]; after the last K block each output row is copied out (epilogue,
// dtype rounding on store).
static inline ATCK_INLINE void conv_band_task(const int64_t* P, void** bufs, int64_t task, float* slot) {
  const int64_t G = P[CV_G], C = P[CV_C], OC = P[CV_OC];
  const int64_t M = OC / G, Cg = C / G, KH = P[CV_KH], KW = P[CV_KW];
  const int64_t MR = cube_mr(P[CV_MR]);
  const int64_t K = Cg * KH * KW, MP = (M + MR - 1) / MR;
  const int64_t OH = P[CV_OH], OW = P[CV_OW], NPIX = OH * OW;
  const int64_t MB = P[CV_MB], KC = P[CV_KC], MSUB = P[CV_MSUB];
  const int64_t PQ = P[CV_PQ], NQ = P[CV_NQ];
  const int hasBias = (int)P[CV_HAS_BIAS];
  int64_t nb, mb, g, n;
  conv_task_coords(P, task, &nb, &mb, &g, &n);
  const int64_t oh0 = nb * P[CV_BROWS], rows = cube_min(P[CV_BROWS], OH - oh0);
  const int64_t m0 = mb * MB, mEnd = cube_min(M, m0 + MB);
  if (rows <= 0 || m0 >= mEnd) return;
  int32_t* off = (int32_t*)slot;
  float* band = slot + P[CV_BAND_OFF];
  float* acc = slot + P[CV_ACC];
  conv_band_offsets(P, K, off);
  conv_band_fill(P, bufs[0], (n * C + g * Cg) * P[CV_IH] * P[CV_IW], oh0, rows, band);
  // TW grid positions (all output rows of the task) in tiles of 16.
  const int64_t TW = ((rows - 1) * PQ + OW + CUBE_NR - 1) / CUBE_NR * CUBE_NR;
  const float* W = (const float*)bufs[1];
  const float* Bias = hasBias ? (const float*)bufs[2] + g * M : 0;
  float apanel[CUBE_MR_MAX * 512];
  for (int64_t k0 = 0; k0 < K; k0 += KC) {
    const int64_t kc = cube_min(KC, K - k0);
    const int init0 = k0 > 0 ? CUBE_INIT_ACC : (hasBias ? CUBE_INIT_ROWBIAS : CUBE_INIT_ZERO);
    for (int64_t ms = m0; ms < mEnd; ms += MSUB) {
      const int64_t msEnd = cube_min(mEnd, ms + MSUB);
      for (int64_t j = 0; j < TW; j += CUBE_NR) {
        for (int64_t m = ms; m < msEnd; m += MR) {
          const int64_t mr = cube_min(MR, msEnd - m);
          const float* Ap = apanel;
          if (P[CV_W_PACKED]) Ap = W + ((g * MP + m / MR) * K + k0) * MR;
          else cube_pack_a_f32(W + g * M * K, K, 1, m, mr, k0, kc, 1.0f, apanel, MR);
          float pb[CUBE_MR_MAX];
          for (int64_t i = 0; i < MR; ++i) pb[i] = Bias && i < mr ? Bias[m + i] : 0.0f;
          // Rows mr..MR of the accumulator block are padding (acc holds MB = a multiple of MR rows).
          cube_ukernel_off_mr(MR, kc, Ap, band + j, off + k0, acc + (m - m0) * NQ + j, NQ, init0, pb);
        }
      }
    }
  }
  conv_acc_rows_store(P, bufs, acc, NQ, PQ, m0, mEnd, rows, OW, (n * OC + g * M) * NPIX + oh0 * OW);
}

void atck_conv_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t G = P[CV_G], C = P[CV_C], OC = P[CV_OC];
  const int64_t M = OC / G, Cg = C / G;
  const int64_t K = Cg * P[CV_KD] * P[CV_KH] * P[CV_KW];
  const int64_t NPIX = P[CV_OD] * P[CV_OH] * P[CV_OW];
  const int64_t IPIX = P[CV_ID] * P[CV_IH] * P[CV_IW];
  const int64_t MR = cube_mr(P[CV_MR]);
  const int64_t MP = (M + MR - 1) / MR;
  const int64_t MB = P[CV_MB], NB = P[CV_NB], KC = P[CV_KC], MSUB = P[CV_MSUB];
  const int64_t LDB = P[CV_LDB];
  const int hasBias = (int)P[CV_HAS_BIAS];
  const float* X = (const float*)bufs[0];
  const float* W = (const float*)bufs[1];
  const float* Bias = hasBias ? (const float*)bufs[2] : 0;
  float* Y = (float*)bufs[P[CV_YIDX]];
  float* ws = cube_align(bufs[P[CV_YIDX] + 1]);
  // Reduced-precision Y (f16/bf16): tiles accumulate in an fp32 block of the task slot and
  // are rounded on store after the epilogue.
  const int64_t ydt = P[CV_ODT] ? P[CV_ODT] : ATCK_F32;
  const int red = ydt != ATCK_F32;
  // One workspace slot per call (the chunk's first task), reused by every task of the chunk:
  // a thread's scratch stays in its cache instead of walking ntasks slots.
  float* slot = ws + begin * P[CV_SLOT];
  if (P[CV_AMX]) {
    conv_amx_range(P, bufs, begin, end, slot);
    return;
  }
  for (int64_t task = begin; task < end; ++task) {
    if (P[CV_OCM]) {
      conv_ocm_task(P, bufs, task, slot);
      continue;
    }
    if (P[CV_BAND]) {
      conv_band_task(P, bufs, task, slot);
      continue;
    }
    int64_t nb, mb, g, n;
    conv_task_coords(P, task, &nb, &mb, &g, &n);
    const int64_t inOff = (n * C + g * Cg) * IPIX;
    const int64_t outOff = (n * OC + g * M) * NPIX;
    float* out = red ? 0 : Y + outOff;
    const int64_t m0 = mb * MB, mEnd = cube_min(M, m0 + MB);
    const int64_t p0 = nb * NB, np = cube_min(NPIX, p0 + NB) - p0;
    if (m0 >= mEnd || np <= 0) continue;
    float* wsB = slot;
    float* acc = wsB + P[CV_ACC];  // red: [MB][NB] fp32, row m - m0
    float apanel[CUBE_MR_MAX * 512];
    for (int64_t k0 = 0; k0 < K; k0 += KC) {
      const int64_t kc = cube_min(KC, K - k0);
      conv_im2col(P, X, inOff, k0, kc, p0, np, wsB, LDB);
      const int init0 = k0 > 0 ? CUBE_INIT_ACC : (hasBias ? CUBE_INIT_ROWBIAS : CUBE_INIT_ZERO);
      for (int64_t ms = m0; ms < mEnd; ms += MSUB) {
        const int64_t msEnd = cube_min(mEnd, ms + MSUB);
        for (int64_t j = 0; j < np; j += CUBE_NR) {
          const int64_t nr = cube_min(CUBE_NR, np - j);
          const float* Bp = wsB + j;
          const int64_t ldb = LDB;
          for (int64_t m = ms; m < msEnd; m += MR) {
            const int64_t mr = cube_min(MR, msEnd - m);
            const float* Ap;
            if (P[CV_W_PACKED]) {
              Ap = W + ((g * MP + m / MR) * K + k0) * MR;
            } else {
              cube_pack_a_f32(W + g * M * K, K, 1, m, mr, k0, kc, 1.0f, apanel, MR);
              Ap = apanel;
            }
            if (red) {
              float* at = acc + (m - m0) * NB + j;
              cube_tile_mr(MR, kc, Ap, Bp, ldb, at, NB, mr, nr, init0, hasBias ? Bias + g * M + m : 0, 1, MR);
              if (k0 + kc >= K)
                cube_store_dt(P + CV_EPI, bufs, ydt, bufs[P[CV_YIDX]], outOff + m * NPIX + p0 + j, NPIX, at, NB, mr, nr);
              continue;
            }
            cube_tile_mr(MR, kc, Ap, Bp, ldb, out + m * NPIX + p0 + j, NPIX, mr, nr, init0,
                         hasBias ? Bias + g * M + m : 0, 1, MR);
            if (k0 + kc >= K) cube_epilogue(P + CV_EPI, bufs, Y, out + m * NPIX + p0 + j, NPIX, mr, nr);
          }
        }
      }
    }
  }
}

// conv_dw: depthwise 2-D convolution (G == C == OC), NCHW; X f32/f16/bf16 (CV_DTYPE, converted
// in the padded copy), W and bias f32, Y f32/f16/bf16 (CV_ODT, rounded on store). One task per (n, c)
// plane, taken in bands of CV_MB output rows: the band's input rows are copied into a
// zero-padded workspace tile (<= 32 KB, so it stays in cache from copy to use), then each
// output row is computed 16 pixels at a time with all KHxKW taps accumulated in registers. With a column
// stride SW > 1 each padded row is stored as SW phases (columns q = j * SW + ph at
// [ph][j]), so every tap reads 16 contiguous floats instead of a strided gather (measured:
// MobileNetV2's 112x112x96 stride-2 layer 1.99 -> 0.2 ms).
// conv_dw, the output rows [oh0, oh0 + ohn) of one plane from its padded band, for epilogues
// computed in a register: RG rows x CG 16-lane chunks at a time, so the KHxKW taps feed RG*CG
// independent accumulators (one chunk alone is a chain of dependent FMAs: 9 x 4 cycles of latency
// for 9 FMAs). Rows of 16 or more outputs are covered by whole chunks, the last one overlapping
// its neighbour (OW - 16), so every store is a full vector; narrower rows store 16 lanes too, the
// lanes past the row landing in the next rows before they are written (same task, rows in
// order), except where the 16 lanes would leave the plane. Missing rows and chunks of a group repeat the last ones.
template <int CG, int RG>
static inline ATCK_INLINE void conv_dw_rows(const int64_t* P, void** bufs, const float* pad, const float* w, float b,
                                            int64_t task, int64_t oh0, int64_t ohn) {
  const int64_t OH = P[CV_OH], OW = P[CV_OW], KH = P[CV_KH], KW = P[CV_KW], SH = P[CV_SH], SW = P[CV_SW];
  const int64_t DH = P[CV_DH], DW = P[CV_DW], PQ = (P[CV_PADW] + SW - 1) / SW, RS = PQ * SW;
  const int64_t ydt = P[CV_ODT] ? P[CV_ODT] : ATCK_F32, ri = P[CV_EPI + 3] - 1;
  const int64_t nch = OW >= 16 ? (OW + 15) / 16 : 1;
  for (int64_t oh = oh0; oh < oh0 + ohn; oh += RG)
    for (int64_t c0 = 0; c0 < nch; c0 += CG) {
      int64_t row[RG], col[CG];
      cube_row_group<RG, CG>(oh, oh0, ohn, c0, nch, OW, row, col);
      atck_v16f acc[RG][CG];
      for (int r = 0; r < RG; ++r)
        for (int j = 0; j < CG; ++j) acc[r][j] = atck_splat16(b);
      for (int64_t kh = 0; kh < KH; ++kh)
        for (int64_t kw = 0; kw < KW; ++kw) {
          const atck_v16f wv = atck_splat16(w[kh * KW + kw]);
          const int64_t tap = kh * DH * RS + ((kw * DW) % SW) * PQ + (kw * DW) / SW;
          for (int r = 0; r < RG; ++r) {
            const float* rp = pad + (row[r] - oh0) * SH * RS + tap;
            for (int j = 0; j < CG; ++j) acc[r][j] += wv * atck_ld16(rp + col[j]);
          }
        }
      for (int r = 0; r < RG; ++r)
        for (int j = 0; j < CG; ++j) {
          const int64_t yoff = (task * OH + row[r]) * OW + col[j];
          // A narrow row's 16 lanes must end inside the plane (a 7-wide row's reach the row after next).
          const int64_t nv = OW >= 16 || row[r] * OW + 16 <= OH * OW ? 16 : OW;
          const float* R = ri >= 0 ? (const float*)bufs[ri] + yoff : 0;
          float rt[16];
          if (ri >= 0 && nv < 16) {  // the plane's last narrow rows: their residual may end the buffer
            for (int l = 0; l < 16; ++l) rt[l] = 0.0f;
            cube_copy_f32(rt, R, nv);
            R = rt;
          }
          cube_store16_dt(ydt, bufs[P[CV_YIDX]], yoff, cube_epi16(P + CV_EPI, acc[r][j], R), nv);
        }
    }
}

// Row groups by the row's chunk count, 8 accumulators on 512-bit targets (CV_MR 16), 4 otherwise
// (16 ymm registers).
static inline ATCK_INLINE void conv_dw_band(const int64_t* P, void** bufs, const float* pad, const float* w, float b,
                                            int64_t task, int64_t oh0, int64_t ohn) {
  const int64_t OW = P[CV_OW], nch = OW >= 16 ? (OW + 15) / 16 : 1;
  const int wide = P[CV_MR] == CUBE_MR_WIDE;
  if (nch >= 3) {
    if (wide) conv_dw_rows<4, 2>(P, bufs, pad, w, b, task, oh0, ohn);
    else conv_dw_rows<4, 1>(P, bufs, pad, w, b, task, oh0, ohn);
  } else if (nch == 2) {
    if (wide) conv_dw_rows<2, 4>(P, bufs, pad, w, b, task, oh0, ohn);
    else conv_dw_rows<2, 2>(P, bufs, pad, w, b, task, oh0, ohn);
  } else {
    if (wide) conv_dw_rows<1, 8>(P, bufs, pad, w, b, task, oh0, ohn);
    else conv_dw_rows<1, 4>(P, bufs, pad, w, b, task, oh0, ohn);
  }
}

ATC_KERNEL(conv_dw)

// CV_NB planes per task (0 reads as 1): tasks share nothing, and a task's planes reuse its
// workspace slot, so the slots the kernel touches stay few (cache-resident).
static inline ATCK_INLINE int64_t conv_dw_ppt(const int64_t* P) { return P[CV_NB] > 0 ? P[CV_NB] : 1; }

int64_t atck_conv_dw_ntasks(const int64_t* P) { return (P[CV_N] * P[CV_C] + conv_dw_ppt(P) - 1) / conv_dw_ppt(P); }

void atck_conv_dw_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t C = P[CV_C];
  const int64_t IH = P[CV_IH], IW = P[CV_IW], OH = P[CV_OH], OW = P[CV_OW];
  const int64_t KH = P[CV_KH], KW = P[CV_KW], SH = P[CV_SH], SW = P[CV_SW];
  const int64_t DH = P[CV_DH], DW = P[CV_DW], PH = P[CV_PH], PW = P[CV_PW];
  const int64_t PADW = P[CV_PADW], OHB = P[CV_MB];  // padded row width, output rows per band
  const int64_t PQ = (PADW + SW - 1) / SW, RS = PQ * SW;  // columns per phase, padded row stride
  const int hasBias = (int)P[CV_HAS_BIAS];
  const int64_t xdt = P[CV_DTYPE];
  const int64_t ydt = P[CV_ODT] ? P[CV_ODT] : ATCK_F32;
  const float* Wt = (const float*)bufs[1];
  const float* Bias = hasBias ? (const float*)bufs[2] : 0;
  float* Y = (float*)bufs[P[CV_YIDX]];
  float* ws = cube_align(bufs[P[CV_YIDX] + 1]);
  const int64_t PPT = conv_dw_ppt(P), NC = P[CV_N] * C;
  for (int64_t tk = begin; tk < end; ++tk)
  for (int64_t task = tk * PPT; task < cube_min(NC, (tk + 1) * PPT); ++task) {  // task: the plane (n, c)
    const int64_t c = task % C;
    const int64_t inOff = task * IH * IW;
    float* out = ydt == ATCK_F32 ? Y + task * OH * OW : 0;
    const float* w = Wt + c * KH * KW;
    const float b = hasBias ? Bias[c] : 0.0f;
    float* pad = ws + tk * P[CV_SLOT];
    for (int64_t oh0 = 0; oh0 < OH; oh0 += OHB) {
    const int64_t ohn = cube_min(OHB, OH - oh0);
    // Padded copy of the band's input rows: column q of padded row r0 + rr = in[r0 + rr - PH][q - PW]
    // or 0, at pad[rr * RS + (q % SW) * PQ + q / SW].
    const int64_t r0 = oh0 * SH, rows = (ohn - 1) * SH + (KH - 1) * DH + 1;
    for (int64_t rr = 0; rr < rows; ++rr) {
      float* d = pad + rr * RS;
      int64_t ih = r0 + rr - PH;
      if (ih < 0 || ih >= IH) {
        for (int64_t q = 0; q < RS; ++q) d[q] = 0.0f;
        continue;
      }
      const int64_t s = inOff + ih * IW - PW;
      int64_t lo = cube_min(PW, PADW), hi = cube_min(PW + IW, PADW);
      if (SW == 1) {
        for (int64_t q = 0; q < lo; ++q) d[q] = 0.0f;
        if (xdt == ATCK_F32) {  // vector moves (a plain loop stayed scalar: d and sf may alias)
          if (hi > lo) cube_copy_f32(d + lo, (const float*)bufs[0] + s + lo, hi - lo);
        } else {
          ATCK_VEC16
          for (int64_t q = lo; q < hi; ++q) d[q] = cube_ldx(bufs[0], xdt, s + q);
        }
        for (int64_t q = hi; q < RS; ++q) d[q] = 0.0f;
        continue;
      }
      // Columns j in [j0, j1) have all SW phases inside the input row: a de-interleaving
      // copy (LLVM vectorises it as an interleaved access group); the rest one by one.
      int64_t j0 = (lo + SW - 1) / SW, j1 = hi >= SW ? (hi - SW) / SW + 1 : 0;  // both <= PQ
      if (j1 < j0) j1 = j0;
      auto edge = [&](int64_t ja, int64_t jb) ATCK_INLINE {
        for (int64_t ph = 0; ph < SW; ++ph)
          for (int64_t j = ja; j < jb; ++j) {
            const int64_t q = j * SW + ph;
            d[ph * PQ + j] = q >= lo && q < hi ? cube_ldx(bufs[0], xdt, s + q) : 0.0f;
          }
      };
      edge(0, j0);
      edge(j1, PQ);
      if (xdt == ATCK_F32) {
        const float* sf = (const float*)bufs[0] + s;
        for (int64_t j = j0; j < j1; ++j)
          for (int64_t ph = 0; ph < SW; ++ph) d[ph * PQ + j] = sf[j * SW + ph];
      } else {  // f16 / bf16: phase by phase, converted on load
        for (int64_t ph = 0; ph < SW; ++ph)
          for (int64_t j = j0; j < j1; ++j) d[ph * PQ + j] = cube_ldx(bufs[0], xdt, s + j * SW + ph);
      }
    }
    if (cube_epi_in_regs(P + CV_EPI)) {
      conv_dw_band(P, bufs, pad, w, b, task, oh0, ohn);
      continue;
    }
    for (int64_t oh = oh0; oh < oh0 + ohn; ++oh) {
      float* o = out ? out + oh * OW : 0;
      for (int64_t ow0 = 0; ow0 < OW; ow0 += 16) {
        // One explicit 16-lane accumulator (as a float[16] array LLVM kept it scalar): a zmm
        // register on 512-bit targets, two ymm on 256-bit ones.
        atck_v16f av = atck_splat16(b);
        for (int64_t kh = 0; kh < KH; ++kh) {
          const float* r = pad + ((oh - oh0) * SH + kh * DH) * RS + ow0;
          for (int64_t kw = 0; kw < KW; ++kw) {
            const float* rk = r + ((kw * DW) % SW) * PQ + (kw * DW) / SW;
            av += atck_splat16(w[kh * KW + kw]) * atck_ld16(rk);
          }
        }
        const int64_t nv = cube_min(16, OW - ow0);
        const int64_t yoff = task * OH * OW + oh * OW + ow0;
        const float* R = P[CV_EPI + 3] ? (const float*)bufs[P[CV_EPI + 3] - 1] + yoff : 0;
        float acc[16];
        atck_st16(acc, av);
        if (!o) {
          // f16 / bf16 output: the epilogue on the 16 fp32 values, then one rounding pass over all
          // 16 lanes (vectorised, no per-element branches), of which nv are stored.
          cube_epilogue_r(P + CV_EPI, R, acc, 0, 1, nv);
          cube_store16_dt(ydt, bufs[P[CV_YIDX]], yoff, atck_ld16(acc), nv);
          continue;
        }
        cube_copy_f32(o + ow0, acc, nv);
        cube_epilogue(P + CV_EPI, bufs, Y, o + ow0, 0, 1, nv);
      }
    }
    }  // band
  }
}
