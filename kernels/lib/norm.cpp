// batchnorm: inference BatchNormalization, y = x * a[c] + b[c] with a, b folded per
// channel from scale, B, mean, var, eps (params: math_norm_codes.h), then the activation
// TbeReduceElemwiseFusionPass folded in (ATCK_BP_ACT; DenseNet's BN -> ReLU pairs).
// normalize: mean/variance (InstanceNormalization, LayerNormalization,
// MeanVarianceNormalization) or Lp (LpNormalization) normalisation over the reduced
// positions of each kept position. Statistics: two passes (mean, then mean of squared
// deviations) with 16 partial accumulators, in float for fp32/fp16/bf16 and double for
// fp64; the contiguous case (normalised dims last: LayerNorm, InstanceNorm) vectorises.
// TbeReduceElemwiseFusionPass can fold a residual Add before (x + x2 is normalised, read
// from both buffers) and an activation after (ATCK_NP_ACT) into it.
#include "kernels/lib/cube_gemm.h"
#include "kernels/lib/kernel_abi.h"
#include "kernels/lib/math_norm_codes.h"
#include "kernels/lib/math_ops.h"

ATC_KERNEL(batchnorm)
ATC_KERNEL(normalize)

// The parameters of a fused activation (alpha, beta as double bits).
static inline ATCK_INLINE AtckEltPrm atck_nm_act_prm(int64_t a, int64_t b) {
  AtckEltPrm prm;
  prm.a = atck_d(a);
  prm.b = atck_d(b);
  prm.g = 0;
  prm.ia = prm.ib = 0;
  return prm;
}

// ---- batchnorm ------------------------------------------------------------------------------

static inline ATCK_INLINE int64_t atck_bn_per_task(const int64_t* P) {
  int64_t s = P[ATCK_BP_S] > 0 ? P[ATCK_BP_S] : 1;
  int64_t k = ATCK_NORM_BLOCK / s;
  return k > 0 ? k : 1;
}

int64_t atck_batchnorm_ntasks(const int64_t* P) {
  int64_t items = P[ATCK_BP_N] * P[ATCK_BP_C];
  int64_t k = atck_bn_per_task(P);
  return (items + k - 1) / k;
}

template <class C>
static inline ATCK_INLINE void atck_bn_run(const int64_t* P, void** bufs, int64_t lo, int64_t hi) {
  const int64_t dt = P[ATCK_BP_DT], Cn = P[ATCK_BP_C], S = P[ATCK_BP_S];
  const double eps = atck_d(P[ATCK_BP_EPS]);
  const void* x = bufs[0];
  void* y = bufs[P[ATCK_BP_OUTBUF]];
  const int64_t act = P[ATCK_BP_ACT] - 1;
  const AtckEltPrm prm = atck_nm_act_prm(P[ATCK_BP_ACT_A], P[ATCK_BP_ACT_B]);
  for (int64_t it = lo; it < hi; ++it) {
    int64_t c = it % Cn;
    double sc = atck_ld<double>(bufs[1], P[ATCK_BP_DTSCALE], c);
    double bi = atck_ld<double>(bufs[2], P[ATCK_BP_DTBIAS], c);
    double mu = atck_ld<double>(bufs[3], P[ATCK_BP_DTMEAN], c);
    double va = atck_ld<double>(bufs[4], P[ATCK_BP_DTVAR], c);
    double ad = sc / sqrt(va + eps);
    C a = (C)ad, b = (C)(bi - mu * ad);
    int64_t base = it * S;
    if (sizeof(C) == 4 && (dt == ATCK_F32 || dt == ATCK_F16 || dt == ATCK_BF16) &&
        (act < 0 || atck_act_in_regs(act))) {
      // 16 lanes at a time through the cube epilogue's register activations: the scalar loop
      // below stayed scalar for float16 data (one conversion each way per element).
      const atck_v16f va = atck_splat16((float)a), vb = atck_splat16((float)b);
      int64_t i = 0;
      for (; i + 16 <= S; i += 16)
        cube_store16_dt(dt, y, base + i,
                        cube_act16_regs(act, cube_load16_dt(dt, x, base + i) * va + vb, (float)prm.a, (float)prm.b),
                        16);
      for (; i < S; ++i) {
        C v = atck_ld<C>(x, dt, base + i) * a + b;
        atck_st<C>(y, dt, base + i, act < 0 ? v : atck_unary_f<C>(act, v, prm));
      }
      continue;
    }
    if (act < 0) {
      for (int64_t i = 0; i < S; ++i) atck_st<C>(y, dt, base + i, atck_ld<C>(x, dt, base + i) * a + b);
    } else {  // act is a constant once the params are: one vector loop with the activation inlined
      for (int64_t i = 0; i < S; ++i)
        atck_st<C>(y, dt, base + i, atck_unary_f<C>(act, atck_ld<C>(x, dt, base + i) * a + b, prm));
    }
  }
}

