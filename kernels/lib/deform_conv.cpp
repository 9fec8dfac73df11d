// deform_conv: DeformConv (ops/cube/deform_conv.cpp), float32 NCHW. A work unit is (n, group,
// output row, block of up to 64 output pixels): its taps are sampled bilinearly at their
// offset positions (times the mask) into col[K = C/G * kH * kW][64] in the task's slot, then each
// of the group's output channels sums W[m][k] * col[k][p] over k (plus B[m]).
// bufs: X, W, offset, [B], [mask], Y, workspace (a slot of K * 64 + 64 floats per task).
#include "kernels/lib/kernel_abi.h"

ATC_KERNEL(deform_conv)

enum {
  DC_N, DC_C, DC_H, DC_W, DC_M, DC_G, DC_OG, DC_KH, DC_KW, DC_OH, DC_OW, DC_SH, DC_SW, DC_PT, DC_PL, DC_DH, DC_DW,
  DC_HAS_B, DC_HAS_MASK, DC_NIN, DC_TASKS, DC_UNITS
};

int64_t atck_deform_conv_ntasks(const int64_t* P) { return P[DC_TASKS]; }

// X's plane at (y, x), bilinear, zero outside (torchvision's deform_conv2d sampling).
static inline ATCK_INLINE float atck_dc_sample(const float* plane, int64_t H, int64_t W, float y, float x) {
  if (!(y > -1.0f && y < (float)H && x > -1.0f && x < (float)W)) return 0.0f;  // NaN offsets too
  const float fy = __builtin_floorf(y), fx = __builtin_floorf(x);
  const int64_t y0 = (int64_t)fy, x0 = (int64_t)fx, y1 = y0 + 1, x1 = x0 + 1;
  const float ly = y - fy, lx = x - fx, hy = 1.0f - ly, hx = 1.0f - lx;
  const float v1 = y0 >= 0 && x0 >= 0 ? plane[y0 * W + x0] : 0.0f;
  const float v2 = y0 >= 0 && x1 < W ? plane[y0 * W + x1] : 0.0f;
  const float v3 = y1 < H && x0 >= 0 ? plane[y1 * W + x0] : 0.0f;
  const float v4 = y1 < H && x1 < W ? plane[y1 * W + x1] : 0.0f;
  return hy * hx * v1 + hy * lx * v2 + ly * hx * v3 + ly * lx * v4;
}

// The sampled taps of pixels ow0 .. ow0 + np of row oh for group g of image nb: col[k][64].
static inline ATCK_INLINE void atck_dc_fill(const int64_t* P, void** bufs, int64_t nb, int64_t g, int64_t oh,
                                            int64_t ow0, int64_t np, float* col) {
  const int64_t C = P[DC_C], H = P[DC_H], W = P[DC_W], Cg = C / P[DC_G], kH = P[DC_KH], kW = P[DC_KW];
  const int64_t oH = P[DC_OH], oW = P[DC_OW], taps = kH * kW, perOg = C / P[DC_OG];
  const float* X = (const float*)bufs[0];
  const float* off = (const float*)bufs[2];
  const float* mask = P[DC_HAS_MASK] ? (const float*)bufs[4] : 0;
  const int64_t OGT = P[DC_OG] * taps, pix = oH * oW, row = oh * oW + ow0;
  for (int64_t cl = 0; cl < Cg; ++cl) {
    const int64_t c = g * Cg + cl, og = c / perOg;
    const float* plane = X + (nb * C + c) * H * W;
    for (int64_t t = 0; t < taps; ++t) {
      const int64_t i = t / kW, j = t % kW;
      const float* dy = off + ((nb * 2 * OGT) + 2 * (og * taps + t)) * pix + row;
      const float* dx = dy + pix;
      const float* mk = mask ? mask + (nb * OGT + og * taps + t) * pix + row : 0;
      float* d = col + (cl * taps + t) * 64;
      const float by = (float)(oh * P[DC_SH] - P[DC_PT] + i * P[DC_DH]);
      for (int64_t p = 0; p < np; ++p) {
        const float bx = (float)((ow0 + p) * P[DC_SW] - P[DC_PL] + j * P[DC_DW]);
        const float v = atck_dc_sample(plane, H, W, by + dy[p], bx + dx[p]);
        d[p] = mk ? v * mk[p] : v;
      }
      for (int64_t p = np; p < 64; ++p) d[p] = 0.0f;  // summed with the rest, never stored
    }
  }
}

static inline ATCK_INLINE void atck_dc_unit(const int64_t* P, void** bufs, int64_t u, float* slot) {
  const int64_t oH = P[DC_OH], oW = P[DC_OW], G = P[DC_G], M = P[DC_M], Mg = M / G;
  const int64_t K = P[DC_C] / G * P[DC_KH] * P[DC_KW], blocks = (oW + 63) / 64;
  const int64_t pb = u % blocks, oh = (u / blocks) % oH, g = (u / blocks / oH) % G, nb = u / blocks / oH / G;
  const int64_t ow0 = pb * 64, np = oW - ow0 < 64 ? oW - ow0 : 64;
  float* col = slot;
  float* acc = slot + K * 64;
  atck_dc_fill(P, bufs, nb, g, oh, ow0, np, col);
  const float* Wt = (const float*)bufs[1];
  const float* B = P[DC_HAS_B] ? (const float*)bufs[3] : 0;
  float* Y = (float*)bufs[P[DC_NIN]];
  for (int64_t ml = 0; ml < Mg; ++ml) {
    const int64_t m = g * Mg + ml;
    const float b = B ? B[m] : 0.0f;
    for (int64_t p = 0; p < 64; ++p) acc[p] = b;
    const float* wr = Wt + m * K;
    for (int64_t k = 0; k < K; ++k) {
      const float w = wr[k];
      const float* cr = col + k * 64;
      for (int64_t p = 0; p < 64; ++p) acc[p] += w * cr[p];
    }
    float* y = Y + ((nb * M + m) * oH + oh) * oW + ow0;
    for (int64_t p = 0; p < np; ++p) y[p] = acc[p];
  }
}

void atck_deform_conv_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t K = P[DC_C] / P[DC_G] * P[DC_KH] * P[DC_KW], T = P[DC_TASKS];
  float* slot = (float*)bufs[P[DC_NIN] + 1] + begin * (K * 64 + 64);
  for (int64_t t = begin; t < end; ++t)
    for (int64_t u = t; u < P[DC_UNITS]; u += T) atck_dc_unit(P, bufs, u, slot);
}
