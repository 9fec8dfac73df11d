// eltwise: the one generic element-wise kernel (unary, binary with numpy broadcasting,
// n-ary folds, Where, Cast). Params: see math_eltwise_codes.h. The lowering collapses the
// output shape (adjacent dims with the same broadcast pattern merge), so the innermost dim
// is the longest contiguous run; each input's innermost stride is 0 (broadcast scalar) or 1.
// Bits 8..15 of the compute-type param select an implementation variant (math_impl.h).
// Work items are blocks of ATCK_ELT_BLOCK output elements; a block walks rows of the
// innermost dim, and the row loop is what LLVM vectorises once the params are constants.
#include "kernels/lib/bcast_walk.h"
#include "kernels/lib/kernel_abi.h"
#include "kernels/lib/math_ops.h"
#include "kernels/lib/vec_math.h"

ATC_KERNEL(eltwise)
ATC_KERNEL(eltwise_ds)
ATC_KERNEL(eltwise_rs)

int64_t atck_eltwise_ntasks(const int64_t* P) {
  return (P[ATCK_EP_TOTAL] + ATCK_ELT_BLOCK - 1) / ATCK_ELT_BLOCK;
}

// float16 / bfloat16 operands of a float32-compute unary or binary op: a row is processed in
// chunks of ATCK_ELT_CHUNK, each converted into float32 scratch, computed, and rounded back in
// three separate loops. Written as one loop, LLVM folds the round trip (relu(h) becomes a compare-and-select
// on the half bits) into code it no longer vectorises: 20x slower than the float32 op.
enum { ATCK_ELT_CHUNK = 256 };  // 64: the per-chunk overhead doubled a float16 Mul's time
static inline ATCK_INLINE int atck_elt_reduced(int64_t dt) { return dt == ATCK_F16 || dt == ATCK_BF16; }

static inline ATCK_INLINE void atck_elt_row_chunked(int64_t op, const int64_t* dts, int64_t nin, int64_t outdt,
                                                    const AtckEltPrm& prm, const void* in0, int64_t o0,
                                                    int64_t s0, const void* in1, int64_t o1, int64_t s1,
                                                    void* out, int64_t o, int64_t n) {
  float xa[ATCK_ELT_CHUNK], xb[ATCK_ELT_CHUNK], r[ATCK_ELT_CHUNK];
  for (int64_t c0 = 0; c0 < n; c0 += ATCK_ELT_CHUNK) {
    const int64_t m = n - c0 < ATCK_ELT_CHUNK ? n - c0 : (int64_t)ATCK_ELT_CHUNK;
    atck_ld_run_f32(xa, in0, dts[0], o0 + c0 * s0, s0, m);
    if (nin == 2) {
      atck_ld_run_f32(xb, in1, dts[1], o1 + c0 * s1, s1, m);
      for (int64_t i = 0; i < m; ++i) {
        float v = atck_binary<float>(op, xa[i], xb[i], prm);
        r[i] = op == ATCK_E_MEAN ? v / 2.0f : v;
      }
    } else {
      for (int64_t i = 0; i < m; ++i) r[i] = atck_unary<float>(op, xa[i], prm);
    }
    ATCK_VEC16
    for (int64_t i = 0; i < m; ++i) atck_st<float>(out, outdt, o + c0 + i, r[i]);
  }
}

