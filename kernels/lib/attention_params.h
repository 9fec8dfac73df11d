// Parameters of the attention kernel (kernels/lib/attention.cpp), built by the
// FusedAttention op (ops/fused/attention.cpp). Tensors are strided 4-D views
// [batch, head, seq, dim] into the buffers (element offsets and strides), so the QKV split,
// the head reshapes and the transposes around attention are folded into the loads/stores.
#pragma once

enum AttentionParam {
  AT_B = 0, AT_H, AT_SQ, AT_SK, AT_D, AT_DV,  // batch, heads, query/key length, q/k dim, v dim
  AT_QB,                                      // query rows per block (multiple of 6)
  AT_NITEMS, AT_NTASKS,                       // items = B*H*ceil(SQ/QB); tasks share them out
  AT_SLOT,                                    // workspace floats per task (64-byte multiple)
  AT_SCALE,                                   // double bits: logits = scale * q.k (+ mask)
  AT_QIDX, AT_KIDX, AT_VIDX, AT_MIDX, AT_OIDX,  // buffer indexes (mask: -1 = none)
  // Views: offset, batch/head/seq/dim strides (elements). K is viewed as [b, h, key, dim].
  AT_Q_OFF, AT_Q_SB, AT_Q_SH, AT_Q_SS, AT_Q_SD,
  AT_K_OFF, AT_K_SB, AT_K_SH, AT_K_SS, AT_K_SD,
  AT_V_OFF, AT_V_SB, AT_V_SH, AT_V_SS, AT_V_SD,
  AT_O_OFF, AT_O_SB, AT_O_SH, AT_O_SS, AT_O_SD,
  // Additive mask view [b, h, query, key] (broadcast dims: stride 0).
  AT_M_OFF, AT_M_SB, AT_M_SH, AT_M_SQ, AT_M_SK,
  AT_ZERO_MASKED,  // 1: a row whose every logit is -inf after the mask gets zero probabilities
                   // (ONNX Attention's fully-masked-row guard); 0: softmax as is (NaN)
  AT_WIDE,         // 1 (512-bit targets): both products in 6x64 tiles (cube_ukoc.h), K^T, S, V and O
                   // padded to multiples of 64 columns; 0: the 6x16 tiles, multiples of 16
  AT_COUNT
};
