// Lowering of MatMul and Gemm to the gemm kernel (kernels/lib/matmul.cpp): blocking,
// task split and compile-time packing of constant operands.
#pragma once
#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <vector>

#include "ir/op_registry.h"
#include "kernels/lib/cube_params.h"
#include "support/half.h"

namespace atc {

struct GemmSpec {
  int64_t M = 0, N = 0, K = 0;
  std::vector<int64_t> batch, aBatchStride, bBatchStride;  // output batch dims, operand strides
  int64_t aRs = 0, aCs = 0, bRs = 0, bCs = 0;               // element strides of (m,k) / (k,n)
  bool hasC = false;
  int64_t cRs = 0, cCs = 0;
  double alpha = 1.0, beta = 1.0;
};

// Epilogue words (kernels/lib/fused_params.h CubeEpilogueParam, cube_epilogue) from the
// attributes TbeCommonRules0FusionPass sets: _epi_act (AtckEltOp unary code), _epi_alpha,
// _epi_beta, _epi_res (input index of the residual).
inline void setCubeEpilogue(const Node& n, int64_t* E) {
  E[0] = n.hasAttr("_epi_act") ? n.attrInt("_epi_act", 0) + 1 : 0;
  E[1] = paramFromDouble(n.attrFloat("_epi_alpha", 0.0));
  E[2] = paramFromDouble(n.attrFloat("_epi_beta", 0.0));
  E[3] = n.hasAttr("_epi_res") ? n.attrInt("_epi_res", 0) + 1 : 0;
}

// Original shape of input i, before lowering replaced it by a packed copy.
// Values of a constant cube operand as float (f32, or f16/bf16 weights chosen by the
// precision pass: exact, since every f16/bf16 value is a float).
inline std::vector<float> cubeFloats(const Tensor& t) {
  std::vector<float> v((size_t)t.type.numel());
  for (size_t i = 0; i < v.size(); ++i) v[i] = (float)t.floatAt((int64_t)i);
  return v;
}

inline Shape cubeOrigShape(const Node& n, size_t i) {
  std::string key = "_cube_shape" + std::to_string(i);
  if (n.hasAttr(key)) return n.attrInts(key);
  return n.inputs[i]->type.shape;
}

// Packs constant operand i (0: A, 1: B) into panels of `width` rows (A: [MP][K][MR] with alpha
// folded in, MR = the target's microkernel rows; B: [NP][K][bWidth], 16 or 64 for GM_WIDE), once per node: later
// lowerings see _cube_apacked/_cube_bpacked. Nodes that read the same constant with the same
// geometry share one packed copy.
// bf16Pairs (B only, GM_BF16DP): [NP][ceil(K/2)][64][2] bfloat16, each column's k pair side by
// side (an odd K's last pair padded with zero); the values are bfloat16 already (exact).
inline void packGemmOperand(LowerCtx& c, const GemmSpec& s, size_t i, int64_t MR, int64_t bWidth = 16,
                            bool bf16Pairs = false) {
  Node& n = c.node;
  const std::string flag = i == 0 ? "_cube_apacked" : "_cube_bpacked";
  if (n.hasAttr(flag)) return;
  const int64_t rows = i == 0 ? s.M : s.N, width = i == 0 ? MR : bWidth;
  const int64_t rs = i == 0 ? s.aRs : s.bCs, ks = i == 0 ? s.aCs : s.bRs;  // strides of a row and of k
  const double alpha = i == 0 ? (double)s.alpha : 1.0;
  char how[160];
  std::snprintf(how, sizeof how, "gemm_%c %lld %lld %lld %lld %.17g /%lld%s", i == 0 ? 'a' : 'b', (long long)rows,
                (long long)s.K, (long long)rs, (long long)ks, alpha, (long long)width, bf16Pairs ? " bf16x2" : "");
  n.attrs["_cube_shape" + std::to_string(i)] = n.inputs[i]->type.shape;
  n.attrs[flag] = int64_t(1);
  if (c.usePackedInput(i, how)) return;
  std::vector<float> v = cubeFloats(*n.inputs[i]->constant);
  const int64_t np = (rows + width - 1) / width;
  if (bf16Pairs) {
    const int64_t KP = (s.K + 1) / 2;
    auto pk = std::make_shared<Tensor>(TensorType(DType::BF16, {np * KP * width * 2}));
    uint16_t* d = pk->as<uint16_t>();
    for (int64_t p = 0; p < np; ++p)
      for (int64_t k = 0; k < KP * 2; ++k)
        for (int64_t l = 0; l < width; ++l) {
          const int64_t r = p * width + l;
          d[((p * KP + k / 2) * width + l) * 2 + k % 2] =
              r < rows && k < s.K ? floatToBf16(v[r * rs + k * ks]) : uint16_t(0);
        }
    c.replaceConstInput(i, pk, how);
    return;
  }
  auto pk = std::make_shared<Tensor>(TensorType(DType::F32, {np * s.K * width}));
  float* d = pk->as<float>();
  for (int64_t p = 0; p < np; ++p)
    for (int64_t k = 0; k < s.K; ++k)
      for (int64_t l = 0; l < width; ++l) {
        int64_t r = p * width + l;
        d[(p * s.K + k) * width + l] = r < rows ? (float)(alpha * v[r * rs + k * ks]) : 0.0f;
      }
  c.replaceConstInput(i, pk, how);
}

// Blocks of the bfloat16 MatMul/Gemm on AMX tiles (GM_BF16DP 3). The tiles run 10x the vector
// code's rate, so streaming B from memory bounds them: row blocks of up to 256 rows, split evenly
// (B is read once per row block: ViT's 197 rows in one block, not 192 + 5), columns of 64-256,
// at least 16 tasks where the columns allow, else 8 with smaller row blocks (multiples of 16).
inline void amxGemmBlocks(const GemmSpec& s, int64_t nbatch, int64_t& MB, int64_t& NB) {
  auto tasks = [&] { return nbatch * ((s.M + MB - 1) / MB) * ((s.N + NB - 1) / NB); };
  const int64_t mb = (s.M + 255) / 256;
  MB = ((s.M + mb - 1) / mb + 15) / 16 * 16;
  NB = std::min<int64_t>(256, (s.N + 63) / 64 * 64);
  while (tasks() < 16 && NB > 64) NB = std::max<int64_t>(64, NB / 2 / 64 * 64);
  while (tasks() < 8 && MB > 32) MB = std::max<int64_t>(32, (MB / 2 + 15) / 16 * 16);
}

// The 6x64 tiles (GM_WIDE, kernels/lib/matmul.cpp gemm_wide_task) on 512-bit targets: a constant
// B (packed in 64-column panels), A read in place (float32) or converted per K block, alpha 1,
// no C but a column bias. Blocks: K of <= 128 (the 32 KB B sub-panel stays in L1 across the row
// tiles), rows a multiple of 48 (6-row tiles; 16 for the other tiles), columns of 64, >= 16 tasks.
// A range build takes them for few rows too (B's packing must not change with M).
inline bool wideGemmTiles(LowerCtx& c, const GemmSpec& s, bool bBatchInv) {
  const Node& n = c.node;
  return c.cubeRows == 16 && (s.M > 4 || c.rangeBuild()) && s.N > 0 && s.K > 0 && bBatchInv && s.alpha == 1.0 &&
         (n.hasAttr("_cube_bpacked") || n.inputs[1]->isConstant()) && !n.inputs[0]->isConstant() &&
         !n.hasAttr("_cube_apacked") && (!s.hasC || (s.cRs == 0 && s.cCs == 1 && s.beta == 1.0));
}

inline KernelCall lowerGemmSpec(LowerCtx& c, const GemmSpec& s) {
  Node& n = c.node;
  // A and B: f32, f16 or bf16 (precision modes; converted on pack); C: f32; Y: f32, f16 or
  // bf16 (accumulated in f32, rounded on store).
  auto okDt = [&](size_t i) {
    DType t = n.inputs[i]->type.dtype;
    return t == DType::F32 || (i < 2 && (t == DType::F16 || t == DType::BF16));
  };
  const DType ydt = n.outputs[0]->type.dtype;
  if (ydt != DType::F32 && ydt != DType::F16 && ydt != DType::BF16)
    opError(n, std::string(n.type) + " writes float32, float16 or bfloat16 only");
  for (size_t i = 0; i < n.inputs.size() && i < 3; ++i)
    if (n.inputs[i] && !okDt(i))
      opError(n, std::string(n.type) + " supports float32 only in this version (input " +
                     std::to_string(i) + " is " + dtypeName(n.inputs[i]->type.dtype) + ")");
  if (s.batch.size() > 6) opError(n, "more than 6 batch dimensions");
  std::vector<int64_t> P(GM_COUNT, 0);
  P[GM_DTYPE] = (int64_t)n.inputs[0]->type.dtype;
  P[GM_BDT] = (int64_t)n.inputs[1]->type.dtype;
  P[GM_ODT] = (int64_t)ydt;
  P[GM_M] = s.M; P[GM_N] = s.N; P[GM_K] = s.K;
  P[GM_A_RS] = s.aRs; P[GM_A_CS] = s.aCs; P[GM_B_RS] = s.bRs; P[GM_B_CS] = s.bCs;
  P[GM_HAS_C] = s.hasC; P[GM_C_RS] = s.cRs; P[GM_C_CS] = s.cCs;
  P[GM_ALPHA] = paramFromDouble(s.alpha);
  P[GM_BETA] = paramFromDouble(s.beta);
  P[GM_YIDX] = (int64_t)n.inputs.size();
  P[GM_NBATCH] = (int64_t)s.batch.size();
  int64_t nbatch = 1;
  bool aBatchInv = true, bBatchInv = true;
  for (size_t i = 0; i < s.batch.size(); ++i) {
    P[GM_BATCH0 + i] = s.batch[i];
    P[GM_ABS0 + i] = s.aBatchStride[i];
    P[GM_BBS0 + i] = s.bBatchStride[i];
    nbatch *= s.batch[i];
    if (s.aBatchStride[i] != 0 && s.batch[i] > 1) aBatchInv = false;
    if (s.bBatchStride[i] != 0 && s.batch[i] > 1) bBatchInv = false;
  }
  // Microkernel family (kernels/lib/cube_gemm.h). A product of at most 6 rows (a batch-1
  // classifier: M = 1) takes the 6-row family on every target: the 16-row tile would compute 16
  // rows for it (ResNet-50's fc on Zen 5: 0.77 ms with 16 rows).
  const int64_t MR = c.cubeRows == 16 && s.M > 6 ? 16 : 6;
  P[GM_MR] = MR;
  // 16-row family, A read in place: its 16 rows, aRs floats apart, land in how many of the 64
  // L1 sets (64-byte lines; 32-48 KB L1s with 8-12 ways)? Fewer than 4 (rows 4 KB apart: all in
  // one set) thrash, so A is packed instead. The 6-row family reads in place as measured on Zen 3.
  if (MR == 16) {
    std::set<int64_t> sets;
    for (int64_t i = 0; i < MR; ++i) sets.insert(((i * s.aRs * 4) >> 6) & 63);
    P[GM_PACK_A] = sets.size() < 4 ? 1 : 0;
  }
  const int64_t K = std::max<int64_t>(s.K, 1);
  int64_t nk = K <= 512 ? 1 : (K + 319) / 320;
  int64_t KC = (K + nk - 1) / nk;
  int64_t mblocks = std::max<int64_t>(1, (s.M + 95) / 96);
  int64_t nblocks = std::max<int64_t>(1, (s.N + 255) / 256);
  auto mbOf = [&](int64_t mbk) { return ((s.M + mbk - 1) / mbk + MR - 1) / MR * MR; };
  auto nbOf = [&](int64_t nbk) { return ((s.N + nbk - 1) / nbk + 15) / 16 * 16; };
  while (nbatch * mblocks * nblocks < 8) {
    if (nbOf(nblocks) > 32) nblocks *= 2;
    else if (mbOf(mblocks) > 2 * MR) mblocks *= 2;
    else break;
  }
  int64_t MB = std::max<int64_t>(MR, mbOf(mblocks)), NB = std::max<int64_t>(16, nbOf(nblocks));
  mblocks = std::max<int64_t>(1, (s.M + MB - 1) / MB);
  nblocks = std::max<int64_t>(1, (s.N + NB - 1) / NB);
  const bool wide = wideGemmTiles(c, s, bBatchInv);
  if (wide) {
    nk = (K + 127) / 128;
    KC = (K + nk - 1) / nk;
    MB = std::min<int64_t>(96, (s.M + 47) / 48 * 48);
    NB = std::min<int64_t>(256, (s.N + 63) / 64 * 64);
    auto tasks = [&] { return nbatch * ((s.M + MB - 1) / MB) * ((s.N + NB - 1) / NB); };
    while (tasks() < 16 && NB > 64) NB = std::max<int64_t>(64, NB / 2 / 64 * 64);
    if (tasks() < 16) MB = 48;
    mblocks = (s.M + MB - 1) / MB;
    nblocks = (s.N + NB - 1) / NB;
    P[GM_WIDE] = 1;
    // bfloat16 A and B on a target with AVX512-BF16: the pair tiles (vdpbf16ps), K blocks of
    // <= 256 (even: a pair never straddles two blocks; the bfloat16 sub-panel is 32 KB again).
    if (c.bf16Dot && n.inputs[0]->type.dtype == DType::BF16 && n.inputs[1]->type.dtype == DType::BF16) {
      P[GM_BF16DP] = c.bf16Amx ? 3 : 1;
      nk = (K + 255) / 256;
      KC = ((K + nk - 1) / nk + 1) / 2 * 2;
      if (c.bf16Amx) {
        amxGemmBlocks(s, nbatch, MB, NB);
        mblocks = (s.M + MB - 1) / MB;
        nblocks = (s.N + NB - 1) / NB;
      }
    }
  }
  P[GM_MB] = MB; P[GM_NB] = NB; P[GM_KC] = KC;
  P[GM_MBLOCKS] = mblocks; P[GM_NBLOCKS] = nblocks;
  P[GM_SLOT] = (MB * KC + KC * 16 + 15) / 16 * 16;
  if (ydt != DType::F32) {  // fp32 accumulator block [MB][NB], rounded on store
    P[GM_ACC] = P[GM_SLOT];
    P[GM_SLOT] += MB * NB;
  }

  // Compile-time packing of constant, batch-invariant operands.
  if (n.hasAttr("_cube_apacked") || (n.inputs[0]->isConstant() && aBatchInv && s.M > 0 && s.K > 0)) {
    packGemmOperand(c, s, 0, MR);
    P[GM_A_PACKED] = 1;
  }
  if (n.hasAttr("_cube_bpacked") || (n.inputs[1]->isConstant() && bBatchInv && s.N > 0 && s.K > 0)) {
    packGemmOperand(c, s, 1, MR, wide ? 64 : 16, P[GM_BF16DP] != 0);
    P[GM_B_PACKED] = 1;
  }
  if (P[GM_A_PACKED]) P[GM_ALPHA] = paramFromDouble(1.0);  // folded into the packed A
  setCubeEpilogue(n, P.data() + GM_EPI);
  KernelCall kc{"gemm", P};
  kc.workspaceBytes = nbatch * mblocks * nblocks * P[GM_SLOT] * 4 + 64;
  return kc;
}

}  // namespace atc
