// attention: fused multi-head scaled dot-product attention (AttentionFusionPass).
// Per (batch, head, block of QB query rows), all in cache:
//   S = scale * Q_blk K^T (+ mask)   K^T packed once per head as rows [D][Skp] (Skp: SK padded
//                                    to 16 columns, or 64 for the 6x64 tiles of AT_WIDE). 6x64
//                                    tiles: Q's rows read in place (six row offsets), the scale
//                                    folded into K^T; 6x16 tiles: Q packed into 6-row panels,
//                                    the scale folded in there
//   P = softmax(S) per row           atck_softmax_row (vec_math.h): in place for the 6x64 tiles,
//                                    which read P's six rows from S; stored k-major into 6-row
//                                    panels for the 6x16 ones (ViT-B/16's attention, Zen 5, one
//                                    thread: 19.9 -> 14.8 ms without the Q and P packing)
//   O_blk = P V                      V rows read in place when contiguous, else packed
// with the 6x16 cube microkernel (cube_gemm.h), or on 512-bit targets (AT_WIDE) the 6x64 one
// (cube_ukoc.h: 64 columns in 4 zmm registers, where 6x16 uses 8-lane vectors). Q, K, V, O and the mask are strided views
// (kernels/lib/attention_params.h), so the QKV split and the head transposes cost nothing.
// Work items (b, h, q-block) are shared out over at most AT_NTASKS tasks, each with its own
// workspace slot; a task reuses its packed K^T / V while consecutive items stay on one head.
// bufs: inputs (q, k, v, mask as indexed by the params), output, workspace.
#include "kernels/lib/attention_params.h"
#include "kernels/lib/cube_gemm.h"
#include "kernels/lib/cube_ukoc.h"
#include "kernels/lib/vec_math.h"

ATC_KERNEL(attention)

int64_t atck_attention_ntasks(const int64_t* P) { return P[AT_NTASKS]; }

// Column padding of K^T, S, V and O: 16, or 64 for the 6x64 tiles (AT_WIDE).
static inline ATCK_INLINE int64_t at_pad(const int64_t* P, int64_t x) {
  const int64_t w = P[AT_WIDE] ? CUBE_OC_NR : CUBE_NR;
  return (x + w - 1) / w * w;
}

