// ONNX RotaryEmbedding (opset 23): each node is replaced, before import, by the ops of its
// definition (docs/frontend-onnx.md): heads to [batch, seq, heads, size], the cos/sin rows
// gathered by position_ids (or given per batch and position), the first rotary_embedding_dim
// features rotated as (x1, x2) -> (cos x1 - sin x2, sin x1 + cos x2) with x1/x2 the two halves
// or (interleaved) the even and odd features, the rest passed through, and the input's layout
// restored.
#pragma once
#include <onnx/onnx_pb.h>

namespace atc {
namespace onnxfe {

// Replaces every default-domain RotaryEmbedding node of the main graph. Throws AtcError
// E19999 for a rank other than 3 or 4, or a 3-D input without num_heads. Returns how many.
int expandRotaryEmbeddingNodes(onnx::ModelProto* model);

}  // namespace onnxfe
}  // namespace atc