void atck_batchnorm_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t k = atck_bn_per_task(P);
  int64_t items = P[ATCK_BP_N] * P[ATCK_BP_C];
  int64_t lo = begin * k, hi = end * k;
  if (hi > items) hi = items;
  if (lo >= hi) return;
  if (P[ATCK_BP_DT] == ATCK_F64) atck_bn_run<double>(P, bufs, lo, hi);
  else atck_bn_run<float>(P, bufs, lo, hi);
}

// ---- normalize ------------------------------------------------------------------------------

int64_t atck_normalize_ntasks(const int64_t* P) {
  return (P[ATCK_NP_NOUT] + P[ATCK_NP_PER_TASK] - 1) / P[ATCK_NP_PER_TASK];
}

static inline ATCK_INLINE int64_t atck_nm_rowoff(const int64_t* rs, const int64_t* rst, int64_t R,
                                                 int64_t row) {
  int64_t off = 0;
  for (int64_t d = R - 2; d >= 0; --d) {
    off += (row % rs[d]) * rst[d];
    row /= rs[d];
  }
  return off;
}

// Element i of the normalised input: x[i], or x[i] + x2[i] when a residual Add was fused in
// (TbeReduceElemwiseFusionPass).
// ADD is a template parameter (not a test of x2 in the loop, which kept LLVM from
// vectorising: the fused LayerNorm ran 3x slower than the plain one).
template <class C, bool ADD>
static inline ATCK_INLINE C atck_nm_ld(const void* x, const void* x2, int64_t dt, int64_t i) {
  C v = atck_ld<C>(x, dt, i);
  return ADD ? v + atck_ld<C>(x2, dt, i) : v;
}

// Sum over the reduced positions of f(x) where f = x - shift (sq=0), (x - shift)^2 (sq=1),
// |x| (sq=2).
template <class C, bool ADD>
static inline ATCK_INLINE C atck_nm_sum(const void* x, const void* x2, int64_t dt, int64_t base, const int64_t* rs,
                                        const int64_t* rst, int64_t R, int64_t nred, C shift, int sq) {
  const int64_t last = rs[R - 1], ls = rst[R - 1];
  const int64_t rows = last > 0 ? nred / last : 0;
  C part[16];
  for (int j = 0; j < 16; ++j) part[j] = (C)0;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t off = base + atck_nm_rowoff(rs, rst, R, r);
    int64_t i = 0;
    if (ls == 1) {
      for (; i + 16 <= last; i += 16)
        for (int j = 0; j < 16; ++j) {
          C d = atck_nm_ld<C, ADD>(x, x2, dt, off + i + j) - shift;
          part[j] += sq == 1 ? d * d : (sq == 2 ? (d < (C)0 ? -d : d) : d);
        }
    }
    for (; i < last; ++i) {
      C d = atck_nm_ld<C, ADD>(x, x2, dt, off + i * ls) - shift;
      part[0] += sq == 1 ? d * d : (sq == 2 ? (d < (C)0 ? -d : d) : d);
    }
  }
  C s = (C)0;
  for (int j = 0; j < 16; ++j) s += part[j];
  return s;
}

