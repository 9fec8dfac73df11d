// Kernel "loss": NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (ops/reduce/loss.cpp).
// Params (never renumber; baked into .om kernels):
//   [0] mode (0: NLL of log-probabilities, 1: softmax cross-entropy of scores)
//   [1] N, [2] C, [3] D (product of the dims after C; 1 for [N, C]), [4] x dtype (f32 / f64),
//   [5] target dtype (i32 / i64), [6] weight buffer (-1: none), [7] reduction (0 none, 1 sum,
//   2 mean), [8] has ignore_index, [9] ignore_index, [10] output buffer, [11] log_prob buffer
//   (-1: not an output), [12] workspace buffer (mode 1: C doubles)
// loss[n, d] = -w[t] * logp[n, t, d] with t = target[n, d], 0 where t == ignore_index; mean
// divides the sum by the sum of the weights taken (ONNX's reference: weights taken with
// clip mode, so an ignored target out of range does not read past the weights). One task:
// the reductions run in order in double.
#include "kernels/lib/kernel_abi.h"
#include "kernels/lib/math_dtype.h"
#include "kernels/lib/math_ops.h"

ATC_KERNEL(loss)

int64_t atck_loss_ntasks(const int64_t*) { return 1; }

void atck_loss_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  if (begin >= end) return;
  const int64_t N = P[1], C = P[2], D = P[3], xdt = P[4], tdt = P[5];
  const void* X = bufs[0];
  const void* T = bufs[1];
  const void* Wt = P[6] >= 0 ? bufs[P[6]] : 0;
  void* Y = bufs[P[10]];
  void* LP = P[11] >= 0 ? bufs[P[11]] : 0;
  double* lse = P[0] == 1 ? (double*)bufs[P[12]] : 0;
  double sum = 0.0, wsum = 0.0;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t d = 0; d < D; ++d) {
      const int64_t base = n * C * D + d;
      // log-probabilities of position (n, d): the input, or log(softmax) of the scores.
      if (lse) {
        double mx = atck_ld<double>(X, xdt, base);
        for (int64_t c = 1; c < C; ++c) {
          const double v = atck_ld<double>(X, xdt, base + c * D);
          mx = v > mx ? v : mx;
        }
        double s = 0.0;
        for (int64_t c = 0; c < C; ++c) {
          lse[c] = atck_m_exp(atck_ld<double>(X, xdt, base + c * D) - mx);
          s += lse[c];
        }
        for (int64_t c = 0; c < C; ++c) {
          lse[c] = atck_m_log(lse[c] / s);
          if (LP) atck_st<double>(LP, xdt, base + c * D, lse[c]);
        }
      }
      const int64_t t = tdt == ATCK_I64 ? ((const int64_t*)T)[n * D + d] : ((const int32_t*)T)[n * D + d];
      const bool ignored = P[8] && t == P[9];
      const int64_t tc = t < 0 ? 0 : t >= C ? C - 1 : t;  // clip mode
      const double w = ignored ? 0.0 : Wt ? atck_ld<double>(Wt, xdt, tc) : 1.0;
      const double lp = lse ? lse[tc] : atck_ld<double>(X, xdt, base + tc * D);
      const double l = ignored ? 0.0 : -lp * w;
      if (P[7] == 0) atck_st<double>(Y, xdt, n * D + d, l);
      sum += l;
      wsum += w;
    }
  if (P[7] == 1) atck_st<double>(Y, xdt, 0, sum);
  if (P[7] == 2) {
    // With weights or an ignore_index: the weighted mean; else the plain mean over N * D.
    const double den = Wt || P[8] ? wsum : (double)(N * D);
    atck_st<double>(Y, xdt, 0, sum / den);
  }
}
