// Compile-time packing shared by the int8 kernels of QDQ models (QuantizedConv: qconv8;
// QuantizedMatMul: qmatmul8; layouts in kernels/lib/quant_params.h).
#pragma once
#include <cstdint>

#include "ir/graph.h"

namespace atc {

// Weights w int8 [OC, C, KH, KW] packed as [OCP/16][KQ][16][4] int8 (KQ = C4 * KH * KW k-quads,
// quad kq = (cq * KH + kh) * KW + kw holding input channels 4cq..4cq+3), zero past C and OC.
// A matrix product's weights [N, K] are the 1x1 case (OC = N, C = K).
TensorPtr packQ8Weights(const Tensor& w, int64_t OC, int64_t C, int64_t KH, int64_t KW, int64_t OCP, int64_t C4);

// The packed weights above widened for the AVX2 path (Q8_WIDE_PATH): per (panel, k-quad) 32
// int32 words, [0][o] holding output o's quad bytes 0 and 2 as int16, [1][o] bytes 1 and 3
// (vpmaddwd operands against the band's even and odd bytes); int8 storage of twice the size.
TensorPtr widenQ8Weights(const Tensor& packed);

// The epilogue words of node n (inputs: 3 w int8 [OC, K...], 4 mult [OC], 5 B [OC] optional):
// float mult[OCP], float bias[OCP], int32 comp[OCP] = zpFlipped * sum of the channel's K
// weights. With out_quantize and no residual input 6: mult / out_scale and (bias - comp *
// mult) / out_scale + out_zero_point in place of mult and bias (the requantization folded).
TensorPtr q8Aux(const Node& n, int64_t OC, int64_t OCP, int64_t K, int32_t zpFlipped);

// The checks both ops make of inputs 1, 2, 4, 5: x_scale float32 scalar, x_zero_point uint8 /
// int8 scalar (x's dtype when x is quantized), mult and B float32 with OC values (mult unchecked
// once packed). `per` names what OC counts ("output channel").
void checkQ8Operands(const Node& n, int64_t OC, bool packed, const char* per);

}  // namespace atc
