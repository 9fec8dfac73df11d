// Op codes and parameter layout of the generic element-wise kernel "eltwise"
// (kernels/lib/eltwise.cpp). Shared by the kernel and the op lowerings (ops/elementwise).
// Plain C header: never renumber (codes are baked into compiled .om kernels' params).
#pragma once

enum AtckEltOp {
  // ---- unary: r = f(x0) (alpha/beta/gamma: float params, ia/ib: integer params) ----
  ATCK_E_COPY = 0,  // also Cast: conversion happens in load/store
  ATCK_E_RELU = 1,
  ATCK_E_LEAKYRELU = 2,  // alpha
  ATCK_E_ELU = 3,        // alpha
  ATCK_E_SELU = 4,       // alpha, gamma
  ATCK_E_CELU = 5,       // alpha
  ATCK_E_CLIP = 6,       // alpha=min, beta=max (ia/ib for integer compute)
  ATCK_E_SIGMOID = 7,
  ATCK_E_HARDSIGMOID = 8,  // alpha, beta
  ATCK_E_HARDSWISH = 9,
  ATCK_E_SOFTPLUS = 10,
  ATCK_E_SOFTSIGN = 11,
  ATCK_E_TANH = 12,
  ATCK_E_ERF = 13,
  ATCK_E_EXP = 14,
  ATCK_E_LOG = 15,
  ATCK_E_SQRT = 16,
  ATCK_E_RECIPROCAL = 17,
  ATCK_E_NEG = 18,
  ATCK_E_ABS = 19,
  ATCK_E_FLOOR = 20,
  ATCK_E_CEIL = 21,
  ATCK_E_ROUND = 22,  // half to even
  ATCK_E_SIGN = 23,
  ATCK_E_SIN = 24,
  ATCK_E_COS = 25,
  ATCK_E_TAN = 26,
  ATCK_E_ASIN = 27,
  ATCK_E_ACOS = 28,
  ATCK_E_ATAN = 29,
  ATCK_E_SINH = 30,
  ATCK_E_COSH = 31,
  ATCK_E_ASINH = 32,
  ATCK_E_ACOSH = 33,
  ATCK_E_ATANH = 34,
  ATCK_E_THRESHOLDEDRELU = 35,  // alpha
  ATCK_E_SHRINK = 36,           // alpha=bias, beta=lambd
  ATCK_E_NOT = 37,
  ATCK_E_ISNAN = 38,
  ATCK_E_ISINF = 39,  // ia=detect_negative, ib=detect_positive
  ATCK_E_SQUARE = 40,
  ATCK_E_GELU = 41,   // x * 0.5 * (1 + erf(x / sqrt(2))) (for fusion passes)
  ATCK_E_SILU = 42,   // x * sigmoid(x) (Swish: Sigmoid-Mul cube epilogue)
  ATCK_E_MISH = 43,   // x * tanh(softplus(x)) (opset 18)
  ATCK_E_BITNOT = 44, // ~x, integers only (BitwiseNot, opset 18)
  ATCK_E_UNARY_END = 63,
  // ---- n-ary folds: r = x0 op x1 op x2 ... (binary ops use 2 inputs) ----
  ATCK_E_ADD = 64,
  ATCK_E_SUB = 65,
  ATCK_E_MUL = 66,
  ATCK_E_DIV = 67,
  ATCK_E_POW = 68,
  ATCK_E_MAX = 69,
  ATCK_E_MIN = 70,
  ATCK_E_MEAN = 71,  // sum then / nin
  ATCK_E_MOD = 72,   // ia = fmod
  ATCK_E_EQUAL = 73,
  ATCK_E_LESS = 74,
  ATCK_E_GREATER = 75,
  ATCK_E_LESSEQ = 76,
  ATCK_E_GREATEREQ = 77,
  ATCK_E_AND = 78,
  ATCK_E_OR = 79,
  ATCK_E_XOR = 80,
  ATCK_E_BITSHIFT_L = 81,
  ATCK_E_BITSHIFT_R = 82,
  ATCK_E_PRELU = 83,  // x0 < 0 ? x0 * x1 : x0
  ATCK_E_BITAND = 84, // integers only (BitwiseAnd/Or/Xor, opset 18)
  ATCK_E_BITOR = 85,
  ATCK_E_BITXOR = 86,
  // ---- ternary ----
  ATCK_E_WHERE = 96,  // x0 ? x1 : x2
  ATCK_E_CLIP3 = 97,  // min(max(x0, x1), x2) with runtime bounds
};

