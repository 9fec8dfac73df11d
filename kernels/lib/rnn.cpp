// Kernel "rnn": ONNX RNN, GRU and LSTM (params and layouts: rnn_params.h). One task per
// (direction, batch item) runs its sequence step by step: per step the gate pre-activations
// are W x_t + R h_{t-1} + Wb + Rb (8-lane dot products over contiguous weight rows), then the
// cell update of the kind. sequence_lens: steps t >= len are not run; their Y rows are 0 and
// Y_h / Y_c hold the state after the last step run. Reverse runs t = len-1 .. 0.
#include "kernels/lib/kernel_abi.h"
#include "kernels/lib/math_ops.h"
#include "kernels/lib/rnn_params.h"
#include "kernels/lib/vec_math.h"

ATC_KERNEL(rnn)

int64_t atck_rnn_ntasks(const int64_t* P) { return P[RP_NDIR] * P[RP_BATCH]; }

static inline ATCK_INLINE float rnn_dot(const float* a, const float* b, int64_t n) {
  atck_f8 s0 = atck_splat8(0.0f), s1 = atck_splat8(0.0f);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 += atck_ld8(a + i) * atck_ld8(b + i);
    s1 += atck_ld8(a + i + 8) * atck_ld8(b + i + 8);
  }
  float s = atck_hsum8(s0 + s1);
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

// The activations' own small switch rather than the element-wise atck_unary (math_ops.h),
// whose whole switch inlined at each gate made a 2-layer bidirectional LSTM 3-5% slower
// (measured, session 9); the formulas are the same.
static inline ATCK_INLINE float rnn_act(int64_t code, float x, float alpha, float beta) {
  switch (code) {
    case RA_RELU: return x > 0.0f ? x : 0.0f;
    case RA_TANH: return atck_m_tanh(x);
    case RA_SIGMOID: return atck_m_sigmoid(x);
    case RA_AFFINE: return alpha * x + beta;
    case RA_LEAKYRELU: return x >= 0.0f ? x : alpha * x;
    case RA_THRESHOLDEDRELU: return x > alpha ? x : 0.0f;
    case RA_SCALEDTANH: return alpha * atck_m_tanh(beta * x);
    case RA_HARDSIGMOID: {
      const float v = alpha * x + beta;
      return v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
    }
    case RA_ELU: return x >= 0.0f ? x : alpha * atck_m_expm1(x);
    case RA_SOFTSIGN: return x / (1.0f + (x < 0.0f ? -x : x));
    case RA_SOFTPLUS: {
      const float ax = x < 0.0f ? -x : x;
      return (x > 0.0f ? x : 0.0f) + atck_m_log1p(atck_m_exp(-ax));
    }
    default: return x;
  }
}

struct RnnActs {
  int64_t code[3];
  float alpha[3], beta[3];
  float clip;
};

// Activation slot k (f, g, h) of x, after the clip (applied to every activation's input).
static inline ATCK_INLINE float rnn_f(const RnnActs& a, int k, float x) {
  if (a.clip > 0.0f) x = x < -a.clip ? -a.clip : x > a.clip ? a.clip : x;
  return rnn_act(a.code[k], x, a.alpha[k], a.beta[k]);
}

// Offset (floats) of [dir][b] state rows and of Y rows for step t.
static inline ATCK_INLINE int64_t rnn_state_off(const int64_t* P, int64_t d, int64_t b) {
  return (P[RP_LAYOUT] ? b * P[RP_NDIR] + d : d * P[RP_BATCH] + b) * P[RP_H];
}
static inline ATCK_INLINE int64_t rnn_y_off(const int64_t* P, int64_t t, int64_t d, int64_t b) {
  const int64_t S = P[RP_SEQ], B = P[RP_BATCH], D = P[RP_NDIR];
  return (P[RP_LAYOUT] ? (b * S + t) * D + d : (t * D + d) * B + b) * P[RP_H];
}

