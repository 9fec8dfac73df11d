// Ops of the ai.onnx.ml domain: Binarizer and ArrayFeatureExtractor (kernels/lib/ml.cpp).
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

void inferBinarizer(Graph&, Node& n) {
  const DType dt = n.inputs[0]->type.dtype;
  if (dt != DType::F32 && dt != DType::F64) opError(n, std::string("unsupported dtype ") + dtypeName(dt));
  n.outputs[0]->type = TensorType(dt, dm::staticShape(n, 0));
}

KernelCall lowerBinarizer(LowerCtx& c) {
  const TensorType& t = c.node.inputs[0]->type;
  return KernelCall{"binarizer", {(int64_t)t.dtype, t.numel(), paramFromDouble(c.node.attrFloat("threshold", 0.0))}};
}

// X [..., last] and indices of any shape (flattened): Y [..., count] (a 1-D X gives [1, count]).
void inferFeatureExtractor(Graph&, Node& n) {
  const Shape& x = dm::staticShape(n, 0);
  dm::staticShape(n, 1);
  const DType it = n.inputs[1]->type.dtype;
  if (it != DType::I64 && it != DType::I32) opError(n, "indices must be int64 or int32");
  if (x.empty()) opError(n, "X must have at least one dim");
  Shape out = x.size() == 1 ? Shape{1} : Shape(x.begin(), x.end() - 1);
  out.push_back(n.inputs[1]->type.numel());
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, out);
}

KernelCall lowerFeatureExtractor(LowerCtx& c) {
  const TensorType& x = c.node.inputs[0]->type;
  const int64_t last = x.shape.back();
  return KernelCall{"feature_extract",
                    {(int64_t)dtypeSize(x.dtype), last ? x.numel() / last : 0, last, c.node.inputs[1]->type.numel(),
                     (int64_t)c.node.inputs[1]->type.dtype}};
}

OpDef def(const char* type, int inputs, void (*infer)(Graph&, Node&), KernelCall (*lower)(LowerCtx&)) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::Misc;
  d.minInputs = d.maxInputs = inputs;
  d.infer = infer;
  d.lower = lower;
  return d;
}

ATC_REGISTER_OP(def("ai.onnx.ml::Binarizer", 1, inferBinarizer, lowerBinarizer));
ATC_REGISTER_OP(def("ai.onnx.ml::ArrayFeatureExtractor", 2, inferFeatureExtractor, lowerFeatureExtractor));

}  // namespace
}  // namespace atc

namespace atc {
namespace {

// TreeEnsemble (ai.onnx.ml opset 5): kernel tree_ensemble (kernels/lib/ml.cpp). The trees are
// checked here (ids in range, leaf targets below n_targets) and flattened into the params.
std::vector<double> tensorAttr(const Node& n, const char* name) {
  TensorPtr t = n.attrTensor(name);
  std::vector<double> v;
  if (t)
    for (int64_t i = 0; i < t->type.numel(); ++i) v.push_back(t->floatAt(i));
  return v;
}

KernelCall treeEnsembleCall(const Node& n) {
  const auto splits = tensorAttr(n, "nodes_splits"), weights = tensorAttr(n, "leaf_weights"),
             modes = tensorAttr(n, "nodes_modes"), members = tensorAttr(n, "membership_values");
  const auto feat = n.attrInts("nodes_featureids"), tid = n.attrInts("nodes_truenodeids"),
             fid = n.attrInts("nodes_falsenodeids"), tleaf = n.attrInts("nodes_trueleafs"),
             fleaf = n.attrInts("nodes_falseleafs"), targets = n.attrInts("leaf_targetids"),
             roots = n.attrInts("tree_roots"), missing = n.attrInts("nodes_missing_value_tracks_true", {});
  const int64_t nn = (int64_t)splits.size(), nl = (int64_t)weights.size(), T = n.attrInt("n_targets", 0);
  const int64_t F = n.inputs[0]->type.shape.back();
  if ((int64_t)feat.size() != nn || (int64_t)modes.size() != nn || (int64_t)tid.size() != nn ||
      (int64_t)fid.size() != nn || (int64_t)tleaf.size() != nn || (int64_t)fleaf.size() != nn ||
      (int64_t)targets.size() != nl || (!missing.empty() && (int64_t)missing.size() != nn))
    opError(n, "the node and leaf attributes differ in length");
  if (T < 1 || T > 256) opError(n, "n_targets must be 1 to 256");
  if (n.attrInt("post_transform", 0) != 0) opError(n, "only post_transform NONE (0) is supported");
  const int64_t agg = n.attrInt("aggregate_function", 1);
  if (agg < 0 || agg > 3) opError(n, "unsupported aggregate_function");
  KernelCall k{"tree_ensemble", {(int64_t)n.inputs[0]->type.dtype, n.inputs[0]->type.shape[0], F, T, agg,
                                 (int64_t)roots.size(), nn, nl, (int64_t)members.size()}};
  auto inRange = [&](int64_t id, bool leaf) { return id >= 0 && id < (leaf ? nl : nn); };
  for (int64_t r : roots) {
    if (r < 0 || r >= nn) opError(n, "a tree root is out of range");
    const bool leaf = tleaf[(size_t)r] && fleaf[(size_t)r] && tid[(size_t)r] == fid[(size_t)r];
    if (leaf && !inRange(r, true)) opError(n, "a leaf root is out of range");
    k.params.push_back(leaf ? 1 : 0);
    k.params.push_back(r);
  }
  size_t m = 0;  // membership_values: each MEMBER node's values up to a NaN (or 0, as the reference reads them)
  for (int64_t i = 0; i < nn; ++i) {
    const size_t s = (size_t)i;
    if (feat[s] < 0 || feat[s] >= F || !inRange(tid[s], tleaf[s] != 0) || !inRange(fid[s], fleaf[s] != 0) ||
        modes[s] < 0 || modes[s] > 6)
      opError(n, "node " + std::to_string(i) + " has a feature, branch or mode out of range");
    const size_t first = m;
    int64_t count = 0;
    if (modes[s] == 6)
      while (m < members.size()) {
        const double v = members[m++];
        if (v != v || v == 0) break;
        ++count;
      }
    k.params.insert(k.params.end(), {(int64_t)modes[s], feat[s], paramFromDouble(splits[s]), tid[s],
                                     tleaf[s] ? 1 : 0, fid[s], fleaf[s] ? 1 : 0, missing.empty() ? 0 : missing[s],
                                     (int64_t)first, count});
  }
  for (int64_t i = 0; i < nl; ++i) {
    if (targets[(size_t)i] < 0 || targets[(size_t)i] >= T) opError(n, "a leaf target is out of range");
    k.params.push_back(targets[(size_t)i]);
    k.params.push_back(paramFromDouble(weights[(size_t)i]));
  }
  for (double v : members) k.params.push_back(paramFromDouble(v));
  return k;
}

void inferTreeEnsemble(Graph&, Node& n) {
  const Shape& x = dm::staticShape(n, 0);
  const DType dt = n.inputs[0]->type.dtype;
  if (dt != DType::F32 && dt != DType::F64) opError(n, std::string("unsupported dtype ") + dtypeName(dt));
  if (x.size() != 2) opError(n, "X must be [N, features]");
  treeEnsembleCall(n);  // checks the trees
  n.outputs[0]->type = TensorType(dt, {x[0], n.attrInt("n_targets", 0)});
}

KernelCall lowerTreeEnsemble(LowerCtx& c) { return treeEnsembleCall(c.node); }

ATC_REGISTER_OP(def("ai.onnx.ml::TreeEnsemble", 1, inferTreeEnsemble, lowerTreeEnsemble));

}  // namespace
}  // namespace atc

