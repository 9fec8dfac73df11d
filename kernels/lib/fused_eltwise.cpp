// fused_eltwise: a connected group of element-wise ops compiled into one loop (UB fusion).
// Params: FusedEltParam (fused_params.h). The output shape is collapsed like kernel
// "eltwise"; rows of the innermost dim are processed in blocks of FE_BLK elements: each
// input is read once into its register block, the program's ops run on the blocks (once the
// params are constants LLVM unrolls the program and the op switch disappears), and the
// result is written once. bufs: inputs..., output. Float16 / bfloat16 storage (FE_DT): inputs
// widened into the register blocks and the result rounded on its store, 16 lanes at a time.
#include "kernels/lib/fused_params.h"
#include "kernels/lib/bcast_walk.h"
#include "kernels/lib/kernel_abi.h"
#include "kernels/lib/math_ops.h"

ATC_KERNEL(fused_eltwise)

int64_t atck_fused_eltwise_ntasks(const int64_t* P) {
  return (P[FE_TOTAL] + FE_TASK_ELEMS - 1) / FE_TASK_ELEMS;
}

#define FE_LOOP(EXPR) for (int i = 0; i < FE_BLK; ++i) d[i] = (EXPR)
#define FE_UN(CODE) case CODE: FE_LOOP(atck_unary_f<float>(CODE, a[i], prm)); return;
#define FE_BIN(CODE) case CODE: FE_LOOP(atck_binary<float>(CODE, a[i], b[i], prm)); return;

static inline ATCK_INLINE void fe_apply(int64_t code, float* ATCK_RESTRICT d, const float* a,
                                        const float* b, const AtckEltPrm& prm) {
  switch (code) {
    case FE_OP_CONST: FE_LOOP((float)prm.a); return;
    FE_UN(ATCK_E_COPY) FE_UN(ATCK_E_RELU) FE_UN(ATCK_E_LEAKYRELU) FE_UN(ATCK_E_CLIP)
    FE_UN(ATCK_E_SIGMOID) FE_UN(ATCK_E_TANH) FE_UN(ATCK_E_ERF) FE_UN(ATCK_E_EXP)
    FE_UN(ATCK_E_SQRT) FE_UN(ATCK_E_RECIPROCAL) FE_UN(ATCK_E_NEG) FE_UN(ATCK_E_ABS)
    FE_UN(ATCK_E_GELU) FE_UN(ATCK_E_SQUARE) FE_UN(ATCK_E_HARDSIGMOID) FE_UN(ATCK_E_HARDSWISH)
    FE_UN(ATCK_E_LOG) FE_UN(ATCK_E_ELU)
    FE_BIN(ATCK_E_ADD) FE_BIN(ATCK_E_SUB) FE_BIN(ATCK_E_MUL) FE_BIN(ATCK_E_DIV)
    FE_BIN(ATCK_E_MAX) FE_BIN(ATCK_E_MIN) FE_BIN(ATCK_E_POW) FE_BIN(ATCK_E_PRELU)
    default:
      if (code <= ATCK_E_UNARY_END) FE_LOOP(atck_unary_f<float>(code, a[i], prm));
      else FE_LOOP(atck_binary<float>(code, a[i], b[i], prm));
      return;
  }
}

static inline ATCK_INLINE void fe_row(const int64_t* P, void** bufs, const int64_t* off,
                                      const int64_t* istr, int64_t o, int64_t n) {
  const int64_t nin = P[FE_NIN], nops = P[FE_NOPS], rank = P[FE_RANK];
  const int64_t* bix = P + FE_HEADER;
  const int64_t* ops = bix + nin + rank + nin * rank;
  const int64_t dt = P[FE_DT];
  float* out = (float*)bufs[P[FE_OUTBUF]];
  float R[FE_MAX_REG][FE_BLK];
  for (int64_t j0 = 0; j0 < n; j0 += FE_BLK) {
    const int64_t cnt = n - j0 < FE_BLK ? n - j0 : FE_BLK;
    for (int64_t k = 0; k < nin; ++k) {
      const int64_t s = istr[k];
      if (dt) {  // float16 / bfloat16
        const int64_t at = off[k] + j0 * s;
        if (cnt == FE_BLK) {
          atck_ld_run_f32(R[k], bufs[bix[k]], dt, at, s, FE_BLK);
        } else {
          atck_ld_run_f32(R[k], bufs[bix[k]], dt, at, s, cnt);
          for (int64_t i = cnt; i < FE_BLK; ++i) R[k][i] = 0.0f;
        }
        continue;
      }
      const float* in = (const float*)bufs[bix[k]] + off[k] + j0 * istr[k];
      if (cnt == FE_BLK) {
        for (int i = 0; i < FE_BLK; ++i) R[k][i] = in[i * s];
      } else {
        for (int64_t i = 0; i < cnt; ++i) R[k][i] = in[i * s];
        for (int64_t i = cnt; i < FE_BLK; ++i) R[k][i] = 0.0f;
      }
    }
    for (int64_t q = 0; q < nops; ++q) {
      const int64_t* e = ops + q * FE_OP_WORDS;
      AtckEltPrm prm;
      prm.a = atck_d(e[4]);
      prm.b = atck_d(e[5]);
      prm.g = 0;
      prm.ia = 0;
      prm.ib = 0;
      fe_apply(e[0], R[e[1]], R[e[2]], R[e[3] < 0 ? e[2] : e[3]], prm);
    }
    const float* r = R[P[FE_OUTREG]];
    if (dt) {
      if (cnt == FE_BLK) {
        ATCK_VEC16
        for (int i = 0; i < FE_BLK; ++i) atck_st<float>(out, dt, o + j0 + i, r[i]);
      } else {
        for (int64_t i = 0; i < cnt; ++i) atck_st<float>(out, dt, o + j0 + i, r[i]);
      }
      continue;
    }
    float* d = out + o + j0;
    if (cnt == FE_BLK) {
      for (int i = 0; i < FE_BLK; ++i) d[i] = r[i];
    } else {
      for (int64_t i = 0; i < cnt; ++i) d[i] = r[i];
    }
  }
}

void atck_fused_eltwise_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t lo = begin * FE_TASK_ELEMS, hi = end * FE_TASK_ELEMS;
  if (hi > P[FE_TOTAL]) hi = P[FE_TOTAL];
  if (lo >= hi) return;
  const int64_t nin = P[FE_NIN], rank = P[FE_RANK];
  const int64_t* shape = P + FE_HEADER + nin;
  const int64_t* strides = shape + rank;
  atck_bcast_walk(shape, strides, rank, nin, lo, hi,
                  [&](const int64_t* off, const int64_t* istr, int64_t idx, int64_t seg) ATCK_INLINE {
                    fe_row(P, bufs, off, istr, idx, seg);
                  });
}
