// Parameter layout of kernel "rnn" (kernels/lib/rnn.cpp): ONNX RNN, GRU and LSTM
// (ops/recurrent/recurrent.cpp). Plain C header; never renumber (the params are baked into
// compiled .om kernels).
#pragma once

enum RnnKind { RNN_SIMPLE = 0, RNN_GRU = 1, RNN_LSTM = 2 };

// Activation codes (ONNX's names; alpha / beta per activation slot).
enum RnnAct {
  RA_RELU = 0, RA_TANH, RA_SIGMOID, RA_AFFINE, RA_LEAKYRELU, RA_THRESHOLDEDRELU, RA_SCALEDTANH,
  RA_HARDSIGMOID, RA_ELU, RA_SOFTSIGN, RA_SOFTPLUS
};

// Gates per kind: RNN 1, GRU 3 (z, r, h), LSTM 4 (i, o, f, c). W [NDIR][G*H][I],
// R [NDIR][G*H][H], B [NDIR][2*G*H] (Wb then Rb), P [NDIR][3*H] (i, o, f).
// X [SEQ][BATCH][I] (layout 0) or [BATCH][SEQ][I] (layout 1); Y [SEQ][NDIR][BATCH][H] or
// [BATCH][SEQ][NDIR][H]; Y_h, Y_c, initial_h, initial_c [NDIR][BATCH][H] or [BATCH][NDIR][H].
// One task per (direction, batch item): the sequence runs step by step.
enum RnnParam {
  RP_KIND = 0, RP_SEQ, RP_BATCH, RP_I, RP_H, RP_NDIR,
  RP_REVERSE,        // 1: a single direction that runs backwards ("reverse")
  RP_LAYOUT,
  RP_CLIP,           // atck_f(threshold); 0: no clip
  RP_INPUT_FORGET,   // LSTM: f = 1 - i
  RP_LBR,            // GRU: linear_before_reset
  RP_XBUF, RP_WBUF, RP_RBUF, RP_BBUF, RP_LBUF, RP_IHBUF, RP_ICBUF, RP_PBUF,  // -1: absent
  RP_YBUF, RP_YHBUF, RP_YCBUF,                                              // -1: not an output
  RP_SLOT,           // workspace floats per task: h, c, gates, GRU's reset product ((3 + G) * H)
  RP_WSBUF,          // index of the workspace in bufs
  RP_ACT,            // 3 activation codes per direction: [dir][f, g, h]
  RP_ALPHA = RP_ACT + 6,   // atck_f alpha per activation slot [dir][3]
  RP_BETA = RP_ALPHA + 6,  // atck_f beta
  RP_COUNT = RP_BETA + 6
};
