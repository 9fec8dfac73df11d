// The element-wise and data-movement folds of QdqConvFoldPass (qdq_fold_util.h): in QDQ models,
//   DequantizeLinear(x) -> MaxPool -> QuantizeLinear            (one scale and zero point)
//   DequantizeLinear(x_i)... -> Concat -> QuantizeLinear        (one scale and zero point)
//   DequantizeLinear(a), DequantizeLinear(b) -> Add [-> Relu] -> QuantizeLinear
// run on the 8-bit tensors: MaxPool and Concat take the bytes as they are (the largest value
// and a copy commute with a monotonic quantization: the results are the float path's, bit for
// bit), the Add becomes QuantizedAdd (kernel qadd8), which computes the chain's float32
// arithmetic per element. A quarter of the float32 traffic, and no quant kernels around them
// (the form ONNX Runtime's quantizer writes around pools, residual Adds and Concats). Each
// matched op gets its decision in _quant_decision (--mode=1). Runs before the conv folds, so
// that a conv reading such an output takes the bytes.
#include <set>

#include "passes/fusion/fusion_util.h"
#include "passes/quant/qdq_fold_util.h"

namespace atc {
namespace {

// Per-tensor 8-bit quantization of a QuantizeLinear (its output) or DequantizeLinear (its input).
struct QParams {
  float scale = 0;
  int64_t zp = 0;
  DType dt = DType::Undefined;
};

bool perTensorQParams(const Node* n, QParams* p) {
  const bool quantize = n->type == "QuantizeLinear";
  p->dt = quantize ? n->outputs[0]->type.dtype : n->inputs[0]->type.dtype;
  if (p->dt != DType::U8 && p->dt != DType::I8) return false;
  if (n->hasAttr("block_size") && n->attrInt("block_size", 0) != 0) return false;
  const Value* s = n->input(1);
  const Value* z = n->input(2);
  if (!qdqIsConst(s, DType::F32) || s->type.numel() != 1) return false;
  if (z && (!z->isConstant() || z->type.numel() != 1 || z->type.dtype != p->dt)) return false;
  p->scale = (float)s->constant->floatAt(0);
  p->zp = z ? z->constant->intAt(0) : 0;
  return true;
}

bool sameQParams(const QParams& a, const QParams& b) { return a.scale == b.scale && a.zp == b.zp && a.dt == b.dt; }

// The QuantizeLinear that is the only reader of v (per tensor, 8-bit), or nullptr.
Node* quantizeAfter(const Graph& g, const Value* v, QParams* p) {
  Node* q = fu::soleUser(g, v);
  if (!q || q->type != "QuantizeLinear" || q->inputs[0] != v || !perTensorQParams(q, p)) return nullptr;
  return q;
}

void decide(PassContext& ctx, Node* n, const std::string& d) {
  n->attrs["_quant_decision"] = d;
  ctx.debug(n->type + " " + n->name + ": " + d);
}

// n (MaxPool or Concat) reads the 8-bit inputs of its DequantizeLinear inputs and writes q's output.
void takeBytes(Graph& g, Node* n, const std::vector<Node*>& dqs, Node* q, std::set<Node*>* removed) {
  for (size_t i = 0; i < dqs.size(); ++i) n->inputs[i] = dqs[i]->inputs[0];
  if (n->originalNames.empty()) n->originalNames = {n->name};
  n->originalNames.push_back(q->name);
  fu::adoptOutput(n, q->outputs[0]);
  removed->insert(q);
  g.removeNode(q);
}

// MaxPool / Concat: every input from a DequantizeLinear with the output QuantizeLinear's scale,
// zero point and type. Returns the reason it cannot fold ("" when it can).
std::string bytesBlocker(const Graph& g, Node* n, std::vector<Node*>* dqs, Node** q) {
  QParams out;
  *q = quantizeAfter(g, n->outputs[0], &out);
  if (!*q) return "its output does not go to one per-tensor 8-bit QuantizeLinear";
  for (Value* in : n->inputs) {
    Node* dx = fu::producerOf(in, "DequantizeLinear");
    QParams p;
    if (!dx || !perTensorQParams(dx, &p)) return "an input does not come from a per-tensor 8-bit DequantizeLinear";
    if (!sameQParams(p, out)) return "its QuantizeLinear's scale, zero point or type differs from its inputs'";
    if (!qdqScaleIsSafe(p.scale))
      return "its scale is not a positive normal number (the bytes would not order as the values)";
    dqs->push_back(dx);
  }
  return "";
}

int foldBytes(Graph& g, PassContext& ctx, bool wanted, std::set<Node*>* removed) {
  int n = 0;
  auto pred = [](const Node& x) { return x.type == "MaxPool" || x.type == "GlobalMaxPool" || x.type == "Concat"; };
  for (Node* m : fu::nodesWhere(g, pred)) {
    bool fromDq = false;
    for (Value* in : m->inputs) fromDq = fromDq || fu::producerOf(in, "DequantizeLinear");
    if (!fromDq || m->inputs.empty()) continue;
    ctx.stats.matchTimes++;
    std::vector<Node*> dqs;
    Node* q = nullptr;
    std::string why = !wanted ? "the target has no int8 path (int8_path none)" : "";
    if (why.empty() && m->outputs.size() > 1 && m->outputs[1] &&
        (!g.users(m->outputs[1]).empty() || g.isGraphOutput(m->outputs[1])))
      why = "its Indices output is read";
    if (why.empty()) why = bytesBlocker(g, m, &dqs, &q);
    if (!why.empty()) {
      decide(ctx, m, "float32: " + why);
      continue;
    }
    std::string d = "int8: " + m->type + " of " + dtypeName(q->outputs[0]->type.dtype) + " from DequantizeLinear ";
    for (size_t i = 0; i < dqs.size(); ++i) d += (i ? ", " : "") + dqs[i]->name;
    d += " to QuantizeLinear " + q->name + " (one scale and zero point: the float path's values)";
    if (m->type == "GlobalMaxPool") {  // maxpool_int with the plane as its window
      const Shape& xs = m->inputs[0]->type.shape;
      if (!m->inputs[0]->type.isStatic() || xs.size() < 3 || xs.size() > 5) {
        decide(ctx, m, "float32: its input has no static shape of rank 3 to 5");
        continue;
      }
      m->type = "MaxPool";
      m->attrs["kernel_shape"] = std::vector<int64_t>(xs.begin() + 2, xs.end());
    }
    for (size_t i = 1; i < m->outputs.size(); ++i)  // an unread Indices output (the int8 kernel has none)
      if (m->outputs[i]) m->outputs[i]->producer = nullptr;
    m->outputs.resize(1);
    takeBytes(g, m, dqs, q, removed);
    decide(ctx, m, d);
    ctx.stats.effectTimes++;
    ++n;
  }
  return n;
}

// The zero point input of a DequantizeLinear / QuantizeLinear (a 0 of its type when absent).
Value* zeroPointOf(Graph& g, Node* n, DType dt) {
  if (Value* z = n->input(2)) return z;
  return g.newConstant(n->name + "_zero_point", std::make_shared<Tensor>(TensorType(dt, {})));
}

std::string addBlocker(const Graph& g, Node* add, Node** act, Node** q) {
  QParams pa, pb, py;
  Node* da = fu::producerOf(add->inputs[0], "DequantizeLinear");
  Node* db = fu::producerOf(add->inputs[1], "DequantizeLinear");
  if (!da || !db) return "an input does not come from DequantizeLinear";
  if (!perTensorQParams(da, &pa) || !perTensorQParams(db, &pb))
    return "an input's DequantizeLinear is not per-tensor 8-bit with constant scale and zero point";
  const TensorType &a = add->inputs[0]->type, &b = add->inputs[1]->type;
  if (!a.isStatic() || !b.isStatic() || !(a.shape == b.shape))
    return "its inputs differ in shape (no broadcasting int8 Add)";
  Value* v = add->outputs[0];
  *act = fu::soleUser(g, v);
  if (*act && ((*act)->type != "Relu" || (*act)->inputs[0] != v)) *act = nullptr;
  *q = quantizeAfter(g, *act ? (*act)->outputs[0] : v, &py);
  if (!*q) return "its output does not go to one per-tensor 8-bit QuantizeLinear";
  return "";
}

int foldAdds(Graph& g, PassContext& ctx, bool wanted, std::set<Node*>* removed) {
  int n = 0;
  for (Node* add : fu::nodesWhere(g, [](const Node& x) { return x.type == "Add" && x.inputs.size() == 2; })) {
    if (removed->count(add)) continue;
    if (!fu::producerOf(add->inputs[0], "DequantizeLinear") && !fu::producerOf(add->inputs[1], "DequantizeLinear"))
      continue;
    ctx.stats.matchTimes++;
    Node *act = nullptr, *q = nullptr;
    const std::string why = !wanted ? "the target has no int8 path (int8_path none)" : addBlocker(g, add, &act, &q);
    if (!why.empty()) {
      decide(ctx, add, "float32: " + why);
      continue;
    }
    Node* da = add->inputs[0]->producer;
    Node* db = add->inputs[1]->producer;
    const DType ta = da->inputs[0]->type.dtype, tb = db->inputs[0]->type.dtype, ty = q->outputs[0]->type.dtype;
    std::string d = std::string("int8: QuantizedAdd (") + dtypeName(ta) + " + " + dtypeName(tb) + " -> " +
                    dtypeName(ty) + ") from DequantizeLinear " + da->name + ", DequantizeLinear " + db->name +
                    ", Add " + add->name + (act ? ", Relu " + act->name : "") + ", QuantizeLinear " + q->name;
    std::vector<Value*> ins = {da->inputs[0], da->inputs[1],          zeroPointOf(g, da, ta), db->inputs[0],
                               db->inputs[1], zeroPointOf(g, db, tb), q->inputs[1],           zeroPointOf(g, q, ty)};
    std::vector<Node*> gone = {add};
    if (act) gone.push_back(act);
    gone.push_back(q);
    for (Node* x : gone)
      if (x->originalNames.empty()) x->originalNames = {x->name};
    const std::string name = add->name;
    Node* r = fu::replaceWithNode(g, gone, removed, "QuantizedAdd", name, ins, {q->outputs[0]});
    if (act) r->attrs["activation"] = std::string("Relu");
    decide(ctx, r, d);
    ctx.stats.effectTimes++;
    ++n;
  }
  return n;
}

// DequantizeLinear -> AveragePool / GlobalAveragePool -> QuantizeLinear -> QuantizedAvgPool
// (kernel avgpool_q8: the window's sum exact in integers, requantized to the QuantizeLinear's
// scale and zero point, which may differ from the input's).
int foldAvgPools(Graph& g, PassContext& ctx, bool wanted, std::set<Node*>* removed) {
  int n = 0;
  auto pred = [](const Node& x) { return x.type == "AveragePool" || x.type == "GlobalAveragePool"; };
  for (Node* p : fu::nodesWhere(g, pred)) {
    Node* dx = fu::producerOf(p->inputs[0], "DequantizeLinear");
    if (!dx) continue;
    ctx.stats.matchTimes++;
    QParams px, py;
    Node* q = nullptr;
    const TensorType& xt = p->inputs[0]->type;
    std::string why = !wanted ? "the target has no int8 path (int8_path none)" : "";
    if (why.empty() && !perTensorQParams(dx, &px)) why = "its input's DequantizeLinear is not per-tensor 8-bit";
    if (why.empty() && !(q = quantizeAfter(g, p->outputs[0], &py)))
      why = "its output does not go to one per-tensor 8-bit QuantizeLinear";
    if (why.empty() && (!xt.isStatic() || xt.rank() < 3 || xt.rank() > 5))
      why = "its input has no static shape of rank 3 to 5";
    if (!why.empty()) {
      decide(ctx, p, "float32: " + why);
      continue;
    }
    const DType tx = dx->inputs[0]->type.dtype, ty = q->outputs[0]->type.dtype;
    const std::string d = "int8: QuantizedAvgPool (" + std::string(dtypeName(tx)) + " -> " + dtypeName(ty) +
                          ", window sums exact) from DequantizeLinear " + dx->name + ", " + p->type + " " + p->name +
                          ", QuantizeLinear " + q->name;
    std::map<std::string, AttrValue> attrs = p->attrs;
    if (p->type == "GlobalAveragePool") attrs["global"] = (int64_t)1;
    for (Node* x : {p, q})
      if (x->originalNames.empty()) x->originalNames = {x->name};
    std::vector<Value*> ins = {dx->inputs[0], dx->inputs[1], zeroPointOf(g, dx, tx), q->inputs[1],
                               zeroPointOf(g, q, ty)};
    const std::string name = p->name;
    Node* r = fu::replaceWithNode(g, {p, q}, removed, "QuantizedAvgPool", name, ins, {q->outputs[0]});
    r->attrs = attrs;
    r->attrs.erase("_precision_reason");
    decide(ctx, r, d);
    ctx.stats.effectTimes++;
    ++n;
  }
  return n;
}

// pool(DequantizeLinear) -> Flatten / Reshape / Squeeze / Unsqueeze -> QuantizeLinear (the shape
// op's only reader):
// the QuantizeLinear moves before the shape op, which then moves the 8-bit bytes (quantizing
// element by element commutes with moving elements). A classifier's GlobalAveragePool ->
// Flatten -> QuantizeLinear then meets its QuantizeLinear directly.
int hoistQuantizeOverShapeOps(Graph& g, PassContext& ctx) {
  int n = 0;
  for (Node* q : fu::nodesWhere(g, [](const Node& x) { return x.type == "QuantizeLinear"; })) {
    QParams p;
    Node* s = q->inputs[0]->producer;
    if (!s || !perTensorQParams(q, &p) || fu::soleUser(g, q->inputs[0]) != q || s->outputs.size() != 1) continue;
    if (s->type != "Flatten" && s->type != "Reshape" && s->type != "Squeeze" && s->type != "Unsqueeze") continue;
    Value* x = s->inputs[0];
    // Only where the op before the shape op then folds (a pool of a dequantized tensor): elsewhere
    // the QuantizeLinear is better left to the int8 kernel that quantizes while it packs.
    const Node* pool = x->producer;
    if (!pool ||
        (pool->type != "GlobalAveragePool" && pool->type != "AveragePool" && pool->type != "MaxPool" &&
         pool->type != "GlobalMaxPool") ||
        !fu::producerOf(pool->inputs[0], "DequantizeLinear"))
      continue;
    bool constShape = true;
    for (size_t i = 1; i < s->inputs.size(); ++i)
      constShape = constShape && (!s->inputs[i] || s->inputs[i]->isConstant());
    if (!constShape || x->type.dtype != DType::F32 || !x->type.isStatic()) continue;
    Value* qout = q->outputs[0];
    Value* qx = g.newValue(q->name + "_before_" + s->name, TensorType(qout->type.dtype, x->type.shape));
    fu::adoptOutput(q, qx);
    q->inputs[0] = x;
    s->inputs[0] = qx;
    fu::adoptOutput(s, qout);
    ctx.debug("QuantizeLinear " + q->name + " moved before " + s->type + " " + s->name);
    ++n;
  }
  return n;
}

}  // namespace

int foldQdqDataMovement(Graph& g, PassContext& ctx, bool wanted, std::set<Node*>* removed) {
  if (wanted && hoistQuantizeOverShapeOps(g, ctx) > 0) g.topoSort();
  return foldBytes(g, ctx, wanted, removed) + foldAdds(g, ctx, wanted, removed) + foldAvgPools(g, ctx, wanted, removed);
}

}  // namespace atc
