// QdqConvFoldPass: in QDQ models, Conv(DequantizeLinear(xq), DequantizeLinear(w_int8)) [->
// BatchNormalization] [-> Relu | Clip] [-> Add(., r) [-> Relu | Clip]] [-> QuantizeLinear ->
// DequantizeLinear] -> QuantizedConv (ops/quant/quantized_conv.cpp), the int8 kernel: xq -
// x_zero_point times the int8 weights summed exactly in int32, scaled by x_scale *
// w_scale[oc] (and the BatchNormalization's scale) in the epilogue, then the activation, a
// residual Add (and the activation after it) and the Q/DQ output stage (a pair that feeds a
// float reader), or a quantized uint8 / int8 output when its readers are int8 convs too.
// Depthwise convs (group == C, one output channel per input channel) have their own int8
// kernel. When xq is QuantizeLinear(x) with the same scale and zero point, the kernel
// reads x and quantizes it while packing (the QuantizeLinear stays only for its other
// readers).
// Each quantized Conv gets a decision in _quant_decision (shown by --mode=1): the int8 kernel,
// or float32 with the reason (grouped conv, weights not int8 per channel with zero offsets,
// a target without an int8 path...). Weight DequantizeLinear nodes that constant folding
// kept for this pass and that it does not fuse are folded here.
// Matrix products (MatMul / Gemm with dequantized int8 weights -> QuantizedMatMul) fold in the
// same pass: qdq_matmul_fold.cpp.
#include "passes/quant/qdq_conv_fold.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "ops/native_eval.h"
#include "passes/fusion/fusion_util.h"
#include "passes/implmode/conv_winograd.h"
#include "passes/quant/qdq_fold_util.h"

