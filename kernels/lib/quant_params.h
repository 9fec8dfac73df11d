// Parameter layouts of the quantization kernels (kernels/lib/quant.cpp, qgemm.cpp, qconv.cpp),
// shared with their lowerings (ops/quant). Plain C header; never renumber (the params are
// baked into compiled .om kernels).
#pragma once

// ---- quant: QuantizeLinear / DequantizeLinear, element-wise ----
// DQ: y = (float(x) - float(zp)) * scale            (y: the scale's float dtype)
// Q:  y = saturate(rint(float(x) / scale) + zp)     (rint: nearest, ties to even)
// Scale and zero point are indexed per tensor, per slice of `axis`, or per block of BLOCK
// elements along `axis`. The element index i of x splits into (outer, a, inner) with
// a in [0, AXLEN) and inner in [0, INNER).
// bufs: x, scale, [zero point], y.
enum QuantParam {
  QP_MODE = 0,     // 0: dequantize, 1: quantize
  QP_XDT,          // dtype codes (AtckDType)
  QP_YDT,
  QP_SDT,          // scale dtype (float32, float16, bfloat16)
  QP_ZDT,          // zero point dtype (0: no zero point)
  QP_TOTAL,        // elements of x
  QP_AXLEN,        // length of the quantization axis (1 for per-tensor)
  QP_INNER,        // elements after the axis
  QP_KIND,         // 0: per tensor, 1: per axis, 2: blocked
  QP_BLOCK,        // blocked: elements of the axis per scale
  QP_YBUF,         // index of y in bufs
  QP_COUNT
};
#define QP_TASK_ELEMS 16384

// ---- dynquant: DynamicQuantizeLinear (uint8), one task ----
// bufs: x (float32), y (uint8), y_scale (float32 scalar), y_zero_point (uint8 scalar).
enum DynQuantParam { DQP_TOTAL = 0, DQP_COUNT };

// ---- Integer products: qgemm (MatMulInteger, QLinearMatMul) and qconv (ConvInteger,
// QLinearConv). Both accumulate (a - a_zp) * (b - b_zp) exactly in int32 and finish with an
// output stage:
//   QO_INT32:   y = acc                                            (int32)
//   QO_REQUANT: y = saturate(rint(acc * (a_scale * b_scale / y_scale)) + y_zp)
//               (scales per tensor, per row of A / per output channel of the weights, per
//               column of B; computed in float32 as ONNX's reference does; int8 or uint8)
enum QOutMode { QO_INT32 = 0, QO_REQUANT = 1 };

// Operand descriptor words (zero point and scale of one operand), 5 words each:
//   {zero point buffer (-1: none), its dtype, zero point per element (0/1),
//    scale buffer (-1: none), scale dtype}
// "per element": the zero point / scale has one value per row of A, per column of B, per
// output channel of the weights (its index in that dimension), else one value.
enum QOperandWord { QW_ZBUF = 0, QW_ZDT, QW_PER, QW_SBUF, QW_SDT, QW_COUNT };

// qgemm: Y[b][m][n] = sum_k (A[b][m][k] - azp) * (B[b][k][n] - bzp), batched, row-major A
// [M][K] and B [K][N] with per-batch element strides (0: broadcast).
enum QGemmParam {
  QG_M = 0, QG_N, QG_K, QG_BATCH,
  QG_ADT, QG_BDT, QG_YDT,
  QG_ASTRIDE, QG_BSTRIDE,       // batch strides (elements)
  QG_ABUF, QG_BBUF, QG_YBUF,    // buffer indices
  QG_MODE,                      // QOutMode
  QG_YZBUF, QG_YZDT, QG_YSBUF, QG_YSDT,  // output zero point / scale (QO_REQUANT)
  QG_AW,                        // A's operand words [QW_COUNT]
  QG_BW = QG_AW + QW_COUNT,     // B's operand words
  QG_COUNT = QG_BW + QW_COUNT
};
#define QG_NB 256   // columns accumulated at once per task (int32 stack row)

// qconv: NCHW convolution with groups over 1 to 3 spatial dims (normalised to 3: D, H, W),
// X [N][C][ID][IH][IW], W [OC][C/G][KD][KH][KW], optional int32 bias B [OC] added to acc.
// One task per (n, output channel); the accumulator plane [OD*OH*OW] int32 is the task's
// workspace slot.
enum QConvParam {
  QC_N = 0, QC_C, QC_OC, QC_G,
  QC_ID, QC_IH, QC_IW, QC_OD, QC_OH, QC_OW,
  QC_KD, QC_KH, QC_KW,
  QC_SD, QC_SH, QC_SW, QC_DD, QC_DH, QC_DW, QC_PD, QC_PH, QC_PW,  // strides, dilations, begin pads
  QC_XDT, QC_WDT, QC_YDT,
  QC_XBUF, QC_WBUF, QC_BBUF, QC_YBUF,  // bias buffer -1: none
  QC_MODE,
  QC_YZBUF, QC_YZDT, QC_YSBUF, QC_YSDT,
  QC_SLOT,                             // workspace bytes per task
  QC_XW,                               // X's operand words
  QC_WW = QC_XW + QW_COUNT,            // W's operand words (per element: per output channel)
  QC_COUNT = QC_WW + QW_COUNT
};
