// col2im: Col2Im (opset 18), N-d. X [N, C * prod(block), L] holds the columns of L sliding blocks;
// Y [N, C, image...] sums each column element into the image position it came from (ONNX
// reference order: per column channel, per block). image_shape and block_shape are read from
// their inputs (constants, or fed at run time: Y run-sized, kernels/lib/run_sized.h); block counts
// that do not give L, a channel count not divisible by the block size or a non-positive
// shape are invalid. bufs = {X, image_shape, block_shape, Y (+ Y's dims slot)};
// P = {dtype (float32 / float64), N, dim1, L, nd, run-sized, dilations[nd], pads[2 nd], strides[nd]}.
#include "kernels/lib/run_sized.h"

ATC_KERNEL(col2im)

enum { CI_DT, CI_N, CI_D1, CI_L, CI_ND, CI_RS, CI_HEADER };

int64_t atck_col2im_ntasks(const int64_t*) { return 1; }

// Image and block dims and the number of blocks per dim; 0 when invalid.
static inline ATCK_INLINE int atck_ci_geom(const int64_t* P, void** bufs, int64_t* img, int64_t* blk, int64_t* nb) {
  const int64_t nd = P[CI_ND];
  const int64_t *dil = P + CI_HEADER, *pads = dil + nd, *str = pads + 2 * nd;
  int64_t kprod = 1, blocks = 1;
  for (int64_t d = 0; d < nd; ++d) {
    img[d] = ((const int64_t*)bufs[1])[d];
    blk[d] = ((const int64_t*)bufs[2])[d];
    if (img[d] <= 0 || blk[d] <= 0 || img[d] > (int64_t)1 << 40 || blk[d] > (int64_t)1 << 20) return 0;
    nb[d] = (img[d] + pads[d] + pads[d + nd] - dil[d] * (blk[d] - 1) - 1) / str[d] + 1;
    // products checked before they could overflow: they must divide dim 1 and equal L
    if (nb[d] < 1 || blk[d] > P[CI_D1] / kprod || nb[d] > P[CI_L] / blocks) return 0;
    kprod *= blk[d];
    blocks *= nb[d];
  }
  return P[CI_D1] % kprod == 0 && blocks == P[CI_L];
}

void atck_col2im_task(const int64_t* P, void** bufs, int64_t begin, int64_t) {
  const int64_t nd = P[CI_ND], N = P[CI_N], D1 = P[CI_D1], L = P[CI_L];
  const int64_t *dil = P + CI_HEADER, *pads = dil + nd, *str = pads + 2 * nd;
  int64_t img[ATCK_RS_MAX_RANK], blk[ATCK_RS_MAX_RANK], nb[ATCK_RS_MAX_RANK];
  const int ok = atck_ci_geom(P, bufs, img, blk, nb);
  int64_t kprod = 1, plane = 1;
  for (int64_t d = 0; d < nd && ok; ++d) kprod *= blk[d], plane *= img[d];
  const int64_t C = ok ? D1 / kprod : 0;
  if (P[CI_RS] && !bufs[3]) {
    if (begin != 0) return;
    int64_t od[ATCK_RS_MAX_RANK] = {N, C};
    for (int64_t d = 0; d < nd; ++d) od[2 + d] = img[d];
    if (ok) atck_rs_put(bufs[4], od, nd + 2);
    else atck_rs_invalid(bufs[4], nd + 2);
    return;
  }
  if (!ok) return;
  const int f64 = P[CI_DT] == ATCK_F64;
  memset(bufs[3], 0, (size_t)(N * C * plane * (f64 ? 8 : 4)));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t cc = 0; cc < D1; ++cc) {
      const int64_t c = cc / kprod;
      int64_t koff[ATCK_RS_MAX_RANK];
      for (int64_t d = nd - 1, k = cc % kprod; d >= 0; --d) koff[d] = k % blk[d], k /= blk[d];
      for (int64_t l = 0; l < L; ++l) {
        int64_t pos = 0, inside = 1;
        for (int64_t d = nd - 1, b = l, mul = 1; d >= 0; --d) {
          const int64_t p = (b % nb[d]) * str[d] - pads[d] + koff[d] * dil[d];
          b /= nb[d];
          if (p < 0 || p >= img[d]) inside = 0;
          pos += p * mul;
          mul *= img[d];
        }
        if (!inside) continue;
        const int64_t src = (n * D1 + cc) * L + l, dst = (n * C + c) * plane + pos;
        if (f64) ((double*)bufs[3])[dst] += ((const double*)bufs[0])[src];
        else ((float*)bufs[3])[dst] += ((const float*)bufs[0])[src];
      }
    }
}