namespace atc {
namespace {

const char* kPassName = "QdqConvFoldPass";
const int64_t kDwMinPlane = 100;  // smallest output plane (OH * OW) of an int8 depthwise conv

// The DequantizeLinear of a Conv's weights the int8 kernel takes: int8 constant [OC, C, KH,
// KW], float32 scale per tensor or per output channel (axis 0), zero point absent or zero.
std::string weightBlocker(const Node* dw, int64_t OC) {
  if (!dw) return "its weights do not come from DequantizeLinear";
  const Value* w = dw->inputs[0];
  if (!qdqIsConst(w, DType::I8) || w->type.rank() != 4) return "its weights are not constant int8 of rank 4";
  if (!qdqIsConst(dw->input(1), DType::F32)) return "the weight scale is not a float32 constant";
  if (dw->hasAttr("block_size") && dw->attrInt("block_size", 0) != 0) return "blocked weight scales";
  const int64_t ns = dw->inputs[1]->type.numel();
  const int64_t axis = dw->attrInt("axis", 1);
  if (ns != 1 && !(ns == OC && (axis == 0 || axis == -4))) return "weight scales are not per tensor or per output channel";
  if (const Value* z = dw->input(2)) {
    if (!z->isConstant() || z->type.dtype != DType::I8) return "the weight zero point is not an int8 constant";
    for (int64_t i = 0; i < z->type.numel(); ++i)
      if (z->constant->intAt(i) != 0) return "the weight zero point is not 0 (the int8 kernel takes symmetric weights)";
  }
  return "";
}

std::string convBlocker(const Node* c) {
  if (c->inputs[0]->type.rank() != 4 || c->inputs[1]->type.rank() != 4) return "not a 2-D conv";
  if (c->input(2) && !qdqIsConst(c->input(2), DType::F32)) return "its bias is not a float32 constant";
  if (c->inputs.size() > 3) return "it has a fused residual input";
  // The kernel's band offsets are int32 words: a band of the whole padded input must fit.
  const Shape& x = c->inputs[0]->type.shape;
  const Shape& w = c->inputs[1]->type.shape;
  const std::vector<int64_t> p = c->attrInts("pads", {0, 0, 0, 0}), d = c->attrInts("dilations", {1, 1});
  if (!c->inputs[0]->type.isStatic() || p.size() != 4 || d.size() != 2) return "not a 2-D conv with static shapes";
  if (const int64_t group = c->attrInt("group", 1); group != 1) {
    if (group != x[1] || w[0] != x[1] || w[1] != 1)
      return "grouped conv (no int8 kernel; depthwise convs, one output channel per input channel, have one)";
    if (w[2] * ((w[3] + 3) / 4) > 64) return "a depthwise kernel of more than 64 rows of 4 columns";
    // The int8 depthwise kernel works plane by plane: on small planes its per-plane work (the
    // padded rows, the tap words, the requantization constants) costs more than the float
    // kernel, which takes 16 channels per vector there (measured on MobileNetV2's 7x7 maps:
    // 0.040 against 0.019 ms; 14x14 maps break even).
    const Shape& y = c->outputs[0]->type.shape;
    if (y.size() == 4 && y[2] * y[3] < kDwMinPlane)
      return "depthwise conv on planes of fewer than " + std::to_string(kDwMinPlane) +
             " outputs (the float kernel is faster there)";
  }
  const double words = ((double)x[1] / 4 + 1) * ((double)x[2] + p[0] + p[2] + (double)w[2] * d[0] + 1) *
                       ((double)x[3] + p[1] + p[3] + (double)w[3] * d[1] + 48);
  if (words > (double)(1 << 30)) return "too large for the int8 kernel's band";
  return "";
}

struct Absorbed {
  Node* bn = nullptr;
  Node* act = nullptr;  // Relu or Clip
  double lo = 0, hi = 0;  // Clip's bounds
};

// A Clip with constant bounds (inputs, or the attributes of opsets before 11).
bool clipBounds(const Node* n, double* lo, double* hi) {
  *lo = n->hasAttr("min") ? n->attrFloat("min", 0) : -INFINITY;
  *hi = n->hasAttr("max") ? n->attrFloat("max", 0) : INFINITY;
  for (size_t i = 1; i < 3; ++i)
    if (const Value* v = n->input(i))
      if (!fu::scalarConst(v, i == 1 ? lo : hi)) return false;
  return true;
}

// BatchNormalization (inference, constant parameters) and Relu after the conv, each the
// sole reader of the value before it.
Absorbed absorbable(const Graph& g, Node* c, int64_t OC) {
  Absorbed a;
  Value* v = c->outputs[0];
  Node* u = fu::soleUser(g, v);
  if (u && u->type == "BatchNormalization" && u->inputs[0] == v && u->outputs.size() == 1 &&
      u->attrInt("training_mode", 0) == 0) {
    bool ok = true;
    for (int i = 1; i < 5 && ok; ++i) ok = qdqIsConst(u->input(i), DType::F32) && u->input(i)->type.numel() == OC;
    if (ok) {
      a.bn = u;
      v = u->outputs[0];
      u = fu::soleUser(g, v);
    }
  }
  if (u && u->type == "Relu" && u->inputs[0] == v) a.act = u;
  if (u && u->type == "Clip" && u->inputs[0] == v && clipBounds(u, &a.lo, &a.hi)) a.act = u;
  return a;
}

void foldToQuantizedConv(Graph& g, Node* c, Node* dx, Node* dw, std::set<Node*>* removed) {
  const int64_t OC = c->inputs[1]->type.shape[0];
  const Absorbed a = absorbable(g, c, OC);
  // mult = x_scale * w_scale[oc] in float32 (DequantizeLinear's products), then the BN.
  const float xs = (float)dx->inputs[1]->constant->floatAt(0);
  const Tensor& ws = *dw->inputs[1]->constant;
  std::vector<double> mult((size_t)OC), bias((size_t)OC, 0.0);
  for (int64_t o = 0; o < OC; ++o) {
    mult[o] = xs * (float)ws.floatAt(ws.type.numel() == 1 ? 0 : o);
    if (c->input(2)) bias[o] = c->inputs[2]->constant->floatAt(o);
  }
  if (a.bn) {
    const double eps = a.bn->attrFloat("epsilon", 1e-5);
    for (int64_t o = 0; o < OC; ++o) {
      const double s = a.bn->inputs[1]->constant->floatAt(o) / std::sqrt(a.bn->inputs[4]->constant->floatAt(o) + eps);
      mult[o] = (float)mult[o] * s;
      bias[o] = (bias[o] - a.bn->inputs[3]->constant->floatAt(o)) * s + a.bn->inputs[2]->constant->floatAt(o);
    }
  }
  // Input: the float x of a matching QuantizeLinear (quantized in the kernel), else xq.
  Node* q = nullptr;
  Value* xin = qdqKernelInput(dx, &q);
  Value* zp = dx->input(2);
  if (!zp) zp = g.newConstant(c->name + "_x_zero_point", std::make_shared<Tensor>(TensorType(dx->inputs[0]->type.dtype, {})));
  Value* m = g.newConstant(c->name + "_q8_mult", qdqFloatVector(mult));
  Value* b = g.newConstant(c->name + "_q8_bias", qdqFloatVector(bias));
  Node* last = a.act ? a.act : a.bn ? a.bn : c;
  const bool depthwise = c->attrInt("group", 1) != 1;
  std::string decision = std::string("int8: QuantizedConv (") + (depthwise ? "depthwise, " : "") +
                         "u8 x s8 -> int32) from DequantizeLinear " + dx->name + ", DequantizeLinear " + dw->name +
                         ", Conv " + c->name;
  if (q) decision += ", QuantizeLinear " + q->name + " (quantized while packed)";
  if (a.bn) decision += ", BatchNormalization " + a.bn->name;
  if (a.act) decision += ", " + a.act->type + " " + a.act->name;
  std::map<std::string, AttrValue> attrs = c->attrs;
  std::vector<Node*> gone = {c};
  if (a.bn) gone.push_back(a.bn);
  if (a.act) gone.push_back(a.act);
  if (c->originalNames.empty()) c->originalNames = {c->name};
  for (Node* n : gone)
    if (n != c && n->originalNames.empty()) n->originalNames = {n->name};
  Value* out = last->outputs[0];
  const std::string name = c->name;  // c and the absorbed nodes are gone once replaced
  const std::string actType = a.act ? a.act->type : "";
  Node* r = fu::replaceWithNode(g, gone, removed, "QuantizedConv", name,
                                {xin, dx->inputs[1], zp, dw->inputs[0], m, b}, {out});
  r->attrs = attrs;
  r->attrs.erase("_precision_reason");
  if (a.act) r->attrs["activation"] = actType;
  if (actType == "Clip") {
    r->attrs["clip_min"] = a.lo;
    r->attrs["clip_max"] = a.hi;
  }
  r->attrs["_quant_decision"] = decision;
}

// Per-tensor constant scale (float32) and zero point (8-bit) of a Q / DQ node.
bool perTensorParams(const Node* n, double* scale, int64_t* zp, DType* qdt, DType qType) {
  const Value* s = n->input(1);
  const Value* z = n->input(2);
  if (!s || !s->isConstant() || s->type.dtype != DType::F32 || s->type.numel() != 1) return false;
  if (!z || !z->isConstant() || z->type.numel() != 1 || (z->type.dtype != DType::U8 && z->type.dtype != DType::I8))
    return false;
  if (qType != DType::Undefined && qType != z->type.dtype) return false;
  *scale = s->constant->floatAt(0);
  *zp = z->constant->intAt(0);
  *qdt = z->type.dtype;
  return qdqScaleIsSafe(*scale);  // an output stage multiplies by 1 / scale
}

// The nodes reading each value (a node reading a value twice is listed twice).
std::map<const Value*, std::vector<Node*>> valueReaders(const Graph& g) {
  std::map<const Value*, std::vector<Node*>> readers;
  for (const auto& u : g.nodes())
    for (Value* in : u->inputs)
      if (in) readers[in].push_back(u.get());
  return readers;
}

// How many of n's inputs are v.
int inputUses(const Node* n, const Value* v) { return (int)std::count(n->inputs.begin(), n->inputs.end(), v); }

// The readers of a QuantizedConv's output v for an output stage: one QuantizeLinear (*q), and
// any QuantizedConvs reading v as their x with that QuantizeLinear's scale, zero point and
// dtype (they quantize the stage's values to the same bytes: the folds took their own Q/DQ pair
// as their input quantization, while the pair's DequantizeLinear fed a float reader too).
bool stageReaders(const Graph& g, const std::map<const Value*, std::vector<Node*>>& readers, const Value* v,
                  Node** q, std::vector<Node*>* convs) {
  *q = nullptr;
  convs->clear();
  auto it = readers.find(v);
  if (it == readers.end() || g.isGraphOutput(v)) return false;
  for (Node* r : it->second) {
    if (r->type == "QuantizeLinear" && !*q && r->inputs[0] == v) *q = r;
    else if (r->type == "QuantizedConv" && r->inputs[0] == v) convs->push_back(r);
    else return false;
  }
  if (!*q) return false;
  for (Node* c : *convs) {
    if (inputUses(c, v) != 1 || !c->inputs[1]->isConstant() || !c->inputs[2]->isConstant() || !(*q)->input(2) ||
        c->inputs[2]->type.dtype != (*q)->input(2)->type.dtype ||
        (float)c->inputs[1]->constant->floatAt(0) != (float)(*q)->input(1)->constant->floatAt(0) ||
        c->inputs[2]->constant->intAt(0) != (*q)->input(2)->constant->intAt(0))
      return false;
  }
  return true;
}

// QuantizedConv -> QuantizeLinear -> DequantizeLinear (a float reader such as a depthwise
// conv or a residual Add after it; other readers may be int8 convs quantizing the output the
// same way, stageReaders): the pair becomes the conv's output stage (out_scale...), and every
// reader reads the stage's output. Runs after the folds, so the pairs that fed a folded conv
// alone are gone already.
int absorbOutputFakeQuant(Graph& g, PassContext& ctx, std::set<Node*>* removed) {
  int n = 0;
  const std::map<const Value*, std::vector<Node*>> readers = valueReaders(g);
  for (Node* qc : fu::nodesWhere(g, [](const Node& x) { return x.type == "QuantizedConv"; })) {
    if (qc->hasAttr("out_scale")) continue;
    Node* q = nullptr;
    std::vector<Node*> convs;
    if (!stageReaders(g, readers, qc->outputs[0], &q, &convs)) continue;
    Node* dq = fu::soleUser(g, q->outputs[0]);
    if (!dq || dq->type != "DequantizeLinear" || dq->inputs[0] != q->outputs[0]) continue;
    double s1, s2;
    int64_t z1, z2;
    DType t1, t2;
    if (!perTensorParams(q, &s1, &z1, &t1, DType::Undefined) || !perTensorParams(dq, &s2, &z2, &t2, t1) ||
        (float)s1 != (float)s2 || z1 != z2 || q->outputs[0]->type.dtype != t1)
      continue;
    qc->attrs["out_scale"] = s1;
    qc->attrs["out_zero_point"] = z1;
    qc->attrs["out_dtype"] = std::string(dtypeName(t1));
    qc->attrs["_quant_decision"] = qc->attrString("_quant_decision", "") + ", QuantizeLinear " + q->name +
                                  " + DequantizeLinear " + dq->name + " (output stage)";
    for (Node* x : {q, dq}) qc->originalNames.push_back(x->name);
    fu::adoptOutput(qc, dq->outputs[0]);
    for (Node* c : convs) c->inputs[0] = dq->outputs[0];
    removed->insert(q);
    removed->insert(dq);
    g.removeNode(q);
    g.removeNode(dq);
    ctx.stats.effectTimes++;
    ++n;
  }
  return n;
}

// QuantizedConv -> Add(y, r) [-> Relu | Clip]: the Add of a float32 tensor of y's shape (not a
// constant) and the activation after it join the conv's epilogue as its residual input R
// and post_activation (a ResNet block's shortcut; before, a separate element-wise kernel
// read and wrote the whole tensor once more). Runs before the output stages, which may
// follow the activation.
int absorbResidualAdd(Graph& g, PassContext& ctx) {
  int n = 0;
  for (Node* qc : fu::nodesWhere(g, [](const Node& x) { return x.type == "QuantizedConv"; })) {
    if (qc->input(6) || qc->hasAttr("out_scale") || qc->attrInt("group", 1) != 1) continue;
    Value* v = qc->outputs[0];
    Node* add = fu::soleUser(g, v);
    if (!add || add->type != "Add") continue;
    Value* r = fu::otherInput(add, v);
    if (!r || r->isConstant() || !(r->type == v->type) || !(add->outputs[0]->type == v->type)) continue;
    Node* act = fu::soleUser(g, add->outputs[0]);
    double lo = 0, hi = 0;
    if (act && !(act->inputs[0] == add->outputs[0] &&
                 (act->type == "Relu" || (act->type == "Clip" && clipBounds(act, &lo, &hi)))))
      act = nullptr;
    while (qc->inputs.size() < 6) qc->inputs.push_back(nullptr);
    qc->inputs.push_back(r);
    std::string decision = qc->attrString("_quant_decision", "") + ", Add " + add->name + " (residual)";
    qc->originalNames.push_back(add->name);
    if (act) {
      qc->attrs["post_activation"] = act->type;
      if (act->type == "Clip") {
        qc->attrs["post_clip_min"] = lo;
        qc->attrs["post_clip_max"] = hi;
      }
      decision += ", " + act->type + " " + act->name;
      qc->originalNames.push_back(act->name);
    }
    qc->attrs["_quant_decision"] = decision;
    fu::adoptOutput(qc, (act ? act : add)->outputs[0]);
    g.removeNode(add);
    if (act) g.removeNode(act);
    ctx.stats.effectTimes++;
    ++n;
  }
  return n;
}

// Whether the readers `rs` of v can take v quantized: each a QuantizedConv reading v once,
// either as its input x (all such readers quantizing it with one scale and zero point) or as
// its residual R (only when v went through a Q/DQ output stage, `staged`: the residual then
// reads the same values, dequantized in its epilogue). *x0: the first x reader (or nullptr).
bool quantizableReaders(const Value* v, const std::vector<Node*>& rs, bool staged, const Node** x0) {
  *x0 = nullptr;
  for (const Node* r : rs) {
    if (r->type != "QuantizedConv") return false;
    if (inputUses(r, v) != 1) return false;
    if (r->input(6) == v) {
      if (!staged) return false;
      continue;
    }
    if (r->inputs[0] != v) return false;
    if (!*x0) *x0 = r;
    for (size_t i : {(size_t)1, (size_t)2})
      if (!r->inputs[i]->isConstant() || r->inputs[i]->type.dtype != (*x0)->inputs[i]->type.dtype ||
          r->inputs[i]->constant->data != (*x0)->inputs[i]->constant->data)
        return false;
  }
  return true;
}

// The output quantization of a QuantizedConv whose readers take it quantized: from its x
// readers, or from its own Q/DQ output stage; false when they disagree.
bool betweenConvsQuant(const Node* qc, const Node* x0, DType* qdt, double* scale, int64_t* zp) {
  const bool staged = qc->hasAttr("out_scale");
  DType own = DType::Undefined;
  if (staged && (!dtypeFromName(qc->attrString("out_dtype", ""), &own) || (own != DType::U8 && own != DType::I8)))
    return false;
  if (!x0) {
    *qdt = own;
    *scale = qc->attrFloat("out_scale", 0.0);
    *zp = qc->attrInt("out_zero_point", 0);
    return staged;
  }
  *qdt = x0->inputs[2]->type.dtype;
  *scale = x0->inputs[1]->constant->floatAt(0);
  *zp = x0->inputs[2]->constant->intAt(0);
  if (!qdqScaleIsSafe(*scale)) return false;  // the requantization multiplies by 1 / scale
  return !staged || (*qdt == own && (float)*scale == (float)qc->attrFloat("out_scale", 0.0) &&
                     *zp == qc->attrInt("out_zero_point", 0));
}

// A QuantizedConv whose every reader is a QuantizedConv quantizing it as its input x (the
// Q/DQ pair between them gone with the folds) with the same scale and zero point, or, when its
// output goes through a Q/DQ output stage, one adding it as its residual R (a block output that
// an exporter quantized for all its readers, ONNX Runtime's quantizer among them): it writes
// its output quantized (out_quantize; the kernels fold the requantization into one
// multiply-add, which can move a value within float rounding of a tie by one step, inside
// the one step the int8 path promises) and the readers take the uint8 / int8 tensor, a
// quarter of the float32 traffic (MobileNet's expand -> depthwise -> project chains).
int quantizeBetweenConvs(Graph& g, PassContext& ctx) {
  int n = 0;
  const std::map<const Value*, std::vector<Node*>> readers = valueReaders(g);
  for (Node* qc : fu::nodesWhere(g, [](const Node& x) { return x.type == "QuantizedConv"; })) {
    Value* v = qc->outputs[0];
    if (qc->hasAttr("out_quantize") || v->type.dtype != DType::F32 || g.isGraphOutput(v) || !readers.count(v))
      continue;
    const std::vector<Node*>& rs = readers.at(v);
    const Node* x0 = nullptr;
    DType qdt = DType::Undefined;
    double scale = 0;
    int64_t zp = 0;
    if (!quantizableReaders(v, rs, qc->hasAttr("out_scale"), &x0) || !betweenConvsQuant(qc, x0, &qdt, &scale, &zp))
      continue;
    qc->attrs["out_scale"] = scale;
    qc->attrs["out_zero_point"] = zp;
    qc->attrs["out_dtype"] = std::string(dtypeName(qdt));
    qc->attrs["out_quantize"] = (int64_t)1;
    v->type.dtype = qdt;
    std::string names;
    for (Node* r : rs) {
      const bool asR = r->input(6) == v;
      if (asR) {
        r->attrs["r_scale"] = scale;
        r->attrs["r_zero_point"] = zp;
      }
      names += (names.empty() ? "" : ", ") + r->name;
      r->attrs["_quant_decision"] = r->attrString("_quant_decision", "") + (asR ? ", residual" : ", input") +
                                    " quantized by QuantizedConv " + qc->name;
    }
    qc->attrs["_quant_decision"] = qc->attrString("_quant_decision", "") + ", output quantized to " +
                                  dtypeName(qdt) + " for QuantizedConv " + names;
    ctx.stats.effectTimes++;
    ++n;
  }
  return n;
}

// QuantizedConv -> QuantizeLinear whose readers take the 8-bit tensor (a MaxPool, Concat or
// QuantizedAdd of qdq_datamove_fold.cpp, a DequantizeLinear for a float reader; other readers of
// the conv's output may be QuantizedConvs quantizing it the same way, stageReaders): the conv
// writes its output quantized (out_quantize, requantization folded into one multiply-add as
// in quantizeBetweenConvs) and the QuantizeLinear goes.
int quantizeIntoQuantizeLinear(Graph& g, PassContext& ctx) {
  int n = 0;
  const std::map<const Value*, std::vector<Node*>> readers = valueReaders(g);
  for (Node* qc : fu::nodesWhere(g, [](const Node& x) { return x.type == "QuantizedConv"; })) {
    Node* q = nullptr;
    std::vector<Node*> convs;
    if (qc->hasAttr("out_scale") || !stageReaders(g, readers, qc->outputs[0], &q, &convs)) continue;
    double scale;
    int64_t zp;
    DType qdt;
    if (!perTensorParams(q, &scale, &zp, &qdt, DType::Undefined) || q->outputs[0]->type.dtype != qdt) continue;
    qc->attrs["out_scale"] = scale;
    qc->attrs["out_zero_point"] = zp;
    qc->attrs["out_dtype"] = std::string(dtypeName(qdt));
    qc->attrs["out_quantize"] = (int64_t)1;
    qc->attrs["_quant_decision"] = qc->attrString("_quant_decision", "") + ", QuantizeLinear " + q->name +
                                  " (output quantized to " + dtypeName(qdt) + ")";
    qc->originalNames.push_back(q->name);
    fu::adoptOutput(qc, q->outputs[0]);
    for (Node* c : convs) {
      c->inputs[0] = q->outputs[0];
      c->attrs["_quant_decision"] =
          c->attrString("_quant_decision", "") + ", input quantized by QuantizedConv " + qc->name;
    }
    g.removeNode(q);
    ctx.stats.effectTimes++;
    ++n;
  }
  return n;
}

// Folds the weight DequantizeLinear nodes constant folding kept and nothing fused.
int foldKeptDequantize(Graph& g, PassContext& ctx) {
  int folded = 0;
  std::vector<Node*> dqs = fu::nodesWhere(g, [](const Node& n) {
    if (n.type != "DequantizeLinear") return false;
    for (auto* in : n.inputs)
      if (in && !in->isConstant()) return false;
    return true;
  });
  const std::map<const Value*, int> uses = g.userCounts();
  for (Node* n : dqs) {
    if (!uses.count(n->outputs[0]) && !g.isGraphOutput(n->outputs[0])) {
      g.removeNode(n);
      continue;
    }
    if (!canEvalNative(*n)) continue;
    std::vector<TensorPtr> r = evalNodeNative(g, *n);
    if (r.size() != 1) continue;
    n->outputs[0]->constant = r[0];
    ctx.debug("folded " + n->name + " (DequantizeLinear of weights, not fused)");
    g.removeNode(n);
    ++folded;
  }
  // A Transpose of such weights (a Linear's, when its MatMul stays float32) is constant now.
  for (Node* t : fu::nodesWhere(g, [](const Node& n) { return n.type == "Transpose" && n.inputs[0]->isConstant(); })) {
    if (!canEvalNative(*t)) continue;
    std::vector<TensorPtr> r = evalNodeNative(g, *t);
    if (r.size() != 1) continue;
    t->outputs[0]->constant = r[0];
    ctx.debug("folded " + t->name + " (Transpose of weights, not fused)");
    g.removeNode(t);
    ++folded;
  }
  return folded;
}

}  // namespace

bool qdqConvFoldWanted(const PassContext& ctx) {
  if (!ctx.target || !ctx.target->hasInt8Path()) return false;
  const auto& off = ctx.opts.disabledPasses;
  return std::find(off.begin(), off.end(), kPassName) == off.end();
}

std::set<const Node*> weightDequantizeForQdqConvFold(const Graph& g, const PassContext& ctx) {
  std::set<const Node*> keep;
  if (!qdqConvFoldWanted(ctx)) return keep;
  for (const auto& n : g.nodes())
    if (n->type == "Conv" && n->inputs.size() > 1 && fu::producerOf(n->inputs[0], "DequantizeLinear"))
      if (const Node* dw = fu::producerOf(n->inputs[1], "DequantizeLinear")) keep.insert(dw);
  weightDequantizeForQdqMatMul(g, &keep);
  return keep;
}

bool runQdqConvFoldPass(Graph& g, PassContext& ctx) {
  bool changed = false;
  std::set<Node*> removed;
  const bool wanted = qdqConvFoldWanted(ctx);
  // Pools, Concats and Adds between Q/DQ pairs first: a conv reading their output then takes the bytes.
  if (foldQdqDataMovement(g, ctx, wanted, &removed) > 0) changed = true;
  for (Node* c : fu::nodesWhere(g, [](const Node& n) { return n.type == "Conv"; })) {
    if (removed.count(c)) continue;
    Node* dx = fu::producerOf(c->inputs[0], "DequantizeLinear");
    Node* dw = fu::producerOf(c->inputs[1], "DequantizeLinear");
    if (!dx) continue;  // a float conv
    ctx.stats.matchTimes++;
    std::string why = !wanted ? "the target has no int8 conv path (int8_path none)" : convBlocker(c);
    // Without VNNI the int8 product runs at about the float32 FMA rate; a Winograd F(4x4, 3x3)
    // conv does a quarter of the multiplications (ResNet-18, x86-64-v3: 2.1 against 2.8 ms per 56x56 layer).
    if (why.empty() && ctx.target->int8Path == "avx2" && convWouldTakeWinograd(*c, ctx))
      why = "3x3 conv that runs faster as a float32 Winograd conv than on the AVX2 int8 path (int8_path avx2)";
    if (why.empty()) why = qdqInputBlocker(dx);
    if (why.empty()) why = weightBlocker(dw, c->inputs[1]->type.shape[0]);
    if (!why.empty()) {
      c->attrs["_quant_decision"] = "float32: " + why;
      ctx.debug("Conv " + c->name + " stays float32: " + why);
      continue;
    }
    foldToQuantizedConv(g, c, dx, dw, &removed);
    ctx.stats.effectTimes++;
    changed = true;
  }
  if (foldQdqMatMuls(g, ctx, wanted, &removed) > 0) changed = true;
  // The DequantizeLinear / QuantizeLinear nodes nothing reads any more, the output stages,
  // then the kept weights.
  const size_t before = g.nodes().size();
  for (const char* t : {"DequantizeLinear", "QuantizeLinear"}) {  // readers first
    const std::map<const Value*, int> uses = g.userCounts();
    for (Node* n : fu::nodesWhere(g, [t](const Node& n) { return n.type == t; }))
      if (!uses.count(n->outputs[0]) && !g.isGraphOutput(n->outputs[0])) g.removeNode(n);
  }
  if (g.nodes().size() != before) changed = true;
  if (absorbResidualAdd(g, ctx) > 0) changed = true;
  if (quantizeBetweenConvs(g, ctx) > 0) changed = true;
  if (absorbOutputFakeQuant(g, ctx, &removed) > 0) changed = true;
  // Outputs whose Q/DQ pair also fed a residual Add (absorbed above into a conv) are staged now.
  if (quantizeBetweenConvs(g, ctx) > 0) changed = true;
  if (quantizeIntoQuantizeLinear(g, ctx) > 0) changed = true;
  if (foldKeptDequantize(g, ctx) > 0) changed = true;
  return fu::finishRewrite(g, changed);
}

}  // namespace atc
