// Lowering of a bfloat16 Conv to the AMX path of the conv kernel (kernels/lib/conv_amx.h; targets
// with AMX-BF16, bf16_path "amx"): where it pays, its blocking, and the compile-time packing of the
// weights into the tiles' layout. See docs/kernels-cube.md "AMX conv".
#pragma once
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "ir/op_registry.h"
#include "kernels/lib/cube_params.h"
#include "ops/cube/conv_band_plan.h"
#include "ops/cube/gemm_lowering.h"
#include "support/half.h"

namespace atc {

// The AMX form of a conv with Cg input and M output channels per group and KHW taps: 1 the pair
// band (a step multiplies 16 input channel pairs at one tap by 32 output channels, so at least
// half of each is real: Cg >= 15, M >= 16), 2 im2col pairs (band convs with fewer channels, such
// as 3-channel stems: pairs of im2col rows, at least half of the last step real), 0 the vector
// tiles. ATC_CONV_AMX=0 (atc's environment) turns it off, for measuring.
inline int convAmxForm(int64_t M, int64_t Cg, int64_t KHW, bool band) {
  if (const char* e = std::getenv("ATC_CONV_AMX"))
    if (e[0] == '0') return 0;
  if (M < 16) return 0;
  if ((Cg + 1) / 2 >= 8) return 1;
  const int64_t KP = (Cg * KHW + 1) / 2;
  return band && KHW > 1 && KP >= 8 && 2 * KP >= (KP + 15) / 16 * 16 ? 2 : 0;
}

// The bfloat16 parts per value of a float16 conv with float16 weights on the AMX split form (2);
// 0 where it does not apply (other dtypes, implementation mode high_precision). Float32 convs stay
// on float32 FMAs: three parts (six tile products, 6 bytes per weight) measured no faster there.
inline int64_t amxSplitParts(const Node& n, bool ok, DType xdt) {
  if (!ok || xdt != DType::F16 || n.inputs[1]->type.dtype != xdt) return 0;
  return n.attrString("_impl_mode", "") == "high_precision" ? 0 : 2;
}

// The weights as tdpbf16ps's first operand: [G][MT][S][parts][16][16][2] bfloat16, MT = 16-channel
// tiles (an even count, zero rows past M), step s = pb * KHW + tap holding input channels
// 2 * (pb * 16 + r) + h at row r, half h (zero past Cg); parts > 1: each weight as the sum of that
// many bfloat16 parts (kernels/lib/conv_amx_split.h). Returns whether the weights are packed.
inline bool packConvWeightAmx(LowerCtx& c, int64_t G, int64_t M, int64_t Cg, int64_t KHW, int64_t KPT,
                              int64_t parts) {
  Node& n = c.node;
  Value* w = n.inputs[1];
  if (n.hasAttr("_cube_wshape")) return true;
  if (!w->isConstant()) return false;
  n.attrs["_cube_wshape"] = w->type.shape;
  const int64_t MT = (M + 31) / 32 * 2, S = KHW * KPT / 16;
  const std::string how = "conv_amx" + (parts > 1 ? std::to_string(parts) : std::string()) + " " + std::to_string(G) + "x" + std::to_string(M) + "x" + std::to_string(Cg) + "x" +
                          std::to_string(KHW);
  if (c.usePackedInput(1, how)) return true;
  auto pk = std::make_shared<Tensor>(TensorType(DType::BF16, {G * MT * S * parts * 512}));
  const std::vector<float> src = cubeFloats(*w->constant);
  uint16_t* dst = pk->as<uint16_t>();
  for (int64_t gi = 0; gi < G; ++gi)
    for (int64_t mt = 0; mt < MT; ++mt)
      for (int64_t st = 0; st < S; ++st)
        for (int64_t i = 0; i < 16; ++i)
          for (int64_t e = 0; e < 32; ++e) {
            const int64_t m = mt * 16 + i, tap = st % KHW, ic = 2 * (st / KHW * 16 + e / 2) + e % 2;
            float v = m < M && ic < Cg ? src[((gi * M + m) * Cg + ic) * KHW + tap] : 0.0f;
            for (int64_t q = 0; q < parts; ++q) {  // each part rounded to nearest, the rest exact
              const uint16_t h = floatToBf16(v);
              dst[((((gi * MT + mt) * S + st) * parts + q) * 16 + i) * 32 + e] = h;
              v -= bf16ToFloat(h);
            }
          }
  c.replaceConstInput(1, pk, how);
  return true;
}

// Blocking: pixel blocks of about 512 grid positions (band: whole output rows, fewer when there
// would be under 8 tasks with the channel blocks; 1x1: pixels in whole 32-column blocks), channel
// blocks of 32-channel tile pairs until there are 4 tasks. Slot: the step offsets, a
// strided 1x1's pixel offsets (im2col: the K row offsets), the bias tiles [32][16], the pair band
// (KPT planes and 32 words after the last) or pair rows [KPT][NQ] (im2col: then its bfloat16
// band), the accumulator [32][NQ].
// parts: 1 for bfloat16 X and W, 2 for float16 (the split form: each part's band or pair rows, the
// im2col band in float32).
inline KernelCall lowerConvAmx(LowerCtx& c, std::vector<int64_t>& P, int64_t NG, int64_t M, int64_t Cg, bool band,
                               const std::vector<int64_t>& out, const std::vector<int64_t>& k,
                               const std::vector<int64_t>& s, const std::vector<int64_t>& dl, int64_t parts) {
  const int64_t KHW = k[1] * k[2];
  const bool col = convAmxForm(M, Cg, KHW, band) == 2;
  const int64_t CP = col ? (Cg * KHW + 1) / 2 : (Cg + 1) / 2, KPT = (CP + 15) / 16 * 16;
  const int64_t S = (col ? 1 : KHW) * KPT / 16;
  const int64_t MT2 = (M + 31) / 32, NPIX = out[1] * out[2];
  int64_t nblocks, nq;
  if (band) {
    nblocks = bandRows(P, out, k, s, dl, 512, NG * MT2);
    nq = (P[CV_BROWS] - 1) * P[CV_PQ] + out[2];
  } else {
    nblocks = (NPIX + 511) / 512;
    nq = ((NPIX + nblocks - 1) / nblocks + 31) / 32 * 32;  // whole 32-column blocks
    nblocks = (NPIX + nq - 1) / nq;
    P[CV_NB] = nq;
  }
  const int64_t NQ = (nq + 31) / 32 * 32 + 16;  // an odd multiple of 16 floats: rows spread over L1 sets
  // Channel blocks until there are 4 tasks, not 8: each channel block fills its pixel block's band
  // again, and with few tasks the runtime hands a thread single ones (ResNet-50's 14x14 and 28x28
  // layers alone, 1 and 2 threads, against 8 tasks or pixel blocks first: docs/kernels-cube.md).
  const int64_t base = NG * nblocks;
  int64_t mblocks = base < 4 ? std::min<int64_t>(MT2, (4 + base - 1) / base) : 1;
  const int64_t MBp = (MT2 + mblocks - 1) / mblocks;
  mblocks = (MT2 + MBp - 1) / MBp;
  P[CV_AMX] = 1;
  P[CV_AMX_PARTS] = parts;
  P[CV_OCM] = 0;
  P[CV_BF16DP] = 0;
  P[CV_MB] = MBp * 32;
  P[CV_KC] = KPT;
  P[CV_MBLOCKS] = mblocks;
  P[CV_NBLOCKS] = nblocks;
  P[CV_NQ] = NQ;
  int64_t next = (S + 15) / 16 * 16;
  P[CV_AMX_PIX] = next;
  if (!band) next += (nq + 15) / 16 * 16;
  if (col) next += (Cg * KHW + 15) / 16 * 16;
  P[CV_AMX_BIAS] = next;
  next += 32 * 16;
  P[CV_BAND_OFF] = next;
  if (band) {
    P[CV_BPLANE] = (s[1] * s[2] * CUBE_CONV_BAND_HBR(P) * P[CV_PQ] + 15) / 16 * 16;
    if ((P[CV_BPLANE] / 16) % 2 == 0) P[CV_BPLANE] += 16;
  }
  // Each part's pair band (or rows), the last one with 32 words after it.
  P[CV_AMX_PSTRIDE] = band && !col ? KPT * P[CV_BPLANE] : KPT * NQ;
  next += parts * P[CV_AMX_PSTRIDE] + 32;
  if (col) {  // then the band of input rows (BPLANE values per channel, 32 after the last):
    P[CV_AMX_COL] = next;  // bfloat16, float32 for the split forms
    next += parts > 1 ? Cg * P[CV_BPLANE] + 32 : (Cg * P[CV_BPLANE] + 32 + 31) / 32 * 16;
  }
  P[CV_ACC] = next;
  P[CV_SLOT] = next + 32 * NQ;
  if (!(col ? packConvWeightAmx(c, P[CV_G], M, Cg * KHW, 1, KPT, parts)
            : packConvWeightAmx(c, P[CV_G], M, Cg, KHW, KPT, parts)))
    opError(c.node, "internal: the AMX conv needs constant weights");
  P[CV_W_PACKED] = 1;
  KernelCall kc{"conv", P};
  kc.workspaceBytes = NG * mblocks * nblocks * P[CV_SLOT] * 4 + 64;
  return kc;
}

}  // namespace atc
