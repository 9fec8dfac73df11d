// Kernel "qgemm": integer matrix product of MatMulInteger and QLinearMatMul (params:
// quant_params.h QGemmParam). One task per (batch, row of A); the row's accumulators are
// int32 and exact (ONNX: the product of two 8-bit values never overflows; sums wrap in 32
// bits). Columns are processed QG_NB at a time so the accumulator row stays in registers/L1,
// and the zero points of B's columns are loaded once per block.
#include "kernels/lib/quant_common.h"

ATC_KERNEL(qgemm)

int64_t atck_qgemm_ntasks(const int64_t* P) { return P[QG_BATCH] * P[QG_M]; }

void atck_qgemm_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t M = P[QG_M], N = P[QG_N], K = P[QG_K];
  const int64_t adt = P[QG_ADT], bdt = P[QG_BDT];
  const int64_t* AW = P + QG_AW;
  const int64_t* BW = P + QG_BW;
  const void* A = bufs[P[QG_ABUF]];
  const void* B = bufs[P[QG_BBUF]];
  void* Y = bufs[P[QG_YBUF]];
  const AtckQOut q = atck_qout(P[QG_MODE], P[QG_YDT], P[QG_YZBUF], P[QG_YZDT], P[QG_YSBUF], P[QG_YSDT], bufs);
  for (int64_t t = begin; t < end; ++t) {
    const int64_t b = t / M, m = t % M;
    const int64_t a0 = b * P[QG_ASTRIDE] + m * K, b0 = b * P[QG_BSTRIDE], y0 = (b * M + m) * N;
    const int32_t azp = atck_q_zp(AW, bufs, m);
    const float ascale = q.mode == QO_REQUANT ? atck_q_scale(AW, bufs, m) : 0.0f;
    for (int64_t n0 = 0; n0 < N; n0 += QG_NB) {
      const int64_t nb = N - n0 < QG_NB ? N - n0 : QG_NB;
      int32_t acc[QG_NB], bz[QG_NB];
      for (int64_t j = 0; j < nb; ++j) {
        acc[j] = 0;
        bz[j] = atck_q_zp(BW, bufs, n0 + j);
      }
      for (int64_t k = 0; k < K; ++k) {
        const int32_t av = atck_q_ld(A, adt, a0 + k) - azp;
        const int64_t bk = b0 + k * N + n0;
        for (int64_t j = 0; j < nb; ++j)
          acc[j] = (int32_t)((uint32_t)acc[j] + (uint32_t)av * (uint32_t)(atck_q_ld(B, bdt, bk + j) - bz[j]));
      }
      for (int64_t j = 0; j < nb; ++j) {
        const float mult = q.mode == QO_REQUANT ? (ascale * atck_q_scale(BW, bufs, n0 + j)) / q.yscale : 0.0f;
        atck_qstore(q, Y, y0 + n0 + j, acc[j], mult);
      }
    }
  }
}
