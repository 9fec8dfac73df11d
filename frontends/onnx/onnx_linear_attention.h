// LinearAttention (opset 27) expanded before import into the recurrence of its ONNX function
// body (docs/frontend-onnx.md): query, key, value (and decay, beta) [B, T, H * D] split into
// heads; a float32 state [B, Hkv, dk, dv] (past_state or zeros) updated per token by the
// update_rule (linear: S + k v^T; gated: exp(decay) S + k v^T; delta: S + k (beta (v - S^T k))^T;
// gated_delta: the delta rule on exp(decay) S); output_t = scale q_t^T S_t, each kv head's state
// read by its q_num_heads / kv_num_heads query heads. The body's Scan is unrolled here over the
// declared sequence length, as the importer unrolls Scan.
#pragma once
#include <onnx/onnx_pb.h>

namespace atc {
namespace onnxfe {

// Replaces every default-domain LinearAttention node of the main graph. Throws AtcError E19999
// for an unknown update_rule, bad head counts, a missing decay / beta, or query and value
// without declared static 3-D shapes. Returns how many.
int expandLinearAttentionNodes(onnx::ModelProto* model);

}  // namespace onnxfe
}  // namespace atc
