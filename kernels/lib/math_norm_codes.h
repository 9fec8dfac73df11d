// Parameter layouts of the softmax and normalisation kernels (kernels/lib/softmax.cpp,
// kernels/lib/norm.cpp), shared with ops/norm. Never renumber.
#pragma once

// "softmax": input viewed as [outer, n, inner], normalised along n.
enum AtckSoftmaxParam {
  ATCK_SP_MODE = 0,  // 0 Softmax, 1 LogSoftmax, 2 Hardmax
  ATCK_SP_DT = 1,
  ATCK_SP_OUTER = 2,
  ATCK_SP_N = 3,
  ATCK_SP_INNER = 4,
  ATCK_SP_OUTBUF = 5,
};

// "batchnorm" (inference): y = act((x - mean[c]) / sqrt(var[c] + eps) * scale[c] + B[c]) over
// x viewed as [N, C, S] (act: none, or the activation folded in after it). bufs: X, scale, B,
// mean, var, Y.
enum AtckBatchNormParam {
  ATCK_BP_DT = 0,
  ATCK_BP_N = 1,
  ATCK_BP_C = 2,
  ATCK_BP_S = 3,
  ATCK_BP_EPS = 4,  // double bits
  ATCK_BP_DTSCALE = 5,
  ATCK_BP_DTBIAS = 6,
  ATCK_BP_DTMEAN = 7,
  ATCK_BP_DTVAR = 8,
  ATCK_BP_OUTBUF = 9,
  ATCK_BP_ACT = 10,    // activation on the output (TbeReduceElemwiseFusionPass): AtckEltOp code + 1
  ATCK_BP_ACT_A = 11,  // its alpha, beta (double bits)
  ATCK_BP_ACT_B = 12,
  ATCK_BP_COUNT = 13,
};

// "normalize": per kept position, statistics over the reduced positions, then write.
// The input is collapsed into kept / reduced dims as for "reduce".
enum AtckNormKind {
  ATCK_NK_MEANVAR = 0,  // (x - mean) * 1/sqrt(var + eps)  (or / (sqrt(var) + eps))
  ATCK_NK_L1 = 1,       // x / sum|x|        (0 where the norm is 0)
  ATCK_NK_L2 = 2,       // x / sqrt(sum x^2) (0 where the norm is 0)
  ATCK_NK_RMS = 3,      // x * 1/sqrt(mean(x^2) + eps)  (RMSNormalization, opset 23)
};
enum AtckNormAffine {
  ATCK_NA_NONE = 0,
  ATCK_NA_PER_KEPT = 1,  // scale/bias[(kept index) % C]  (InstanceNormalization)
  ATCK_NA_PER_RED = 2,   // scale/bias[reduced index]     (LayerNormalization)
};
enum AtckNormParam {
  ATCK_NP_KIND = 0,
  ATCK_NP_DT = 1,
  ATCK_NP_K = 2,
  ATCK_NP_R = 3,
  ATCK_NP_NOUT = 4,
  ATCK_NP_NRED = 5,
  ATCK_NP_EPS = 6,          // double bits
  ATCK_NP_EPS_ON_STD = 7,   // 1: divide by sqrt(var) + eps (MeanVarianceNormalization)
  ATCK_NP_AFFINE = 8,
  ATCK_NP_C = 9,
  ATCK_NP_SCALEBUF = 10,    // -1: none
  ATCK_NP_BIASBUF = 11,     // -1: none
  ATCK_NP_DTAFFINE = 12,
  ATCK_NP_OUTBUF = 13,
  ATCK_NP_MEANBUF = 14,     // -1: none (LayerNormalization optional outputs)
  ATCK_NP_INVSTDBUF = 15,   // -1: none
  ATCK_NP_DTSTAT = 16,
  ATCK_NP_PER_TASK = 17,
  ATCK_NP_ADDBUF = 18,      // -1: none; else x + this buffer (same layout) is normalised
  ATCK_NP_ACT = 19,         // activation on the output: AtckEltOp unary code + 1 (0: none)
  ATCK_NP_ACT_A = 20,       // its alpha, beta (double bits)
  ATCK_NP_ACT_B = 21,
  ATCK_NP_HEADER = 22,
  // then keptShape[K], keptStrides[K], redShape[R], redStrides[R]
};

#define ATCK_NORM_BLOCK 16384
// Softmax work item: rows of about this many elements (smaller than ATCK_NORM_BLOCK so that
// attention-sized softmaxes, 8K elements, are shared by two threads).
#define ATCK_SOFTMAX_BLOCK 2048
#define ATCK_NORM_VEC 128
