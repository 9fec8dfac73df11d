// The matrix-product fold of QdqConvFoldPass: in QDQ models,
//   MatMul(DequantizeLinear(xq), W) [-> Add(., bias)]     W = DequantizeLinear(w int8 [K, N])
//                                                            or Transpose(DequantizeLinear(
//                                                            w int8 [N, K]))  (PyTorch's Linear)
//   Gemm(DequantizeLinear(xq), W, bias)                   transB 0: w [K, N]; 1: w [N, K]
// -> QuantizedMatMul (ops/quant/quantized_matmul.cpp, kernel qmatmul8): (xq - x_zero_point)
// times the int8 weights summed exactly in int32, scaled by x_scale * w_scale[n], plus the
// bias. Weight scales per tensor or per output column, zero points 0. As for convs, a
// QuantizeLinear(x) with the same scale and zero point is computed while x's rows are packed.
// Every other matrix product whose input comes from DequantizeLinear gets the reason it stays
// float32 in _quant_decision.
#include <algorithm>

#include "passes/fusion/fusion_util.h"
#include "passes/quant/qdq_fold_util.h"

namespace atc {
namespace {

// The weights of a matrix product: their DequantizeLinear, the Transpose between (or null), and
// whether w is stored [N, K] (one row per output column) rather than [K, N].
struct QmWeights {
  Node* dw = nullptr;
  Node* transpose = nullptr;
  bool nk = false;
};

QmWeights findWeights(const Graph& g, Node* m) {
  QmWeights r;
  Value* b = m->inputs[1];
  if (m->type == "Gemm") {
    r.dw = fu::producerOf(b, "DequantizeLinear");
    r.nk = m->attrInt("transB", 0) != 0;
    return r;
  }
  if ((r.dw = fu::producerOf(b, "DequantizeLinear"))) return r;
  Node* t = fu::producerOf(b, "Transpose");
  if (t && t->inputs[0]->type.rank() == 2 && fu::transposePerm(t) == std::vector<int64_t>{1, 0} &&
      fu::soleUserIs(g, t->outputs[0], m) && (r.dw = fu::producerOf(t->inputs[0], "DequantizeLinear"))) {
    r.transpose = t;
    r.nk = true;
  }
  return r;
}

// Why w's DequantizeLinear cannot give the int8 kernel its weights ("" when it can): int8
// constant of rank 2, float32 scale per tensor or per output column, zero point absent or 0.
std::string weightBlocker(const QmWeights& q) {
  if (!q.dw) return "its weights do not come from DequantizeLinear";
  const Value* w = q.dw->inputs[0];
  if (!qdqIsConst(w, DType::I8) || w->type.rank() != 2) return "its weights are not constant int8 of rank 2";
  if (!qdqIsConst(q.dw->input(1), DType::F32)) return "the weight scale is not a float32 constant";
  if (q.dw->hasAttr("block_size") && q.dw->attrInt("block_size", 0) != 0) return "blocked weight scales";
  const int64_t N = w->type.shape[q.nk ? 0 : 1], ns = q.dw->inputs[1]->type.numel();
  int64_t axis = q.dw->attrInt("axis", 1);
  if (axis < 0) axis += 2;
  if (ns != 1 && !(ns == N && axis == (q.nk ? 0 : 1))) return "weight scales are not per tensor or per output column";
  if (const Value* z = q.dw->input(2)) {
    if (!z->isConstant() || z->type.dtype != DType::I8) return "the weight zero point is not an int8 constant";
    for (int64_t i = 0; i < z->type.numel(); ++i)
      if (z->constant->intAt(i) != 0) return "the weight zero point is not 0 (the int8 kernel takes symmetric weights)";
  }
  return "";
}

// A float32 constant of N values along the last axis only ([N], [1, N]...): a bias.
bool isBiasVector(const Value* v, int64_t N, int64_t maxRank) {
  if (!qdqIsConst(v, DType::F32) || v->type.numel() != N || v->type.rank() < 1 || v->type.rank() > maxRank) return false;
  return v->type.shape.back() == N;
}

std::string productBlocker(const Node* m) {
  const Value* a = m->inputs[0];
  if (!a->type.isStatic() || a->type.rank() < 1) return "its input has no static shape";
  if (m->type == "MatMul") return "";
  if (m->attrInt("transA", 0) != 0) return "Gemm with transA";
  if (m->attrFloat("alpha", 1.0) != 1.0 || (m->input(2) && m->attrFloat("beta", 1.0) != 1.0))
    return "Gemm with alpha or beta other than 1";
  return "";
}

// The bias: Gemm's C, or the constant of an Add that is the MatMul's only reader (absorbed).
Node* biasAdd(const Graph& g, Node* m, int64_t N, Value** bias) {
  *bias = nullptr;
  if (m->type == "Gemm") {
    if (m->input(2)) *bias = m->inputs[2];
    return nullptr;
  }
  Node* u = fu::soleUser(g, m->outputs[0]);
  if (!u || u->type != "Add" || u->inputs.size() != 2) return nullptr;
  Value* c = u->inputs[0] == m->outputs[0] ? u->inputs[1] : u->inputs[0];
  if (c == m->outputs[0] || !isBiasVector(c, N, m->outputs[0]->type.rank())) return nullptr;
  *bias = c;
  return u;
}

// w as int8 [N, K] (a new constant when it is stored [K, N]).
Value* weightsNK(Graph& g, const QmWeights& q, const std::string& name) {
  Value* w = q.dw->inputs[0];
  if (q.nk) return w;
  const int64_t K = w->type.shape[0], N = w->type.shape[1];
  auto t = std::make_shared<Tensor>(TensorType(DType::I8, {N, K}));
  const int8_t* s = w->constant->as<int8_t>();
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n) t->as<int8_t>()[n * K + k] = s[k * N + n];
  return g.newConstant(name + "_q8_w", t);
}

void foldOne(Graph& g, Node* m, Node* dx, const QmWeights& q, std::set<Node*>* removed) {
  const Value* w = q.dw->inputs[0];
  const int64_t N = w->type.shape[q.nk ? 0 : 1];
  Value* bias = nullptr;
  Node* add = biasAdd(g, m, N, &bias);
  const float xs = (float)dx->inputs[1]->constant->floatAt(0);
  const Tensor& ws = *q.dw->inputs[1]->constant;
  std::vector<double> mult((size_t)N), b((size_t)N, 0.0);
  for (int64_t n = 0; n < N; ++n) {
    mult[n] = xs * (float)ws.floatAt(ws.type.numel() == 1 ? 0 : n);
    if (bias) b[n] = bias->constant->floatAt(n);
  }
  Node* qn = nullptr;
  Value* xin = qdqKernelInput(dx, &qn);
  Value* zp = dx->input(2);
  if (!zp) zp = g.newConstant(m->name + "_x_zero_point", std::make_shared<Tensor>(TensorType(dx->inputs[0]->type.dtype, {})));
  std::string decision = "int8: QuantizedMatMul (u8 x s8 -> int32) from DequantizeLinear " + dx->name +
                         ", DequantizeLinear " + q.dw->name + (q.transpose ? ", Transpose " + q.transpose->name : "") +
                         ", " + m->type + " " + m->name;
  if (qn) decision += ", QuantizeLinear " + qn->name + " (quantized while packed)";
  if (add) decision += ", Add " + add->name;
  std::vector<Node*> gone = {m};
  if (add) gone.push_back(add);
  for (Node* n : gone)
    if (n->originalNames.empty()) n->originalNames = {n->name};
  Value* out = (add ? add : m)->outputs[0];
  const std::string name = m->name;
  Value* wv = weightsNK(g, q, name);
  Value* mv = g.newConstant(name + "_q8_mult", qdqFloatVector(mult));
  Value* bv = g.newConstant(name + "_q8_bias", qdqFloatVector(b));
  Node* r = fu::replaceWithNode(g, gone, removed, "QuantizedMatMul", name, {xin, dx->inputs[1], zp, wv, mv, bv}, {out});
  r->attrs["_quant_decision"] = decision;
}

}  // namespace