// float16 / bfloat16 Add, Sub, Mul, Div, Max, Min: 16 lanes per step straight from the operands
// (a broadcast operand, stride 0, converted once and held in a register) to the rounded output,
// the last n % 16 through the chunked loops. The chunked loops alone spent their time on short
// rows (EfficientNet-B0's squeeze-excite Mul over 672x49 rows ran at 2.7x its float32 time).
static inline ATCK_INLINE int atck_elt_vec16_op(int64_t op) {
  return op == ATCK_E_ADD || op == ATCK_E_SUB || op == ATCK_E_MUL || op == ATCK_E_DIV || op == ATCK_E_MAX ||
         op == ATCK_E_MIN;
}
static inline ATCK_INLINE void atck_elt_ld16(atck_v16f* v, const void* in, int64_t dt, int64_t o) {
  if (dt == ATCK_F32) {
    *v = atck_ld16((const float*)in + o);
    return;
  }
  const uint16_t* h = (const uint16_t*)in + o;
  for (int l = 0; l < 16; ++l) (*v)[l] = dt == ATCK_F16 ? atck_h2f(h[l]) : atck_bf2f(h[l]);
}
static inline ATCK_INLINE void atck_elt_row_vec16(int64_t op, const int64_t* dts, int64_t outdt,
                                                  const AtckEltPrm& prm, const void* in0, int64_t o0,
                                                  int64_t s0, const void* in1, int64_t o1, int64_t s1,
                                                  void* out, int64_t o, int64_t n) {
  const atck_v16f c0 = atck_splat16(atck_ld<float>(in0, dts[0], o0));
  const atck_v16f c1 = atck_splat16(atck_ld<float>(in1, dts[1], o1));
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    atck_v16f a = c0, b = c1;
    if (s0) atck_elt_ld16(&a, in0, dts[0], o0 + i);
    if (s1) atck_elt_ld16(&b, in1, dts[1], o1 + i);
    atck_v16f r;
    for (int l = 0; l < 16; ++l) r[l] = atck_binary<float>(op, a[l], b[l], prm);
    if (outdt == ATCK_F32) {
      atck_st16((float*)out + o + i, r);
    } else {
      uint16_t* y = (uint16_t*)out + o + i;
      for (int l = 0; l < 16; ++l) y[l] = outdt == ATCK_F16 ? atck_f2h(r[l]) : atck_f2bf(r[l]);
    }
  }
  if (i < n) atck_elt_row_chunked(op, dts, 2, outdt, prm, in0, o0 + i * s0, s0, in1, o1 + i * s1, s1, out, o + i, n - i);
}