// One output item o (its reduced positions) of x (+ x2) of dtype xdt, the first at element
// base; y (dtype ydt) gets position (base + rowoff + i * ls) - base + ybase.
template <class C, bool ADD>
static inline ATCK_INLINE void atck_nm_item(const int64_t* P, void** bufs, int64_t o, const void* x, const void* x2,
                                            int64_t xdt, int64_t base, void* y, int64_t ydt, int64_t ybase) {
  const int64_t kind = atck_iv_base(P[ATCK_NP_KIND]);
  const int64_t K = P[ATCK_NP_K], R = P[ATCK_NP_R], nred = P[ATCK_NP_NRED];
  const C eps = (C)atck_d(P[ATCK_NP_EPS]);
  const int64_t affine = P[ATCK_NP_AFFINE], Cn = P[ATCK_NP_C], dta = P[ATCK_NP_DTAFFINE];
  const int64_t* rs = P + ATCK_NP_HEADER + 2 * K;
  const int64_t* rst = rs + R;
  const int64_t act = P[ATCK_NP_ACT] - 1;
  const AtckEltPrm prm = atck_nm_act_prm(P[ATCK_NP_ACT_A], P[ATCK_NP_ACT_B]);
  const void* scale = P[ATCK_NP_SCALEBUF] >= 0 ? bufs[P[ATCK_NP_SCALEBUF]] : 0;
  const void* bias = P[ATCK_NP_BIASBUF] >= 0 ? bufs[P[ATCK_NP_BIASBUF]] : 0;
  void* meanOut = P[ATCK_NP_MEANBUF] >= 0 ? bufs[P[ATCK_NP_MEANBUF]] : 0;
  void* invOut = P[ATCK_NP_INVSTDBUF] >= 0 ? bufs[P[ATCK_NP_INVSTDBUF]] : 0;
  const int64_t last = rs[R - 1], ls = rst[R - 1];
  const int64_t rows = last > 0 ? nred / last : 0;
  C mean = (C)0, inv;
  if (kind == ATCK_NK_MEANVAR) {
    mean = atck_nm_sum<C, ADD>(x, x2, xdt, base, rs, rst, R, nred, (C)0, 0) / (C)nred;
    C var = atck_nm_sum<C, ADD>(x, x2, xdt, base, rs, rst, R, nred, mean, 1) / (C)nred;
    inv = P[ATCK_NP_EPS_ON_STD] ? (C)1 / (atck_m_sqrt(var) + eps) : (C)1 / atck_m_sqrt(var + eps);
  } else if (kind == ATCK_NK_RMS) {
    C ms = atck_nm_sum<C, ADD>(x, x2, xdt, base, rs, rst, R, nred, (C)0, 1) / (C)nred;
    inv = (C)1 / atck_m_sqrt(ms + eps);
  } else {
    // Lp: x / norm, and 0 where the norm is 0 (an all-zero slice; ONNX Runtime's result,
    // where 1 / 0 would make 0 * inf = NaN).
    C norm = kind == ATCK_NK_L1 ? atck_nm_sum<C, ADD>(x, x2, xdt, base, rs, rst, R, nred, (C)0, 2)
                                : atck_m_sqrt(atck_nm_sum<C, ADD>(x, x2, xdt, base, rs, rst, R, nred, (C)0, 1));
    inv = norm == (C)0 ? (C)0 : (C)1 / norm;
  }
  if (meanOut) atck_st<C>(meanOut, P[ATCK_NP_DTSTAT], o, mean);
  if (invOut) atck_st<C>(invOut, P[ATCK_NP_DTSTAT], o, inv);
  C ka = inv, kb = -mean * inv;  // y = x * ka + kb (before the affine part)
  if (affine == ATCK_NA_PER_KEPT) {
    int64_t c = o % Cn;
    C sc = scale ? atck_ld<C>(scale, dta, c) : (C)1;
    C bi = bias ? atck_ld<C>(bias, dta, c) : (C)0;
    ka = ka * sc;
    kb = kb * sc + bi;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t ro = atck_nm_rowoff(rs, rst, R, r), off = base + ro, yo = ybase + ro;
    if (affine == ATCK_NA_PER_RED) {
      int64_t ri = r * last;
      for (int64_t i = 0; i < last; ++i) {
        C v = atck_nm_ld<C, ADD>(x, x2, xdt, off + i * ls) * ka + kb;
        C sc = scale ? atck_ld<C>(scale, dta, ri + i) : (C)1;
        C bi = bias ? atck_ld<C>(bias, dta, ri + i) : (C)0;
        v = v * sc + bi;
        if (act >= 0) v = atck_unary_f<C>(act, v, prm);
        atck_st<C>(y, ydt, yo + i * ls, v);
      }
    } else {
      for (int64_t i = 0; i < last; ++i) {
        C v = atck_nm_ld<C, ADD>(x, x2, xdt, off + i * ls) * ka + kb;
        if (act >= 0) v = atck_unary_f<C>(act, v, prm);
        atck_st<C>(y, ydt, yo + i * ls, v);
      }
    }
  }
}