int foldQdqMatMuls(Graph& g, PassContext& ctx, bool wanted, std::set<Node*>* removed) {
  int folded = 0;
  std::vector<Node*> transposes;
  for (Node* m : fu::nodesWhere(g, [](const Node& n) { return n.type == "MatMul" || n.type == "Gemm"; })) {
    if (removed->count(m)) continue;
    Node* dx = fu::producerOf(m->inputs[0], "DequantizeLinear");
    if (!dx) continue;  // a float product
    ctx.stats.matchTimes++;
    const QmWeights q = findWeights(g, m);
    std::string why = !wanted ? "the target has no int8 path (int8_path none)" : productBlocker(m);
    if (why.empty()) why = qdqInputBlocker(dx);
    if (why.empty()) why = weightBlocker(q);
    if (why.empty() && m->type == "Gemm" && m->input(2) && !isBiasVector(m->inputs[2], q.dw->inputs[0]->type.shape[q.nk ? 0 : 1], 2))
      why = "Gemm's C is not a constant float32 vector of one value per output column";
    if (!why.empty()) {
      m->attrs["_quant_decision"] = "float32: " + why + " (weights dequantized at compile time)";
      ctx.debug(m->type + " " + m->name + " stays float32: " + why);
      continue;
    }
    if (q.transpose) transposes.push_back(q.transpose);
    foldOne(g, m, dx, q, removed);
    ctx.stats.effectTimes++;
    ++folded;
  }
  for (Node* t : transposes) fu::dropIfDead(g, t);  // their DequantizeLinear goes with the pass's cleanup
  return folded;
}

void weightDequantizeForQdqMatMul(const Graph& g, std::set<const Node*>* keep) {
  for (const auto& n : g.nodes()) {
    if ((n->type != "MatMul" && n->type != "Gemm") || n->inputs.size() < 2) continue;
    if (!fu::producerOf(n->inputs[0], "DequantizeLinear")) continue;
    Value* b = n->inputs[1];
    if (const Node* t = fu::producerOf(b, "Transpose"); t && n->type == "MatMul") b = t->inputs[0];
    if (const Node* dw = fu::producerOf(b, "DequantizeLinear")) keep->insert(dw);
  }
}

}  // namespace atc
