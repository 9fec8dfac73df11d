// ONNX ops of opsets 18 to 24 that atc imports as the ops of their definition (before import,
// like Attention and RotaryEmbedding; docs/frontend-onnx.md):
// - GroupNormalization (18, 21): x viewed as [N, G, rest], normalised per (n, group) with
//   ReduceMean, then scaled and shifted per group (18) or per channel (21); stash_type 1
//   computes the first stage in float32 for float16/bfloat16 inputs.
// - Swish (24): x * Sigmoid(alpha * x) (with alpha 1, the Sigmoid-Mul that the epilogue
//   fusions take as SiLU).
// - SwiGLU (28): Swish(a, alpha) * b.
// - CausalConvWithState (27): Concat(past_state or zeros, input) -> depthwise Conv (group C,
//   no padding) [-> SiLU]; present_state: the last k - 1 positions of the concatenation.
// - TensorScatter (24): ScatterElements of the update into the cache along `axis` at
//   write_indices[b] + s (modulo the cache length in circular mode).
#pragma once
#include <onnx/onnx_pb.h>

#include <string>

namespace atc {
namespace onnxfe {

// Replaces every default-domain GroupNormalization node of the main graph; opset is the
// model's default-domain opset (scale and bias per group below 21, per channel from 21).
// Throws AtcError E19999 for a missing num_groups, a rank under 3 or unknown, or
// stash_type other than 1. Returns how many.
int expandGroupNormalizationNodes(onnx::ModelProto* model, int64_t opset);

// Replaces every default-domain Swish node of the main graph. Returns how many.
int expandSwishNodes(onnx::ModelProto* model);

// Replaces every default-domain SwiGLU node of the main graph. Returns how many.
int expandSwiGLUNodes(onnx::ModelProto* model);

// Replaces every default-domain TensorScatter node of the main graph. Throws AtcError E19999
// for an unknown rank, the batch axis, an unknown mode or non-int64 write_indices. Returns how many.
int expandTensorScatterNodes(onnx::ModelProto* model);

// Replaces every default-domain CausalConvWithState node of the main graph. Throws AtcError
// E19999 for an unknown activation or an input that is not 3-D with known channels. Returns how many.
int expandCausalConvWithStateNodes(onnx::ModelProto* model);

// Ops of opsets after kMaxOpset that the importer builds from their definition (so a model of
// that opset using them imports).
bool expandedNewerOp(const std::string& op);

}  // namespace onnxfe
}  // namespace atc