// Activations a cube epilogue computes in a register (cube_epi16, kernels/lib/cube_gemm.h):
// the lowerings choose kernels by it (conv_dwc needs it).
static inline int atck_act_in_regs(long long act) {
  return act == ATCK_E_RELU || act == ATCK_E_CLIP || act == ATCK_E_SIGMOID || act == ATCK_E_SILU ||
         act == ATCK_E_HARDSIGMOID || act == ATCK_E_HARDSWISH || act == ATCK_E_LEAKYRELU;
}

// Parameter layout of kernel "eltwise":
enum AtckEltParam {
  ATCK_EP_OP = 0,      // AtckEltOp
  ATCK_EP_CT = 1,      // compute type (AtckComputeType)
  ATCK_EP_NIN = 2,     // number of inputs (1..ATCK_ELT_MAX_IN)
  ATCK_EP_RANK = 3,    // rank of the (collapsed) output shape, 1..ATCK_ELT_MAX_RANK
  ATCK_EP_TOTAL = 4,   // number of output elements
  ATCK_EP_OUTDT = 5,   // output dtype code
  ATCK_EP_ALPHA = 6,   // double bits
  ATCK_EP_BETA = 7,    // double bits
  ATCK_EP_GAMMA = 8,   // double bits
  ATCK_EP_IA = 9,
  ATCK_EP_IB = 10,
  ATCK_EP_OUTBUF = 11,  // index of the output in bufs (= the node's input count)
  ATCK_EP_HEADER = 12,
  // then: in dtypes [nin], in buffer indices [nin], shape [rank],
  //       strides [nin][rank] (element strides, 0 = broadcast)
};

// Kernel "eltwise_ds": an "eltwise" call over a value whose shape depends on data
// (Value::shapeFromData) as input DS_SRC: its params follow this header; the collapsed layout
// is flat (rank 1, the data input at stride 1, any other input a scalar), so the elements of
// the actual shape are the first prod(dims) of the bound. Only those are computed; task 0
// copies the RANK dims from byte SRC_AT of the input's buffer to DST_AT of the output's.
enum AtckEltDsParam {
  ATCK_DS_SRC = 0,     // buffer index of the data-shaped input
  ATCK_DS_SRC_AT = 1,
  ATCK_DS_DST_AT = 2,  // the output is bufs[eltwise params' ATCK_EP_OUTBUF]
  ATCK_DS_RANK = 3,
  ATCK_DS_HEADER = 4,
};

// Kernel "eltwise_rs": an "eltwise" call over a run-sized value (docs/dynamic-shapes.md,
// "Run-sized values"), its params after this header; flat (rank 1, the run-sized input at
// stride 1, every other input a scalar). Size pass (output null): task 0 copies the input's
// dims (its dims slot, bufs[IN_SLOT]) to the output's (bufs[OUT_SLOT]); then each of the
// ATCK_ELT_RS_TASKS tasks computes its share of the actual elements.
enum AtckEltRsParam {
  ATCK_RS_OUT_SLOT = 0,
  ATCK_RS_IN_SLOT = 1,
  ATCK_RS_RANK = 2,
  ATCK_RS_HEADER = 3,
};
#define ATCK_ELT_RS_TASKS 16

#define ATCK_ELT_MAX_IN 32
#define ATCK_ELT_MAX_RANK 16
#define ATCK_ELT_BLOCK 16384
