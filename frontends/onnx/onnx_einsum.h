// ONNX Einsum (opset 12): each node is replaced, before import, by ReduceSum, Transpose,
// Reshape and MatMul (docs/frontend-onnx.md): letters only one operand has and the output
// lacks are summed first; with two operands the shared letters the output keeps are batch
// dimensions, the others are contracted by one batched MatMul; the result is transposed to
// the output's order. Ellipses broadcast right-aligned; an implicit output is the ellipsis
// then the letters used once, in alphabetical order.
#pragma once
#include <onnx/onnx_pb.h>

namespace atc {
namespace onnxfe {

// Replaces every default-domain Einsum node of the main graph; opset is the model's
// default-domain opset (ReduceSum takes axes as an attribute below 13). Throws AtcError
// E19999 for more than two operands, a letter repeated in one operand (a diagonal), an
// operand whose rank or dims the model does not declare, or dims that differ for one letter.
int expandEinsumNodes(onnx::ModelProto* model, int64_t opset);

}  // namespace onnxfe
}  // namespace atc
