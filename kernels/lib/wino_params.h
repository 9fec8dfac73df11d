// Parameters of the Winograd F(4x4, 3x3) convolution kernels (kernels/lib/conv_wino.cpp), built
// by the WinogradInput / WinogradGemm / WinogradOutput ops (ops/cube/winograd.cpp) that
// ConvWinogradPass puts in place of a stride-1 3x3 Conv. docs/kernels-cube.md "Winograd".
//   X [N][C][H][W] -> V [36][C][TP] (wino_in: B^T d B per 6x6 input patch; tile t = (n, tr, tc)
//                      covers outputs rows 4tr..4tr+3, columns 4tc..4tc+3)
//   V, U -> M [36][TP][OCP]          (wino_gemm: per position a [T x C] x [C x OC] product on
//                      the 6x64 (or 8x32) tiles; U = G g G^T packed [36][OCP/NR][C][NR] at
//                      compile time)
//   M -> Y [N][OC][OH][OW]            (wino_out: A^T m A per tile and channel, bias, the cube
//                      epilogue (activation, residual) and float16/bfloat16 rounding)
// T = N * TH * TW tiles, TP = T rounded up to 16, OCP = OC rounded up to the panel width (64 or
// 32). The 36 positions of V and M lie VPOS / MPOS floats apart: C * TP and TP * OCP rounded up to
// an odd multiple of 16, so a tile's 36 values do not share one L1 set (positions a multiple of
// 4 KB apart did: wino_in's 36 scattered stores per tile chunk ran 4x slower).
#pragma once
#include <stdint.h>

#define WINO_MAX_W 1024  // widest input and output row the stack buffers of wino_in hold (the pass checks)

// Output channels per weight panel of wino_gemm: 64 (the 6x64 tiles), or 32 (8x32 tiles) where
// 64-channel panels would pad more than a quarter (DenseNet's 32-channel growth convs).
static inline int64_t wino_panel(int64_t OC) {
  const int64_t p64 = (OC + 63) / 64 * 64;
  return OC * 4 >= p64 * 3 ? 64 : 32;
}

// The position stride of V and M: n floats rounded up to an odd multiple of 16.
static inline int64_t wino_pos_stride(int64_t n) {
  int64_t r = (n + 15) / 16 * 16;
  return (r / 16) % 2 ? r : r + 16;
}

enum WinoParam {
  WI_N = 0, WI_C, WI_H, WI_W,  // input dims
  WI_PT, WI_PL,                // top / left pads
  WI_OH, WI_OW,                // output dims
  WI_TH, WI_TW, WI_TP,         // tile rows / columns per image, V's row length (tiles, padded)
  WI_XDT,                      // dtype of X (f32, f16, bf16)
  WI_OC, WI_OCP,               // output channels, padded to the panel width (WI_NR)
  WI_KC, WI_TB, WI_MB,         // wino_gemm: K block, tiles per task, channels per task (WI_NR multiple)
  WI_NTB, WI_NMB,              // wino_gemm: tile blocks, channel blocks
  WI_ODT,                      // dtype of Y (f32, f16, bf16)
  WI_HAS_BIAS,                 // wino_out: input 1 is the float32 bias
  WI_YIDX,                     // index of the output in bufs
  WI_EPI,                      // 4 words: epilogue (cube_epilogue in cube_gemm.h)
  WI_VPOS = WI_EPI + 4,        // floats between the positions of V
  WI_MPOS,                     // floats between the positions of M
  WI_NR,                       // wino_gemm: output channels per weight panel (wino_panel: 64 or 32)
  WI_T,                        // wino_gemm: tiles (N * TH * TW; the rows of V and M it computes)
  WI_COUNT
};
