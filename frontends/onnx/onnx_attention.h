// ONNX Attention (opset 23): each node is replaced, before import, by the ops of its function
// body (docs/frontend-onnx.md): scaled Q K^T with the attention mask, causal mask, softcap,
// grouped-query heads, past/present key-value cache, softmax (in softmax_precision), the
// fully-masked-row guard and the qk_matmul_output modes. The shape arithmetic (Shape, Concat,
// Range...) folds to constants once shapes are known; the attention fusion pass can then fuse
// the MatMul-Softmax-MatMul core again.
#pragma once
#include <onnx/onnx_pb.h>

namespace atc {
namespace onnxfe {

// Replaces every default-domain Attention node of the main graph. Throws AtcError E19999 for
// an attribute or input combination the expansion does not cover (3-D inputs without
// q_num_heads/kv_num_heads, nonpad_kv_seqlen). Returns the number of nodes expanded.
int expandAttentionNodes(onnx::ModelProto* model);

}  // namespace onnxfe
}  // namespace atc
