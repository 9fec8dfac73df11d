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
  QP_SAT,          // quantize to float8: the saturate attribute (values beyond the format's range)
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

// ---- qconv8: 2-D convolution of an 8-bit input with int8 weights, float32 output ----
// (QuantizedConv, ops/quant/quantized_conv.cpp, made by QdqConvFoldPass from
// DequantizeLinear -> Conv.) Per output channel oc and pixel p:
//   y = float(sum_k (xq[k,p] - x_zp) * w[oc,k]) * mult[oc] + bias[oc]   (then ReLU / Clip;
//   then, with OQ, y = (saturate(rint(y / oscale) + ozp) - ozp) * oscale: a following
//   QuantizeLinear -> DequantizeLinear pair of a QDQ model)
// xq is X itself (uint8 / int8) or, for a float32 X, QuantizeLinear(X, x_scale, x_zp)
// computed while X is packed. The sum is exact int32 (u8 x s8 products, as vpdpbusd does).
// int8 inputs are flipped to uint8 (xor 0x80, zero point + 128) when packed.
// Layouts (made by the lowering):
//   packed weights (WBUF): int8 [OCP/16][KQ][16][4], KQ = C4*KH*KW k-quads, quad kq =
//     (cq, kh, kw) = ((kh*KW + kw)*C4 + cq): 4 input channels 4cq..4cq+3 at one tap; zero
//     past C and OC. With Q8_VNNI 4 (the widening AVX2 path) the same weights widened to
//     int16 pairs: int32 words [OCP/16][KQ][2][16], word [0][o] = (w[o][0], w[o][2]) and
//     [1][o] = (w[o][1], w[o][3]) (low half first) for quad bytes w[o][0..3].
//   aux (ABUF): float mult[OCP], float bias[OCP], int32 comp[OCP] = x_zp' * sum_k w[oc,k]
//     (x_zp' the zero point after the flip), so acc - comp = sum (xq - x_zp) * w. With OQ 2
//     and no R: mult / oscale and (bias - comp * mult) / oscale + ozp in place of mult and bias.
//   band (workspace, per task): uint8 [C4][HB][WPP][4]: the task's input rows, zero-point
//     padded, columns stored as SW phases (column q at (q % SW)*PQ + q / SW), 4 channels per
//     32-bit word; the 16 output columns of one microkernel tile are 16 consecutive words.
// Q8_VNNI / QM_VNNI of the widening AVX2 path, whose weights are packed as int16 pairs, and of
// the same layout accumulated by the portable code (kernel tests; never chosen by a target).
#define Q8_WIDE_PATH 4
#define Q8_WIDE_PORTABLE 5
#define Q8_IS_WIDE(v) ((v) == Q8_WIDE_PATH || (v) == Q8_WIDE_PORTABLE)
enum QConv8Param {
  Q8_N = 0, Q8_C, Q8_OC, Q8_IH, Q8_IW, Q8_OH, Q8_OW, Q8_KH, Q8_KW,
  Q8_SH, Q8_SW, Q8_DH, Q8_DW, Q8_PH, Q8_PW,
  Q8_XDT,            // float32, uint8 or int8
  Q8_XSCALE,         // atck_f(x_scale) (float32 X)
  Q8_XZP,            // x's zero point (uint8 or int8 value)
  Q8_QDT,            // dtype of the quantized x (uint8 or int8): X's own, or x_zero_point's
  Q8_ACT,            // 0: none, 1: ReLU, 2: Clip to [ACTLO, ACTHI]
  Q8_VNNI,           // 1: vpdpbusd, 512-bit (AVX512-VNNI); 2: 256-bit (AVX-VNNI); 4: int16 vpmaddwd
                     // (AVX2, widened weights); 0: portable int32 code
  Q8_C4, Q8_KQ, Q8_OCP,                 // channel quads, k-quads, output channels padded to 16
  Q8_RB, Q8_NRB,                        // output rows per task, row blocks per image
  Q8_PANELS, Q8_NOCG,                   // 16-channel panels per task, channel groups
  Q8_HB, Q8_PQ, Q8_WPP,                 // band: input rows, words per phase row, the tiles' row pitch (PQ)
  Q8_PLANE,                             // words per quad plane (>= SH*SW*ceil(HB/SH)*PQ)
  Q8_SLOT,                              // workspace bytes per task
  Q8_XBUF, Q8_WBUF, Q8_ABUF, Q8_YBUF,
  Q8_ACTLO, Q8_ACTHI,                   // atck_f: Clip bounds (Q8_ACT 2)
  Q8_OQ,                                // 1: y goes through QuantizeLinear + DequantizeLinear;
                                        // 2: through QuantizeLinear alone (Y uint8 / int8)
  Q8_OSCALE, Q8_OZP, Q8_OQLO, Q8_OQHI,  // their scale (atck_f), zero point, saturation range
  Q8_RBUF,                              // residual R added after the activation (-1: none)
  Q8_PACT, Q8_PACTLO, Q8_PACTHI,        // the activation after R: as Q8_ACT / ACTLO / ACTHI
  Q8_RDT, Q8_RSCALE, Q8_RZP,            // R's dtype: float32, or uint8 / int8 read as
                                        // (r - RZP) * RSCALE (atck_f): a quantized block output
  Q8_COUNT
};