void atck_attention_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t H = P[AT_H], SQ = P[AT_SQ], SK = P[AT_SK], D = P[AT_D], DV = P[AT_DV];
  const int64_t QB = P[AT_QB], NQB = (SQ + QB - 1) / QB, NITEMS = P[AT_NITEMS], NT = P[AT_NTASKS];
  const int64_t SKP = at_pad(P, SK), DVP = at_pad(P, DV), NPAN = QB / CUBE_MR, WIDE = P[AT_WIDE];
  const float scale = (float)atck_d(P[AT_SCALE]);
  const float* Q = (const float*)bufs[P[AT_QIDX]] + P[AT_Q_OFF];
  const float* K = (const float*)bufs[P[AT_KIDX]] + P[AT_K_OFF];
  const float* V = (const float*)bufs[P[AT_VIDX]] + P[AT_V_OFF];
  const float* M = P[AT_MIDX] >= 0 ? (const float*)bufs[P[AT_MIDX]] + P[AT_M_OFF] : 0;
  float* O = (float*)bufs[P[AT_OIDX]] + P[AT_O_OFF];
  // V rows usable in place: unit dim stride and whole tiles (16 or 64 columns); O likewise.
  // The 6x64 tiles read 4 cache lines per k row: rows a multiple of 1 KB apart (a 768-float
  // QKV row, a 256-float K^T row) fall into a few L1 sets and thrash (ViT's attention ran 1.6x
  // slower), so they pack V always and give K^T rows an odd multiple of 16 floats.
  const int vDirect = P[AT_V_SD] == 1 && DV == DVP && !WIDE;
  const int64_t KTS = WIDE && (SKP / 16) % 2 == 0 ? SKP + 16 : SKP;  // K^T row stride
  // S row stride: the 6x64 tiles of O = P V read P in place from S (below), six rows at a time.
  const int64_t SST = KTS;
  // 6x64 tiles: the scale goes into K^T (Q is read in place), else into the packed Q panels.
  const float kscale = WIDE ? scale : 1.0f;
  const int oDirect = P[AT_O_SD] == 1 && (!WIDE || DV == DVP);
  CubeOcInit zero;
  for (int v = 0; v < 4; ++v) zero.v[v] = atck_splat16(0.0f);
  for (int64_t task = begin; task < end; ++task) {
    float* ws = cube_align(bufs[P[AT_OIDX] + 1]) + begin * P[AT_SLOT];  // the call's slot, reused
    float* Kt = ws;                       // [D][KTS]
    float* Qp = Kt + D * KTS;             // NPAN x [D][6]
    float* S = Qp + NPAN * D * CUBE_MR;   // [QB][SST]
    float* Pp = S + QB * SST;             // NPAN x [SK][6]
    float* Vp = Pp + NPAN * SK * CUBE_MR; // [SK][DVP] (when packed)
    float* Ot = Vp + SK * DVP;            // [QB][DVP] (when O has a non-unit dim stride)
    const int64_t i0 = task * NITEMS / NT, i1 = (task + 1) * NITEMS / NT;
    int64_t packedHead = -1;
    for (int64_t item = i0; item < i1; ++item) {
      const int64_t qb = item % NQB, bh = item / NQB, h = bh % H, b = bh / H;
      const float* Qh = Q + b * P[AT_Q_SB] + h * P[AT_Q_SH];
      const float* Kh = K + b * P[AT_K_SB] + h * P[AT_K_SH];
      const float* Vh = V + b * P[AT_V_SB] + h * P[AT_V_SH];
      float* Oh = O + b * P[AT_O_SB] + h * P[AT_O_SH];
      const int64_t KSS = P[AT_K_SS], KSD = P[AT_K_SD], VSS = P[AT_V_SS], VSD = P[AT_V_SD];
      if (packedHead != bh) {
        // K^T: 16x16 blocks transposed in registers where K's rows are contiguous (a plain loop
        // became scattered stores: a quarter of ViT's attention time), the rest one by one.
        int64_t j16 = 0, d16 = 0;
        if (KSD == 1) {
          j16 = SK / 16 * 16;
          d16 = D / 16 * 16;
          for (int64_t j = 0; j < j16; j += 16)
            for (int64_t d = 0; d < d16; d += 16) {
              float t[256] __attribute__((aligned(64)));
              cube_transpose16(Kh + j * KSS + d, KSS, t);
              for (int r = 0; r < 16; ++r) atck_st16(Kt + (d + r) * KTS + j, atck_splat16(kscale) * atck_ld16(t + r * 16));
            }
        }
        for (int64_t j = 0; j < SK; ++j)
          for (int64_t d = j < j16 ? d16 : 0; d < D; ++d) Kt[d * KTS + j] = kscale * Kh[j * KSS + d * KSD];
        for (int64_t d = 0; d < D; ++d)
          for (int64_t j = SK; j < KTS; ++j) Kt[d * KTS + j] = 0.0f;
        if (!vDirect)
          for (int64_t j = 0; j < SK; ++j)
            for (int64_t d = 0; d < DVP; ++d) Vp[j * DVP + d] = d < DV ? Vh[j * VSS + d * VSD] : 0.0f;
        packedHead = bh;
      }
      const int64_t q0 = qb * QB, qn = cube_min(QB, SQ - q0);
      const int64_t npan = (qn + CUBE_MR - 1) / CUBE_MR;
      // S = scale * Q K^T (6x64 tiles: Q's six rows read in place, Q_SS apart; 6x16: packed)
      for (int64_t p = 0; p < npan; ++p) {
        const int64_t mr = cube_min(CUBE_MR, qn - p * CUBE_MR);
        if (WIDE) {
          const float* qrow = Qh + (q0 + p * CUBE_MR) * P[AT_Q_SS];
          const int64_t QSD = P[AT_Q_SD];
          int64_t qoff[CUBE_OC_PR];
          for (int i = 0; i < CUBE_OC_PR; ++i) qoff[i] = i * P[AT_Q_SS];
          auto arow = [&](int64_t k) ATCK_INLINE { return qrow + k * QSD; };
          // 64-column tiles, then 16-column ones up to SK (ViT's 197 keys: 3 x 64 + 16, not 4 x 64)
          const int64_t SK16 = (SK + 15) / 16 * 16;
          int64_t n = 0;
          for (; n + CUBE_OC_NR <= SK16; n += CUBE_OC_NR)
            cube_ukoc_any(mr, D, Kt + n, KTS, arow, qoff, S + p * CUBE_MR * SST + n, SST, 0, zero);
          for (; n < SK16; n += 16)
            cube_ukoc_any<1>(mr, D, Kt + n, KTS, arow, qoff, S + p * CUBE_MR * SST + n, SST, 0, zero);
          continue;
        }
        float* qp = Qp + p * D * CUBE_MR;
        cube_pack_a_f32(Qh, P[AT_Q_SS], P[AT_Q_SD], q0 + p * CUBE_MR, mr, 0, D, scale, qp);
        for (int64_t n = 0; n < SKP; n += CUBE_NR)
          cube_tile(D, qp, Kt + n, KTS, S + p * CUBE_MR * SST + n, SST, mr, CUBE_NR, CUBE_INIT_ZERO, 0);
      }
      // P = softmax(S (+ mask)) row by row, in place (6x64 tiles) or stored k-major into the
      // 6-row panels (6x16 tiles).
      for (int64_t i = 0; i < qn; ++i) {
        float* s = S + i * SST;
        if (M) {
          const float* m = M + b * P[AT_M_SB] + h * P[AT_M_SH] + (q0 + i) * P[AT_M_SQ];
          const int64_t mk = P[AT_M_SK];
          for (int64_t j = 0; j < SK; ++j) s[j] += m[j * mk];
        }
        int allMasked = P[AT_ZERO_MASKED] != 0;
        for (int64_t j = 0; j < SK && allMasked; ++j) allMasked = s[j] == -__builtin_inff();
        if (allMasked) {
          for (int64_t j = 0; j < SK; ++j) s[j] = 0.0f;
        } else {
          atck_softmax_row(s, s, SK);
        }
        if (WIDE) continue;
        float* pp = Pp + (i / CUBE_MR) * SK * CUBE_MR + (i % CUBE_MR);
        for (int64_t j = 0; j < SK; ++j) pp[j * CUBE_MR] = s[j];
      }
      for (int64_t i = qn; i < npan * CUBE_MR && !WIDE; ++i) {  // zero rows of the last panel
        float* pp = Pp + (i / CUBE_MR) * SK * CUBE_MR + (i % CUBE_MR);
        for (int64_t j = 0; j < SK; ++j) pp[j * CUBE_MR] = 0.0f;
      }
      // O = P V
      const float* Vb = vDirect ? Vh : Vp;
      const int64_t ldv = vDirect ? VSS : DVP;
      for (int64_t p = 0; p < npan; ++p) {
        const int64_t mr = cube_min(CUBE_MR, qn - p * CUBE_MR);
        if (WIDE) {
          const float* prow = S + p * CUBE_MR * SST;
          int64_t soff[CUBE_OC_PR];
          for (int i = 0; i < CUBE_OC_PR; ++i) soff[i] = i * SST;
          auto arow = [&](int64_t k) ATCK_INLINE { return prow + k; };
          for (int64_t n = 0; n < DVP; n += CUBE_OC_NR) {
            if (oDirect)
              cube_ukoc_any(mr, SK, Vb + n, ldv, arow, soff, Oh + (q0 + p * CUBE_MR) * P[AT_O_SS] + n, P[AT_O_SS], 0,
                            zero);
            else
              cube_ukoc_any(mr, SK, Vb + n, ldv, arow, soff, Ot + p * CUBE_MR * DVP + n, DVP, 0, zero);
          }
          continue;
        }
        for (int64_t n = 0; n < DV; n += CUBE_NR) {
          const int64_t nr = cube_min(CUBE_NR, DV - n);
          if (oDirect)
            cube_tile(SK, Pp + p * SK * CUBE_MR, Vb + n, ldv, Oh + (q0 + p * CUBE_MR) * P[AT_O_SS] + n,
                      P[AT_O_SS], mr, nr, CUBE_INIT_ZERO, 0);
          else
            cube_tile(SK, Pp + p * SK * CUBE_MR, Vb + n, ldv, Ot + p * CUBE_MR * DVP + n, DVP, mr, nr,
                      CUBE_INIT_ZERO, 0);
        }
      }
      if (!oDirect)
        for (int64_t i = 0; i < qn; ++i)
          for (int64_t d = 0; d < DV; ++d) Oh[(q0 + i) * P[AT_O_SS] + d * P[AT_O_SD]] = Ot[i * DVP + d];
    }
  }
}
