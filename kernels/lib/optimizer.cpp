// optimizer: the training operators of ai.onnx.preview.training (Adagrad, Momentum with modes
// standard and nesterov, Adam) over n tensors, as the ONNX reference writes them, in double,
// stored as float32 or float64. bufs = {R, T, X[n], G[n], then H[n] (Adagrad), V[n] (Momentum)
// or V[n], H[n] (Adam); then the outputs X_new[n], then H_new[n] / V_new[n] / V_new[n], H_new[n]}.
// P = {kind (0 Adagrad, 1 Momentum, 2 Adam), n, dtype, decay_factor, epsilon, norm_coefficient,
// alpha, beta, norm_coefficient_post (doubles), nesterov, numel[n]}. One task per tensor.
#include "kernels/lib/run_sized.h"

ATC_KERNEL(optimizer)

int64_t atck_optimizer_ntasks(const int64_t* P) { return P[1]; }

static inline ATCK_INLINE double atck_opt_ld(const void* p, int64_t dt, int64_t i) {
  return dt == ATCK_F64 ? ((const double*)p)[i] : (double)((const float*)p)[i];
}

void atck_optimizer_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t kind = P[0], n = P[1], dt = P[2], nesterov = P[9];
  const double decay = atck_d(P[3]), eps = atck_d(P[4]), nc = atck_d(P[5]), alpha = atck_d(P[6]),
               beta = atck_d(P[7]), ncPost = atck_d(P[8]);
  const double r = atck_opt_ld(bufs[0], dt, 0);
  const double t = (double)((const int64_t*)bufs[1])[0];
  const int64_t states = kind == 2 ? 2 : 1, outBase = 2 + (2 + states) * n;
  for (int64_t k = begin; k < end; ++k) {
    const void *x = bufs[2 + k], *g = bufs[2 + n + k], *s1 = bufs[2 + 2 * n + k];
    const void* s2 = kind == 2 ? bufs[2 + 3 * n + k] : 0;
    void *xo = bufs[outBase + k], *s1o = bufs[outBase + n + k];
    void* s2o = kind == 2 ? bufs[outBase + 2 * n + k] : 0;
    for (int64_t i = 0; i < P[10 + k]; ++i) {
      const double xv = atck_opt_ld(x, dt, i), gr = nc * xv + atck_opt_ld(g, dt, i), a = atck_opt_ld(s1, dt, i);
      if (kind == 0) {  // Adagrad: s1 = H
        const double rr = r / (1 + t * decay), h = a + gr * gr;
        atck_rs_store(xo, dt, i, xv - rr * gr / (__builtin_sqrt(h) + eps));
        atck_rs_store(s1o, dt, i, h);
      } else if (kind == 1) {  // Momentum: s1 = V
        const double v = alpha * a + (t > 0 ? beta : 1.0) * gr;
        atck_rs_store(xo, dt, i, nesterov ? xv - r * (gr + alpha * v) : xv - r * v);
        atck_rs_store(s1o, dt, i, v);
      } else {  // Adam: s1 = V, s2 = H
        const double v = alpha * a + (1 - alpha) * gr;
        const double h = beta * atck_opt_ld(s2, dt, i) + (1 - beta) * gr * gr;
        const double ra = t > 0 ? r * __builtin_sqrt(1 - __builtin_pow(beta, t)) / (1 - __builtin_pow(alpha, t)) : r;
        atck_rs_store(xo, dt, i, (1 - ncPost) * (xv - ra * (v / (__builtin_sqrt(h) + eps))));
        atck_rs_store(s1o, dt, i, v);
        atck_rs_store(s2o, dt, i, h);
      }
    }
  }
}
