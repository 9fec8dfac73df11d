// Kernels of ai.onnx.ml ops.
// binarizer: Y = X > threshold ? 1 : 0 (float32 / float64). bufs = {X, Y}; P = {dtype, n, threshold (double)}.
// feature_extract: ArrayFeatureExtractor: Y[o, j] = X[o, idx[j]] over X's last axis; an index
//   outside [0, last) gives 0 (the reference raises). bufs = {X, idx, Y};
//   P = {esize, outer, last, nIdx, idx dtype}.
#include "kernels/lib/index_elem.h"

ATC_KERNEL(binarizer)
ATC_KERNEL(feature_extract)

int64_t atck_binarizer_ntasks(const int64_t*) { return 1; }

void atck_binarizer_task(const int64_t* P, void** bufs, int64_t, int64_t) {
  const double th = atck_d(P[2]);
  for (int64_t i = 0; i < P[1]; ++i) {
    if (P[0] == ATCK_F64) ((double*)bufs[1])[i] = ((const double*)bufs[0])[i] > th ? 1.0 : 0.0;
    else ((float*)bufs[1])[i] = (double)((const float*)bufs[0])[i] > th ? 1.f : 0.f;
  }
}

int64_t atck_feature_extract_ntasks(const int64_t* P) { return P[1]; }

void atck_feature_extract_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t es = P[0], last = P[2], ni = P[3];
  const char* x = (const char*)bufs[0];
  char* y = (char*)bufs[2];
  for (int64_t o = begin; o < end; ++o)
    for (int64_t j = 0; j < ni; ++j) {
      const int64_t k = atck_index_at(bufs[1], P[4], j);
      char* dst = y + (o * ni + j) * es;
      if (k < 0 || k >= last) memset(dst, 0, (size_t)es);
      else atck_move_one(dst, x + (o * last + k) * es, es);
    }
}

// tree_ensemble: ai.onnx.ml TreeEnsemble (opset 5) as the ONNX reference evaluates it: each tree
// from its root, node by node (modes LEQ, LT, GTE, GT, EQ, NEQ, MEMBER; a NaN feature goes to
// the true branch where missing_value_tracks_true says so) to a leaf (weight, target), the leaves
// aggregated per target (SUM, AVERAGE, MIN, MAX; post_transform NONE), compared and summed in
// double. bufs = {X [N, F], Y [N, targets]}; P = {dtype, N, F, targets, aggregate, roots, nodes,
// leaves, members, then per root {leaf?, index}, per node {mode, feature, split (double),
// true id, true leaf?, false id, false leaf?, missing tracks true, first member, members},
// per leaf {target, weight (double)}, the members (double)}. A walk longer than the node count
// (a cycle) contributes nothing.
ATC_KERNEL(tree_ensemble)

int64_t atck_tree_ensemble_ntasks(const int64_t* P) { return P[1]; }

static inline ATCK_INLINE int atck_te_true(const int64_t* nd, const int64_t* members, double x) {
  if (x != x) return (int)nd[7];
  const double s = atck_d(nd[2]);
  switch (nd[0]) {
    case 0: return x <= s;
    case 1: return x < s;
    case 2: return x >= s;
    case 3: return x > s;
    case 4: return x == s;
    case 5: return x != s;
    default:
      for (int64_t m = 0; m < nd[9]; ++m)
        if (x == atck_d(members[nd[8] + m])) return 1;
      return 0;
  }
}

