// Parameter layouts of the fused kernels written by the UB-fusion passes (passes/ub_fusion,
// ops/fused). Plain C header shared by kernels and lowerings; never renumber.
#pragma once

// fused_eltwise: one loop over the output evaluating a small expression program per element.
// Registers 0..NIN-1 hold the inputs (broadcast like kernel "eltwise"), then each op writes
// its own register (SSA). Op entry: {code, dst, a, b, alpha bits, beta bits}; code is an
// AtckEltOp (unary: r[a]; binary: r[a], r[b]; alpha/beta: the op's float params) or
// FE_OP_CONST (dst = alpha). Inputs and output float32, or all of dtype FE_DT (float16 /
// bfloat16, converted on load and rounded on store; the program runs in float32).
enum FusedEltParam {
  FE_NIN = 0, FE_RANK, FE_TOTAL, FE_OUTBUF, FE_NOPS, FE_OUTREG,
  FE_DT = 6,  // 0: float32; else the dtype code of every input and the output
  FE_HEADER = 8,
  // then: input buffer indices [NIN], shape [RANK], strides [NIN][RANK], ops [NOPS][6]
};
#define FE_OP_CONST 200
#define FE_OP_WORDS 6
#define FE_MAX_IN 8
#define FE_MAX_REG 40
#define FE_MAX_RANK 8
#define FE_BLK 32
#define FE_TASK_ELEMS 8192

// Epilogue descriptor appended to the cube kernels' params (conv, conv_dw, gemm):
// act = AtckEltOp unary code or -1, alpha/beta its float params, res = buffer index of a
// residual input of the output's shape added before the activation (-1: none).
enum CubeEpilogueParam { EPI_ACT = 0, EPI_ALPHA, EPI_BETA, EPI_RES, EPI_COUNT };
