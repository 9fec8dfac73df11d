// conv_transpose: grouped N-d transposed convolution (NCDHW, 1-3 spatial dims), f32.
// Per (batch, group, block of output channels): col[(oc, kd, kh, kw)][input pixel] =
// W_g^T x X_g with the 6x16 GEMM microkernel (W pre-packed per block when constant), then
// col2im scatters col into the output (initialised with the bias).
// Params: CubeConvParam with ID..IW = input dims, OD..OW = output dims, C = input channels,
// OC = output channels, MB = output channels per task, MBLOCKS, KC = channel block,
// SLOT = workspace floats per task. bufs: X, W, [B], Y, workspace.
#include "kernels/lib/cube_gemm.h"
#include "kernels/lib/cube_params.h"

ATC_KERNEL(conv_transpose)

int64_t atck_conv_transpose_ntasks(const int64_t* P) {
  return P[CV_N] * P[CV_G] * P[CV_MBLOCKS];
}

void atck_conv_transpose_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t G = P[CV_G], C = P[CV_C], OC = P[CV_OC];
  const int64_t Cg = C / G, OCg = OC / G;
  const int64_t ID = P[CV_ID], IH = P[CV_IH], IW = P[CV_IW];
  const int64_t OD = P[CV_OD], OH = P[CV_OH], OW = P[CV_OW];
  const int64_t KD = P[CV_KD], KH = P[CV_KH], KW = P[CV_KW];
  const int64_t SD = P[CV_SD], SH = P[CV_SH], SW = P[CV_SW];
  const int64_t DD = P[CV_DD], DH = P[CV_DH], DW = P[CV_DW];
  const int64_t PD = P[CV_PD], PH = P[CV_PH], PW = P[CV_PW];
  const int64_t KS = KD * KH * KW, IPIX = ID * IH * IW, OPIX = OD * OH * OW;
  const int64_t MB = P[CV_MB], MBLOCKS = P[CV_MBLOCKS], KC = P[CV_KC];
  const int64_t MPB = (MB * KS + CUBE_MR - 1) / CUBE_MR;  // panels per block
  const int hasBias = (int)P[CV_HAS_BIAS];
  const float* X = (const float*)bufs[0];
  const float* W = (const float*)bufs[1];
  const float* Bias = hasBias ? (const float*)bufs[2] : 0;
  float* Y = (float*)bufs[P[CV_YIDX]];
  float* ws = cube_align(bufs[P[CV_YIDX] + 1]);
  float apanel[CUBE_MR * 512];
  for (int64_t task = begin; task < end; ++task) {
    int64_t t = task;
    const int64_t ob = t % MBLOCKS;
    t /= MBLOCKS;
    const int64_t g = t % G, n = t / G;
    const int64_t oc0 = ob * MB, oc1 = cube_min(OCg, oc0 + MB);
    if (oc0 >= oc1) continue;
    const int64_t rows = (oc1 - oc0) * KS;
    float* col = ws + begin * P[CV_SLOT];  // the call's slot, reused by its tasks
    float* bpan = col + ((rows * IPIX + 15) & ~(int64_t)15);
    const float* in = X + (n * C + g * Cg) * IPIX;
    // col = W_g^T[rows of this block] x X_g
    for (int64_t k0 = 0; k0 < Cg; k0 += KC) {
      const int64_t kc = cube_min(KC, Cg - k0);
      const int init = k0 > 0 ? CUBE_INIT_ACC : CUBE_INIT_ZERO;
      for (int64_t j = 0; j < IPIX; j += CUBE_NR) {
        const int64_t nr = cube_min(CUBE_NR, IPIX - j);
        const float* Bp = in + k0 * IPIX + j;
        int64_t ldb = IPIX;
        if (nr < CUBE_NR) {
          for (int64_t k = 0; k < kc; ++k)
            for (int64_t l = 0; l < CUBE_NR; ++l)
              bpan[k * CUBE_NR + l] = l < nr ? in[(k0 + k) * IPIX + j + l] : 0.0f;
          Bp = bpan;
          ldb = CUBE_NR;
        }
        for (int64_t m = 0; m < rows; m += CUBE_MR) {
          const int64_t mr = cube_min(CUBE_MR, rows - m);
          const float* Ap;
          if (P[CV_W_PACKED]) {
            Ap = W + (((g * MBLOCKS + ob) * MPB + m / CUBE_MR) * Cg + k0) * CUBE_MR;
          } else {
            // A(r, c) = W[(g*Cg + c)][oc0*KS + r]
            cube_pack_a_f32(W + g * Cg * OCg * KS + oc0 * KS, 1, OCg * KS, m, mr, k0, kc, 1.0f,
                            apanel);
            Ap = apanel;
          }
          cube_tile(kc, Ap, Bp, ldb, col + m * IPIX + j, IPIX, mr, nr, init, 0);
        }
      }
    }
    // col2im
    for (int64_t oc = oc0; oc < oc1; ++oc) {
      float* out = Y + (n * OC + g * OCg + oc) * OPIX;
      const float b = hasBias ? Bias[g * OCg + oc] : 0.0f;
      for (int64_t i = 0; i < OPIX; ++i) out[i] = b;
      for (int64_t kd = 0; kd < KD; ++kd)
        for (int64_t kh = 0; kh < KH; ++kh)
          for (int64_t kw = 0; kw < KW; ++kw) {
            const float* cr = col + ((oc - oc0) * KS + (kd * KH + kh) * KW + kw) * IPIX;
            // iw range with 0 <= iw*SW - PW + kw*DW < OW
            const int64_t off = kw * DW - PW;
            int64_t lo = off >= 0 ? 0 : (-off + SW - 1) / SW;
            int64_t hi = OW - off <= 0 ? 0 : (OW - off + SW - 1) / SW;
            if (hi > IW) hi = IW;
            if (lo > hi) lo = hi;
            for (int64_t id = 0; id < ID; ++id) {
              const int64_t od = id * SD - PD + kd * DD;
              if (od < 0 || od >= OD) continue;
              for (int64_t ih = 0; ih < IH; ++ih) {
                const int64_t oh = ih * SH - PH + kh * DH;
                if (oh < 0 || oh >= OH) continue;
                const float* c = cr + (id * IH + ih) * IW;
                float* o = out + (od * OH + oh) * OW;
                if (SW == 1) {
                  for (int64_t iw = lo; iw < hi; ++iw) o[iw + off] += c[iw];
                } else {
                  for (int64_t iw = lo; iw < hi; ++iw) o[iw * SW + off] += c[iw];
                }
              }
            }
          }
    }
  }
}
