// Helpers shared by the folds of QdqConvFoldPass (qdq_conv_fold_pass.cpp: convs;
// qdq_matmul_fold.cpp: matrix products).
#pragma once
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "passes/pass.h"

namespace atc {

inline bool qdqIsConst(const Value* v, DType t) { return v && v->isConstant() && v->type.dtype == t; }

// A scale with which a quantization round trip is exact and order-preserving: positive, normal
// and far from overflow (zero, negative, denormal, infinite or NaN scales stay on the float path,
// whose QuantizeLinear divides by them as ONNX says).
inline bool qdqScaleIsSafe(double s) { return std::isnormal(s) && s > 0 && s < 1e30; }
// Why the DequantizeLinear of an op's input cannot feed an int8 kernel ("" when it can): 8-bit,
// per-tensor constant scale and zero point.
std::string qdqInputBlocker(const Node* dx);

// x_scale / x_zero_point of a QuantizeLinear and a DequantizeLinear are the same constants.
bool qdqSameQuantParams(const Node* q, const Node* dq);

// A float32 constant vector.
TensorPtr qdqFloatVector(const std::vector<double>& v);

// The kernel's input for DequantizeLinear dx: the float x of a QuantizeLinear with the same
// scale and zero point (quantized while packed: returns that node in *q), else dx's 8-bit input.
Value* qdqKernelInput(Node* dx, Node** q);

// MatMul(DequantizeLinear(xq), B) [-> Add(bias)] and Gemm(DequantizeLinear(xq), B, C), B the
// dequantized int8 weights -> QuantizedMatMul (kernel qmatmul8); the others get the reason
// they stay float32 in _quant_decision. `wanted`: the target has the int8 path and the pass
// runs. Returns the number folded.
int foldQdqMatMuls(Graph& g, PassContext& ctx, bool wanted, std::set<Node*>* removed);

// DequantizeLinear -> MaxPool / Concat -> QuantizeLinear with one scale and zero point (the ops
// then take the 8-bit tensors) and DequantizeLinear, DequantizeLinear -> Add [-> Relu] ->
// QuantizeLinear (-> QuantizedAdd, kernel qadd8): qdq_datamove_fold.cpp. The others that read a
// DequantizeLinear get the reason they stay float32. Returns the number folded.
int foldQdqDataMovement(Graph& g, PassContext& ctx, bool wanted, std::set<Node*>* removed);
// Adds to *keep the weight DequantizeLinear nodes of the matrix products foldQdqMatMuls takes
// (constant folding leaves them for it).
void weightDequantizeForQdqMatMul(const Graph& g, std::set<const Node*>* keep);

}  // namespace atc