namespace atc {
namespace {

// TfIdfVectorizer (opset 9) over int32 / int64 tokens (string pools are refused with the string
// type): kernel tfidf (kernels/lib/ml.cpp). X [C] gives Y [out]; X [B, C] gives Y [B, out].
KernelCall tfidfCall(const Node& n) {
  const TensorType& x = n.inputs[0]->type;
  if (x.dtype != DType::I64 && x.dtype != DType::I32)
    opError(n, "X must be int32 or int64 (string pools are not supported)");
  if (x.rank() < 1 || x.rank() > 2) opError(n, "X must be [C] or [B, C]");
  const std::string m = n.attrString("mode", "TF");
  const int64_t mode = m == "TF" ? 1 : m == "IDF" ? 2 : m == "TFIDF" ? 3 : 0;
  if (!mode) opError(n, "mode must be TF, IDF or TFIDF");
  const int64_t minN = n.attrInt("min_gram_length", 1), maxN = n.attrInt("max_gram_length", 1),
                skip = n.attrInt("max_skip_count", 0);
  const auto counts = n.attrInts("ngram_counts"), indexes = n.attrInts("ngram_indexes"),
             pool = n.attrInts("pool_int64s", {});
  const auto weights = n.attrFloats("weights", {});
  if (minN < 1 || maxN < minN || maxN > 64 || skip < 0 || indexes.empty() || pool.empty())
    opError(n, "invalid gram lengths, skip count, ngram_indexes or pool_int64s");
  int64_t outSize = 0;
  for (int64_t i : indexes) {
    if (i < 0) opError(n, "negative ngram index");
    outSize = std::max(outSize, i + 1);
  }
  if (!weights.empty() && (int64_t)weights.size() < outSize) opError(n, "fewer weights than output columns");
  std::vector<int64_t> grams;  // {n, column, pool offset} for the sizes counted
  int64_t id = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    const int64_t size = (int64_t)i + 1, b = counts[i];
    const int64_t e = i + 1 < counts.size() ? counts[i + 1] : (int64_t)pool.size();
    if (b < 0 || e < b || e > (int64_t)pool.size()) opError(n, "ngram_counts out of range");
    for (int64_t off = b; off + size <= e; off += size, ++id) {
      if (id >= (int64_t)indexes.size()) opError(n, "fewer ngram_indexes than n-grams in the pool");
      if (size >= minN && size <= maxN) grams.insert(grams.end(), {size, indexes[(size_t)id], off});
    }
  }
  const int64_t rows = x.rank() == 2 ? x.shape[0] : 1, C = x.shape.back();
  KernelCall k{"tfidf", {rows, C, (int64_t)x.dtype, mode, minN, maxN, skip, outSize, (int64_t)grams.size() / 3,
                         weights.empty() ? 0 : 1}};
  k.params.insert(k.params.end(), grams.begin(), grams.end());
  k.params.push_back((int64_t)pool.size());
  k.params.insert(k.params.end(), pool.begin(), pool.end());
  for (double wv : weights) k.params.push_back(paramFromDouble(wv));
  return k;
}

void inferTfidf(Graph&, Node& n) {
  dm::staticShape(n, 0);
  const KernelCall k = tfidfCall(n);
  const TensorType& x = n.inputs[0]->type;
  n.outputs[0]->type =
      x.rank() == 2 ? TensorType(DType::F32, {x.shape[0], k.params[7]}) : TensorType(DType::F32, {k.params[7]});
}

KernelCall lowerTfidf(LowerCtx& c) { return tfidfCall(c.node); }

ATC_REGISTER_OP(def("TfIdfVectorizer", 1, inferTfidf, lowerTfidf));

}  // namespace
}  // namespace atc