// One step: the gate pre-activations g[G*H] = W x + R h + Wb + Rb (GRU with
// linear_before_reset: the h gate's R h + Rb in rh[H] apart), then the state update.
static void rnn_step(const int64_t* P, const RnnActs& a, const float* W, const float* R, const float* Bw,
                     const float* Br, const float* Pp, const float* x, float* h, float* c, float* g, float* rh) {
  const int64_t H = P[RP_H], I = P[RP_I], kind = P[RP_KIND];
  const int64_t G = kind == RNN_LSTM ? 4 : kind == RNN_GRU ? 3 : 1;
  for (int64_t r = 0; r < G * H; ++r) {
    // GRU's h gate: R h and Rb come in after the reset gate (below).
    const bool hGate = kind == RNN_GRU && r >= 2 * H;
    float v = rnn_dot(W + r * I, x, I) + (Bw ? Bw[r] + (hGate ? 0.0f : Br[r]) : 0.0f);
    if (!hGate) v += rnn_dot(R + r * H, h, H);
    g[r] = v;
  }
  if (kind == RNN_SIMPLE) {
    for (int64_t j = 0; j < H; ++j) h[j] = rnn_f(a, 0, g[j]);
    return;
  }
  if (kind == RNN_GRU) {
    for (int64_t j = 0; j < H; ++j) {
      g[j] = rnn_f(a, 0, g[j]);          // z
      g[H + j] = rnn_f(a, 0, g[H + j]);  // r
    }
    const float* Rh = R + 2 * H * H;
    const float* Brh = Bw ? Br + 2 * H : 0;
    if (P[RP_LBR]) {
      for (int64_t j = 0; j < H; ++j) rh[j] = rnn_dot(Rh + j * H, h, H) + (Brh ? Brh[j] : 0.0f);
      for (int64_t j = 0; j < H; ++j) g[2 * H + j] += g[H + j] * rh[j];
    } else {
      for (int64_t j = 0; j < H; ++j) rh[j] = g[H + j] * h[j];
      for (int64_t j = 0; j < H; ++j) g[2 * H + j] += rnn_dot(Rh + j * H, rh, H) + (Brh ? Brh[j] : 0.0f);
    }
    for (int64_t j = 0; j < H; ++j) {
      const float z = g[j], hh = rnn_f(a, 1, g[2 * H + j]);
      h[j] = (1.0f - z) * hh + z * h[j];
    }
    return;
  }
  // LSTM: gates i, o, f, c; peepholes P (i, o, f).
  for (int64_t j = 0; j < H; ++j) {
    float gi = g[j] + (Pp ? Pp[j] * c[j] : 0.0f);
    const float it = rnn_f(a, 0, gi);
    float ft = P[RP_INPUT_FORGET] ? 1.0f - it : rnn_f(a, 0, g[2 * H + j] + (Pp ? Pp[2 * H + j] * c[j] : 0.0f));
    const float ct = rnn_f(a, 1, g[3 * H + j]);
    c[j] = ft * c[j] + it * ct;
    const float ot = rnn_f(a, 0, g[H + j] + (Pp ? Pp[H + j] * c[j] : 0.0f));
    h[j] = ot * rnn_f(a, 2, c[j]);
  }
}

void atck_rnn_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t S = P[RP_SEQ], B = P[RP_BATCH], I = P[RP_I], H = P[RP_H], kind = P[RP_KIND];
  const int64_t G = kind == RNN_LSTM ? 4 : kind == RNN_GRU ? 3 : 1;
  const float* X = (const float*)bufs[P[RP_XBUF]];
  float* ws = (float*)bufs[P[RP_WSBUF]];
  for (int64_t task = begin; task < end; ++task) {
    const int64_t d = task / B, b = task % B;
    const bool back = P[RP_REVERSE] || d == 1;
    RnnActs a;
    for (int k = 0; k < 3; ++k) {
      a.code[k] = P[RP_ACT + d * 3 + k];
      a.alpha[k] = (float)atck_d(P[RP_ALPHA + d * 3 + k]);
      a.beta[k] = (float)atck_d(P[RP_BETA + d * 3 + k]);
    }
    a.clip = (float)atck_d(P[RP_CLIP]);
    const float* W = (const float*)bufs[P[RP_WBUF]] + d * G * H * I;
    const float* R = (const float*)bufs[P[RP_RBUF]] + d * G * H * H;
    const float* Bw = P[RP_BBUF] >= 0 && bufs[P[RP_BBUF]] ? (const float*)bufs[P[RP_BBUF]] + d * 2 * G * H : 0;
    const float* Br = Bw ? Bw + G * H : 0;
    const float* Pp = P[RP_PBUF] >= 0 && bufs[P[RP_PBUF]] ? (const float*)bufs[P[RP_PBUF]] + d * 3 * H : 0;
    float* slot = ws + task * P[RP_SLOT];
    float *h = slot, *c = slot + H, *g = slot + 2 * H, *rh = g + G * H;
    const int64_t so = rnn_state_off(P, d, b);
    const float* ih = P[RP_IHBUF] >= 0 && bufs[P[RP_IHBUF]] ? (const float*)bufs[P[RP_IHBUF]] + so : 0;
    const float* ic = P[RP_ICBUF] >= 0 && bufs[P[RP_ICBUF]] ? (const float*)bufs[P[RP_ICBUF]] + so : 0;
    for (int64_t j = 0; j < H; ++j) {
      h[j] = ih ? ih[j] : 0.0f;
      c[j] = ic ? ic[j] : 0.0f;
    }
    int64_t len = S;
    if (P[RP_LBUF] >= 0 && bufs[P[RP_LBUF]]) {
      len = ((const int32_t*)bufs[P[RP_LBUF]])[b];
      len = len < 0 ? 0 : len > S ? S : len;
    }
    float* Y = P[RP_YBUF] >= 0 ? (float*)bufs[P[RP_YBUF]] : 0;
    for (int64_t s = 0; s < S; ++s) {
      const int64_t t = back ? (s < len ? len - 1 - s : s) : s;
      if (s >= len) {  // past the sequence's length: zero rows
        if (Y)
          for (int64_t j = 0; j < H; ++j) Y[rnn_y_off(P, t, d, b) + j] = 0.0f;
        continue;
      }
      const float* x = X + (P[RP_LAYOUT] ? b * S + t : t * B + b) * I;
      rnn_step(P, a, W, R, Bw, Br, Pp, x, h, c, g, rh);
      if (Y)
        for (int64_t j = 0; j < H; ++j) Y[rnn_y_off(P, t, d, b) + j] = h[j];
    }
    if (P[RP_YHBUF] >= 0)
      for (int64_t j = 0; j < H; ++j) ((float*)bufs[P[RP_YHBUF]])[so + j] = h[j];
    if (P[RP_YCBUF] >= 0)
      for (int64_t j = 0; j < H; ++j) ((float*)bufs[P[RP_YCBUF]])[so + j] = c[j];
  }
}
