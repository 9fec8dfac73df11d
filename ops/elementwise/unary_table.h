// The unary element-wise ops of the kernel library (math, activations): op type -> AtckEltOp
// code and the attributes that become its alpha / beta parameters, with ONNX's defaults.
// One table for the Unary op lowering (unary.cpp), the cube and normalisation epilogues
// (passes/ub_fusion/epilogue_activation.h) and the fused element-wise groups (eltwise_group).
#pragma once
#include <cstdint>
#include <string>

#include "ir/graph.h"

namespace atc {

struct UnaryOpRow {
  const char* type;
  int64_t code;
  const char* a1 = nullptr;  // attribute -> alpha
  double d1 = 0;
  const char* a2 = nullptr;  // attribute -> beta (or gamma for Selu)
  double d2 = 0;
  bool boolOut = false;
};

// The row of a unary op type, or null.
const UnaryOpRow* findUnaryOp(const std::string& type);
// alpha and beta of n from its attributes (the row's defaults when absent, 0 when the op has none).
void unaryAlphaBeta(const UnaryOpRow& row, const Node& n, double* alpha, double* beta);

}  // namespace atc
