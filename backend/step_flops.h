// Multiply-add work of a cube op (Conv, ConvTranspose, MatMul, Gemm) for the profiler's
// GFLOP/s column: 2 x output elements x reduction length, from the original (unpacked)
// operand shapes. 0 for other ops or when a shape is not static.
#pragma once
#include <cstdint>

namespace atc {
class Node;
int64_t cubeFlops(const Node& n);
}  // namespace atc