// ---- qdwconv8: depthwise 2-D convolution (group == C == OC) of an 8-bit input with int8 ----
// weights (QuantizedConv with group == C). Per channel c and pixel p:
//   y = float(sum_k (xq[c,k,p] - x_zp) * w[c,k]) * mult[c] + bias[c], then the activation and
//   the output stage (OQ as Q8_OQ: float32, Q/DQ to float32, or quantized uint8 / int8).
// A task is PPT planes (n, c); each plane in bands of MB output rows. A band's padded input
// rows (quantized, or copied, int8 flipped to uint8; zero-point padding) become rows of 32-bit
// "tap words": word (row r, quad g, output column ow) holds the 4 bytes of padded row r at
// columns ow * SW + (4g + j) * DW, j = 0..3 (kernel columns 4g..4g+3; zero weights past KW),
// so one vpdpbusd sums 4 taps of 16 outputs. Word rows are stored per row phase (r % SH) and
// quad, OW words each, one row after another: word row i + kh*DH/SH of phase (kh*DH) % SH at
// column ow is the tap row kh of output (oh0 + i, ow), so the outputs of a band run flat
// (t = (oh - oh0) * OW + ow) over every tap row: 16 consecutive outputs, one 64-byte load.
//   packed weights (WBUF): int32 words [C][KH][NQ] (4 int8 taps each, kernel columns 4g..4g+3)
//   aux (ABUF): float mult[C], float bias[C], int32 comp[C] = x_zp' * sum_k w[c,k]; with OQ 2
//     mult / oscale and (bias - comp * mult) / oscale + ozp in place of mult and bias (the
//     requantization folded: qconv8_common.h q8_req_bounds), as in qconv8 without R
enum QDw8Param {
  QD_N = 0, QD_C, QD_IH, QD_IW, QD_OH, QD_OW, QD_KH, QD_KW,
  QD_SH, QD_SW, QD_DH, QD_DW, QD_PH, QD_PW,
  QD_XDT, QD_XSCALE, QD_XZP, QD_QDT,   // as Q8_XDT, Q8_XSCALE, Q8_XZP, Q8_QDT
  QD_ACT, QD_ACTLO, QD_ACTHI,          // as Q8_ACT, Q8_ACTLO, Q8_ACTHI
  QD_OQ, QD_OSCALE, QD_OZP, QD_OQLO, QD_OQHI,  // as Q8_OQ...
  QD_VNNI,                             // 1: vpdpbusd 512-bit; 2: 256-bit (AVX-VNNI); 4: vpmaddwd (AVX2); 0: portable
  QD_NQ,                               // tap quads per kernel row: ceil(KW / 4)
  QD_MB, QD_WROWS,                     // output rows per band; word rows per phase (MB + (KH-1)*DH/SH)
  QD_PADW,                             // bytes of the padded-row scratch
  QD_PPT,                              // planes per task
  QD_SLOT,                             // workspace bytes per call (words, scratch, accumulators)
  QD_XBUF, QD_WBUF, QD_ABUF, QD_YBUF,
  QD_COUNT
};

// ---- qmatmul8: matrix product of an 8-bit input with constant int8 weights, float32 out ----
// (QuantizedMatMul, ops/quant/quantized_matmul.cpp, made by QdqConvFoldPass from
// DequantizeLinear -> MatMul / Gemm with dequantized int8 weights.) Per row m of X [M][K]
// (X's leading dimensions flattened) and column n:
//   y[m][n] = float(sum_k (xq[m][k] - x_zp) * w[n][k]) * mult[n] + bias[n]
// xq as in qconv8 (float32 X quantized while its rows are packed; uint8 / int8 X copied,
// int8 flipped to uint8). The sum is exact int32.
// Layouts (made by the lowering):
//   packed weights (WBUF): int8 [NP/16][KQ][16][4], qconv8's panels with OC = N, C = K, 1x1
//     (KQ = ceil(K / 4) k-quads; zero past K and N); with QM_VNNI 4 widened as qconv8's.
//   aux (ABUF): float mult[NP], float bias[NP], int32 comp[NP] = x_zp' * sum_k w[n][k], as qconv8.
//   rows (workspace, per task): uint8 [MBP][KQ * 4], the task's rows of xq (MBP = MB rounded up
//     to 8), zero-point padded past K and past M; per k-quad one 32-bit word (one vpdpbusd
//     operand element, broadcast).
// A task is a block of MB rows times a group of PANELS 16-column panels; tiles are 8 rows x
// 48 columns (three panels), fewer columns at the end of a group.
enum QMatMul8Param {
  QM_M = 0, QM_K, QM_N, QM_KQ, QM_NP,  // rows, depth, columns, k-quads, columns padded to 16
  QM_XDT, QM_XSCALE, QM_XZP, QM_QDT,   // as Q8_XDT, Q8_XSCALE, Q8_XZP, Q8_QDT
  QM_VNNI,                             // as Q8_VNNI (1: AVX512-VNNI, 2: AVX-VNNI, 4: AVX2 widened,
                                       // 0: portable), and 3: AMX-INT8 tiles of 16 rows (tdpbusd)
  QM_MB, QM_NMB,                       // rows per task, row blocks
  QM_PANELS, QM_NPG,                   // 16-column panels per task (a multiple of 3), groups
  QM_SLOT,                             // workspace bytes per task
  QM_XBUF, QM_WBUF, QM_ABUF, QM_YBUF,
  QM_COUNT
};
