// QdqConvFoldPass (passes/quant/qdq_conv_fold_pass.cpp): DequantizeLinear -> Conv of QDQ
// models -> QuantizedConv (int8 kernel), and what constant folding must leave for it.
#pragma once
#include <set>

#include "ir/graph.h"
#include "passes/pass.h"

namespace atc {

// True when the target has an int8 conv path and QdqConvFoldPass is not switched off.
bool qdqConvFoldWanted(const PassContext& ctx);

// What constant folding leaves for the fold pass: the DequantizeLinear nodes that give a Conv
// its weights while another DequantizeLinear gives it its input (the pass needs the int8
// values and their scales, and folds the ones it does not use itself). Empty when the pass
// will not run. Linear in the graph size (producer links only).
std::set<const Node*> weightDequantizeForQdqConvFold(const Graph& g, const PassContext& ctx);

}  // namespace atc