template <class C>
static inline ATCK_INLINE void atck_elt_row(const int64_t* P, void** bufs, const int64_t* off,
                                const int64_t* istr, int64_t o, int64_t n) {
  const int64_t op = P[ATCK_EP_OP];
  const int64_t nin = P[ATCK_EP_NIN];
  const int64_t outdt = P[ATCK_EP_OUTDT];
  const int64_t* dts = P + ATCK_EP_HEADER;
  AtckEltPrm prm;
  prm.a = atck_d(P[ATCK_EP_ALPHA]);
  prm.b = atck_d(P[ATCK_EP_BETA]);
  prm.g = atck_d(P[ATCK_EP_GAMMA]);
  prm.ia = P[ATCK_EP_IA];
  prm.ib = P[ATCK_EP_IB];
  const int64_t* bix = dts + nin;
  void* out = bufs[P[ATCK_EP_OUTBUF]];
  const void* in0 = bufs[bix[0]];
  const int64_t o0 = off[0], s0 = istr[0];
  if (op <= ATCK_E_UNARY_END) {
    if constexpr (sizeof(C) == 4 && AtckIsFloat<C>::value) {
      // Implementation variants (math_impl.h), float32 compute type only.
      const int64_t iv = atck_iv_of(P[ATCK_EP_CT]);
      if (iv == ATCK_IV_PREC) {
        for (int64_t i = 0; i < n; ++i) {
          double x = atck_ld<double>(in0, dts[0], o0 + i * s0);
          atck_st<double>(out, outdt, o + i, atck_unary_f<double>(op, x, prm));
        }
        return;
      }
      if (iv == ATCK_IV_SUPER) {
        for (int64_t i = 0; i < n; ++i)
          atck_st<float>(out, outdt, o + i, atck_unary_sp(op, atck_ld<float>(in0, dts[0], o0 + i * s0), prm));
        return;
      }
      if (iv == ATCK_IV_FP16) {
        for (int64_t i = 0; i < n; ++i)
          atck_st<float>(out, outdt, o + i, atck_unary_kf16(op, atck_ld<float>(in0, dts[0], o0 + i * s0), prm));
        return;
      }
    }
    if constexpr (sizeof(C) == 4 && AtckIsFloat<C>::value) {
      if (atck_elt_reduced(dts[0]) || atck_elt_reduced(outdt)) {
        atck_elt_row_chunked(op, dts, 1, outdt, prm, in0, o0, s0, 0, 0, 0, out, o, n);
        return;
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      C x = atck_ld<C>(in0, dts[0], o0 + i * s0);
      atck_st<C>(out, outdt, o + i, atck_unary<C>(op, x, prm));
    }
  } else if (op == ATCK_E_WHERE || op == ATCK_E_CLIP3) {
    const void* in1 = bufs[bix[1]];
    const void* in2 = bufs[bix[2]];
    const int64_t o1 = off[1], s1 = istr[1], o2 = off[2], s2 = istr[2];
    for (int64_t i = 0; i < n; ++i) {
      C c = atck_ld<C>(in0, dts[0], o0 + i * s0);
      C a = atck_ld<C>(in1, dts[1], o1 + i * s1);
      C b = atck_ld<C>(in2, dts[2], o2 + i * s2);
      if (op == ATCK_E_WHERE) {
        atck_st<C>(out, outdt, o + i, c != (C)0 ? a : b);
      } else {  // CLIP3: c = x, a = min, b = max
        C v = c < a ? a : c;
        atck_st<C>(out, outdt, o + i, v > b ? b : v);
      }
    }
  } else if (nin == 2) {
    const void* in1 = bufs[bix[1]];
    const int64_t o1 = off[1], s1 = istr[1];
    if constexpr (sizeof(C) == 4 && AtckIsFloat<C>::value) {
      if (atck_elt_reduced(dts[0]) || atck_elt_reduced(dts[1]) || atck_elt_reduced(outdt)) {
        if (atck_elt_vec16_op(op) && (s0 | s1) != 0)
          atck_elt_row_vec16(op, dts, outdt, prm, in0, o0, s0, in1, o1, s1, out, o, n);
        else
          atck_elt_row_chunked(op, dts, 2, outdt, prm, in0, o0, s0, in1, o1, s1, out, o, n);
        return;
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      C a = atck_ld<C>(in0, dts[0], o0 + i * s0);
      C b = atck_ld<C>(in1, dts[1], o1 + i * s1);
      C r = atck_binary<C>(op, a, b, prm);
      if (op == ATCK_E_MEAN) r = r / (C)2;
      atck_st<C>(out, outdt, o + i, r);
    }
  } else {
    // n-ary fold: accumulate input by input in the output row (output dtype = input dtype
    // for Sum/Max/Min/Mean, so storing the partial result is exact for float32).
    for (int64_t i = 0; i < n; ++i)
      atck_st<C>(out, outdt, o + i, atck_ld<C>(in0, dts[0], o0 + i * s0));
    for (int64_t k = 1; k < nin; ++k) {
      const void* ink = bufs[bix[k]];
      const int64_t ok = off[k], sk = istr[k], dk = dts[k];
      const bool last = k == nin - 1;
      for (int64_t i = 0; i < n; ++i) {
        C r = atck_binary<C>(op, atck_ld<C>(out, outdt, o + i), atck_ld<C>(ink, dk, ok + i * sk), prm);
        if (last && op == ATCK_E_MEAN) r = r / (C)nin;
        atck_st<C>(out, outdt, o + i, r);
      }
    }
  }
}

template <class C>
static inline ATCK_INLINE void atck_elt_run(const int64_t* P, void** bufs, int64_t lo, int64_t hi) {
  const int64_t nin = P[ATCK_EP_NIN];
  const int64_t rank = P[ATCK_EP_RANK];
  const int64_t* shape = P + ATCK_EP_HEADER + 2 * nin;
  const int64_t* strides = shape + rank;  // [nin][rank]
  atck_bcast_walk(shape, strides, rank, nin, lo, hi,
                  [&](const int64_t* off, const int64_t* istr, int64_t idx, int64_t seg) ATCK_INLINE {
                    atck_elt_row<C>(P, bufs, off, istr, idx, seg);
                  });
}

// Elements lo..hi of the walk P describes, in P's compute type.
static inline ATCK_INLINE void atck_elt_dispatch(const int64_t* P, void** bufs, int64_t lo, int64_t hi) {
  switch (atck_iv_base(P[ATCK_EP_CT])) {
    case ATCK_CT_F32: atck_elt_run<float>(P, bufs, lo, hi); break;
    case ATCK_CT_F64: atck_elt_run<double>(P, bufs, lo, hi); break;
    case ATCK_CT_I64: atck_elt_run<int64_t>(P, bufs, lo, hi); break;
    default: atck_elt_run<uint64_t>(P, bufs, lo, hi); break;
  }
}

void atck_eltwise_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  int64_t lo = begin * ATCK_ELT_BLOCK;
  int64_t hi = end * ATCK_ELT_BLOCK;
  if (hi > P[ATCK_EP_TOTAL]) hi = P[ATCK_EP_TOTAL];
  if (lo >= hi) return;
  atck_elt_dispatch(P, bufs, lo, hi);
}

int64_t atck_eltwise_ds_ntasks(const int64_t* P) { return atck_eltwise_ntasks(P + ATCK_DS_HEADER); }

void atck_eltwise_ds_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t* E = P + ATCK_DS_HEADER;
  const int64_t* dims = (const int64_t*)((const char*)bufs[P[ATCK_DS_SRC]] + P[ATCK_DS_SRC_AT]);
  int64_t count = 1;
  for (int64_t i = 0; i < P[ATCK_DS_RANK]; ++i) count = dims[i] < 0 ? 0 : count * dims[i];
  if (begin == 0) {
    int64_t* to = (int64_t*)((char*)bufs[E[ATCK_EP_OUTBUF]] + P[ATCK_DS_DST_AT]);
    for (int64_t i = 0; i < (P[ATCK_DS_RANK] ? P[ATCK_DS_RANK] : 1); ++i) to[i] = dims[i];
  }
  int64_t lo = begin * ATCK_ELT_BLOCK, hi = end * ATCK_ELT_BLOCK;
  if (hi > E[ATCK_EP_TOTAL]) hi = E[ATCK_EP_TOTAL];
  if (hi > count) hi = count;
  if (lo >= hi) return;
  atck_elt_dispatch(E, bufs, lo, hi);
}