// float16 / bfloat16 data reduced over one contiguous run (LayerNormalization over the last
// axis): the run (plus the fused residual) widened to float32 once, normalised there, and
// rounded back, each a 16-lane loop. Read and written element by element the conversions stayed
// scalar: ConvNeXt-T's float16 LayerNorms ran at 3x their float32 time.
enum { ATCK_NM_ROWBUF = 4096 };
static inline ATCK_INLINE int atck_nm_narrow_row(const int64_t* P) {
  const int64_t dt = P[ATCK_NP_DT], K = P[ATCK_NP_K], R = P[ATCK_NP_R];
  const int64_t* rs = P + ATCK_NP_HEADER + 2 * K;
  return (dt == ATCK_F16 || dt == ATCK_BF16) && R == 1 && rs[R] == 1 && rs[0] <= ATCK_NM_ROWBUF;
}

template <bool ADD>
static inline ATCK_INLINE void atck_nm_item_narrow(const int64_t* P, void** bufs, int64_t o, const void* x,
                                                   const void* x2, int64_t base, void* y) {
  const int64_t dt = P[ATCK_NP_DT], n = P[ATCK_NP_NRED];
  float xs[ATCK_NM_ROWBUF], ys[ATCK_NM_ROWBUF];
  ATCK_VEC16
  for (int64_t i = 0; i < n; ++i) xs[i] = atck_ld<float>(x, dt, base + i);
  if (ADD) {
    ATCK_VEC16
    for (int64_t i = 0; i < n; ++i) xs[i] += atck_ld<float>(x2, dt, base + i);
  }
  atck_nm_item<float, false>(P, bufs, o, xs, 0, ATCK_F32, 0, ys, ATCK_F32, 0);
  ATCK_VEC16
  for (int64_t i = 0; i < n; ++i) atck_st<float>(y, dt, base + i, ys[i]);
}

template <class C, bool ADD>
static inline ATCK_INLINE void atck_nm_run(const int64_t* P, void** bufs, int64_t lo, int64_t hi) {
  const int64_t dt = P[ATCK_NP_DT], K = P[ATCK_NP_K];
  const int64_t* ks = P + ATCK_NP_HEADER;
  const int64_t* kst = ks + K;
  const void* x = bufs[0];
  const void* x2 = P[ATCK_NP_ADDBUF] >= 0 ? bufs[P[ATCK_NP_ADDBUF]] : 0;
  void* y = bufs[P[ATCK_NP_OUTBUF]];
  const int narrow = sizeof(C) == 4 && atck_nm_narrow_row(P);
  for (int64_t o = lo; o < hi; ++o) {
    int64_t base = 0, rem = o;
    for (int64_t d = K - 1; d >= 0; --d) {
      base += (rem % ks[d]) * kst[d];
      rem /= ks[d];
    }
    if (narrow) atck_nm_item_narrow<ADD>(P, bufs, o, x, x2, base, y);
    else atck_nm_item<C, ADD>(P, bufs, o, x, x2, dt, base, y, dt, base);
  }
}

void atck_normalize_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t lo = begin * P[ATCK_NP_PER_TASK];
  int64_t hi = end * P[ATCK_NP_PER_TASK];
  if (hi > P[ATCK_NP_NOUT]) hi = P[ATCK_NP_NOUT];
  if (lo >= hi) return;
  // high_precision (math_impl.h): statistics and scaling in double for float data.
  const bool dbl = P[ATCK_NP_DT] == ATCK_F64 || atck_iv_of(P[ATCK_NP_KIND]) == ATCK_IV_PREC;
  if (P[ATCK_NP_ADDBUF] >= 0) {
    if (dbl) atck_nm_run<double, true>(P, bufs, lo, hi);
    else atck_nm_run<float, true>(P, bufs, lo, hi);
  } else {
    if (dbl) atck_nm_run<double, false>(P, bufs, lo, hi);
    else atck_nm_run<float, false>(P, bufs, lo, hi);
  }
}