void atck_tree_ensemble_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t dt = P[0], F = P[2], T = P[3], agg = P[4], nr = P[5], nn = P[6], nl = P[7];
  const int64_t* roots = P + 9;
  const int64_t* nodes = roots + 2 * nr;
  const int64_t* leaves = nodes + 10 * nn;
  const int64_t* members = leaves + 2 * nl;
  for (int64_t b = begin; b < end; ++b) {
    double acc[256];
    const double big = dt == ATCK_F64 ? 1.7976931348623157e308 : 3.4028234663852886e38;  // np.finfo max
    for (int64_t t = 0; t < T; ++t) acc[t] = agg == 2 ? big : agg == 3 ? -big : 0.0;
    for (int64_t r = 0; r < nr; ++r) {
      int64_t leaf = roots[2 * r] ? roots[2 * r + 1] : -1, cur = roots[2 * r + 1];
      for (int64_t steps = 0; leaf < 0 && steps <= nn; ++steps) {
        const int64_t* nd = nodes + 10 * cur;
        const int64_t f = nd[1];
        const double x =
            dt == ATCK_F64 ? ((const double*)bufs[0])[b * F + f] : (double)((const float*)bufs[0])[b * F + f];
        const int t = atck_te_true(nd, members, x);
        const int64_t next = t ? nd[3] : nd[5];
        if (t ? nd[4] : nd[6]) leaf = next;
        else cur = next;
      }
      if (leaf < 0) continue;
      const int64_t tid = leaves[2 * leaf];
      const double w = atck_d(leaves[2 * leaf + 1]);
      if (agg == 0) acc[tid] += w / (double)nr;
      else if (agg == 1) acc[tid] += w;
      else if (agg == 2) acc[tid] = w < acc[tid] ? w : acc[tid];
      else acc[tid] = w > acc[tid] ? w : acc[tid];
    }
    for (int64_t t = 0; t < T; ++t) {
      if (dt == ATCK_F64) ((double*)bufs[1])[b * T + t] = acc[t];
      else ((float*)bufs[1])[b * T + t] = (float)acc[t];
    }
  }
}

// tfidf: TfIdfVectorizer over integer tokens, as the ONNX reference counts: for each skip distance
// 1..max_skip_count + 1 and each start, the items start, start + d, ... form n-grams of growing
// n; one of the pool's (sizes min..max; a gram listed twice counts for its last listing) adds 1
// to its output column. Unigrams count once, not per skip distance. Then TF (counts), IDF
// (weight or 1 where the count is not 0) or TFIDF (count times weight). bufs = {X, Y};
// P = {rows, C, X dtype, mode (1 TF, 2 IDF, 3 TFIDF), min n, max n, max skip, output size,
// grams, has weights, per gram {n, output column, pool offset}, pool size, the pool, weights (double)}.
ATC_KERNEL(tfidf)

int64_t atck_tfidf_ntasks(const int64_t* P) { return P[0]; }

void atck_tfidf_task(const int64_t* P, void** bufs, int64_t begin, int64_t end) {
  const int64_t C = P[1], dt = P[2], mode = P[3], minN = P[4], maxN = P[5], maxSkip = P[6], outSize = P[7];
  const int64_t ng = P[8], hasW = P[9];
  const int64_t* grams = P + 10;
  const int64_t poolSize = grams[3 * ng];
  const int64_t* pool = grams + 3 * ng + 1;
  const int64_t* w = pool + poolSize;
  float* y = (float*)bufs[1];
  for (int64_t r = begin; r < end; ++r) {
    float* row = y + r * outSize;
    for (int64_t o = 0; o < outSize; ++o) row[o] = 0;
    int64_t startN = minN;
    for (int64_t d = 1; d <= maxSkip + 1; ++d) {
      for (int64_t s = 0; s < C && s + d * (startN - 1) < C; ++s)
        for (int64_t n = startN; n <= maxN && s + d * (n - 1) < C; ++n) {
          int64_t col = -1;
          for (int64_t g = 0; g < ng; ++g) {
            if (grams[3 * g] != n) continue;
            int match = 1;
            for (int64_t k = 0; k < n && match; ++k)
              match = atck_index_at(bufs[0], dt, r * C + s + k * d) == pool[grams[3 * g + 2] + k];
            if (match) col = grams[3 * g + 1];
          }
          if (col >= 0) row[col] += 1;
        }
      if (startN == 1) {  // unigrams are not affected by the skip distance
        if (++startN > maxN) break;
      }
    }
    for (int64_t o = 0; o < outSize; ++o) {
      const double f = row[o], wt = hasW ? atck_d(w[o]) : 1.0;
      row[o] = (float)(mode == 1 ? f : mode == 2 ? (f > 0 ? wt : 0.0) : (hasW ? f * wt : f));
    }
  }
}