int64_t atck_eltwise_rs_ntasks(const int64_t*) { return ATCK_ELT_RS_TASKS; }

void atck_eltwise_rs_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t* E = P + ATCK_RS_HEADER;
  const int64_t rank = P[ATCK_RS_RANK];
  const int64_t* dims = (const int64_t*)bufs[P[ATCK_RS_IN_SLOT]];
  if (!bufs[E[ATCK_EP_OUTBUF]]) {  // the size pass
    if (begin == 0)
      for (int64_t i = 0; i < rank; ++i) ((int64_t*)bufs[P[ATCK_RS_OUT_SLOT]])[i] = dims[i];
    return;
  }
  int64_t count = 1;
  for (int64_t i = 0; i < rank; ++i) count *= dims[i];
  const int64_t nin = E[ATCK_EP_NIN];
  if (count <= 0 || nin > ATCK_ELT_MAX_IN) return;
  // The flat walk's one dim becomes the run's element count.
  int64_t local[ATCK_EP_HEADER + 3 * ATCK_ELT_MAX_IN + 1];
  const int64_t len = ATCK_EP_HEADER + 3 * nin + 1;
  for (int64_t i = 0; i < len; ++i) local[i] = E[i];
  local[ATCK_EP_TOTAL] = count;
  local[ATCK_EP_HEADER + 2 * nin] = count;
  int64_t chunk = (count + ATCK_ELT_RS_TASKS - 1) / ATCK_ELT_RS_TASKS;
  chunk = (chunk + 15) / 16 * 16;
  int64_t lo = begin * chunk, hi = end * chunk;
  if (hi > count) hi = count;
  if (lo >= hi) return;
  atck_elt_dispatch(local, bufs, lo, hi);
}
