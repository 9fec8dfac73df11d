// QdqConvFoldPass (passes/quant/qdq_conv_fold_pass.cpp): DequantizeLinear -> Conv of QDQ
// models -> QuantizedConv (int8 kernel), and what constant folding must leave for it.
#pragma once
#include "ir/graph.h"
#include "passes/pass.h"

namespace atc {

// True when the target has an int8 conv path and QdqConvFoldPass is not switched off.
bool qdqConvFoldWanted(const PassContext& ctx);

// Constant folding asks this before folding a node: a DequantizeLinear of constant int8
// weights read by a Conv is kept (the fold pass needs the int8 values and their scales; it
// folds the ones it does not use itself).
bool keepForQdqConvFold(const Graph& g, const Node& n, const PassContext& ctx);

}  // namespace atc
