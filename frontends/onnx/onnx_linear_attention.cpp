#include "frontends/onnx/onnx_linear_attention.h"

#include <cmath>
#include <string>
#include <vector>

#include "frontends/onnx/onnx_function_body.h"
#include "support/diagnostics.h"

namespace atc {
namespace onnxfe {
namespace {

[[noreturn]] void refuse(const std::string& node, const std::string& why) {
  throw AtcError("E19999", "Op [" + node + "] of type [LinearAttention] is invalid: " + why,
                 "Check the node's attributes and inputs against the ONNX LinearAttention specification.");
}

struct LinAttn {
  std::string rule = "gated_delta";
  float scale = 0;
  int64_t qHeads = 0, kvHeads = 0, B = 0, T = 0, dk = 0, dv = 0;
  bool decay = false, beta = false;
};

LinAttn readNode(const onnx::GraphProto& g, const onnx::NodeProto& n) {
  LinAttn a;
  for (const auto& at : n.attribute()) {
    if (at.name() == "update_rule") a.rule = at.s();
    else if (at.name() == "scale") a.scale = at.f();
    else if (at.name() == "q_num_heads") a.qHeads = at.i();
    else if (at.name() == "kv_num_heads") a.kvHeads = at.i();
  }
  if (a.rule != "linear" && a.rule != "gated" && a.rule != "delta" && a.rule != "gated_delta")
    refuse(n.name(), "update_rule must be linear, gated, delta or gated_delta");
  if (a.qHeads <= 0 || a.kvHeads <= 0 || a.qHeads % a.kvHeads)
    refuse(n.name(), "q_num_heads and kv_num_heads must be positive, q_num_heads a multiple of kv_num_heads");
  a.decay = a.rule == "gated" || a.rule == "gated_delta";
  a.beta = a.rule == "delta" || a.rule == "gated_delta";
  if (input(n, 0).empty() || input(n, 1).empty() || input(n, 2).empty() || output(n, 0).empty())
    refuse(n.name(), "query, key, value and output are required");
  if (a.decay && input(n, 4).empty()) refuse(n.name(), "update_rule " + a.rule + " needs decay");
  if (a.beta && input(n, 5).empty()) refuse(n.name(), "update_rule " + a.rule + " needs beta");
  const Declared q = declared(g, input(n, 0)), v = declared(g, input(n, 2));
  // The recurrence is unrolled over the sequence (as the importer unrolls Scan): T must be known.
  if (q.dims.size() != 3 || v.dims.size() != 3 || q.dims[0] <= 0 || q.dims[1] <= 0 || q.dims[2] <= 0 || v.dims[2] <= 0)
    refuse(n.name(), "query and value must be declared 3-D with known dims (batch, sequence, heads x size)");
  if (q.dims[2] % a.qHeads || v.dims[2] % a.kvHeads)
    refuse(n.name(), "the last dims of query and value must divide by the head counts");
  a.B = q.dims[0];
  a.T = q.dims[1];
  a.dk = q.dims[2] / a.qHeads;
  a.dv = v.dims[2] / a.kvHeads;
  if (a.scale == 0) a.scale = 1.0f / std::sqrt((float)a.dk);
  return a;
}

// x [B, T, H * D] (or [B, T, H'] for decay / beta) -> [B, T, H, -1] (beta: [B, T, -1, 1]).
std::string split4(Body& b, const std::string& x, const std::vector<int64_t>& shape, const std::string& tag) {
  return b.op("Reshape", {x, b.constInts(shape, tag + "Shape4D")}, tag + "4D");
}

// Element t of x [B, T, H, D] along the sequence ([B, H, D]), in float32 (a Cast unless x is
// float32).
std::string stepOf(Body& b, const std::string& x, const std::string& t, int elemType, const std::string& tag) {
  const std::string s = b.v(tag);
  Body::intAttr(b.add("Gather", {x, t}, s), "axis", 1);
  if (elemType == onnx::TensorProto::FLOAT) return s;
  Body::intAttr(b.add("Cast", {s}, b.v(tag + "F")), "to", onnx::TensorProto::FLOAT);
  return b.v(tag + "F");
}

// One step of the recurrence: the state [B, Hkv, dk, dv] after token t, and output_t.
std::string step(Body& b, const LinAttn& a, const std::string& state, const std::vector<std::string>& xs, int64_t t,
                 int elemType, std::string* out) {
  const std::string s = "_t" + std::to_string(t);
  const std::string ti = b.constInts({t}, "T" + s, true);
  std::string q = stepOf(b, xs[0], ti, elemType, "Q" + s), k = stepOf(b, xs[1], ti, elemType, "K" + s);
  std::string v = stepOf(b, xs[2], ti, elemType, "V" + s);
  std::string st = state;
  if (a.decay) {
    std::string d = b.op("Exp", {stepOf(b, xs[3], ti, elemType, "Decay" + s)}, "DecayExp" + s);
    st = b.op("Mul", {state, b.op("Unsqueeze", {d, b.v("NegOne1D")}, "DecayExpUnsq" + s)}, "DecayedState" + s);
  }
  std::string kCol = b.op("Unsqueeze", {k, b.v("NegOne1D")}, "KtCol" + s);
  std::string write = v;
  if (a.beta) {  // beta * (v - S^T k)
    onnx::NodeProto& tr = b.add("Transpose", {st}, b.v("StateT" + s));
    Body::intsAttr(tr, "perm", {0, 1, 3, 2});
    std::string got = b.op("Squeeze", {b.op("MatMul", {b.v("StateT" + s), kCol}, "Retrieved" + s), b.v("NegOne1D")},
                           "RetrievedSq" + s);
    write = b.op("Mul", {stepOf(b, xs[4], ti, elemType, "Beta" + s), b.op("Sub", {v, got}, "Diff" + s)}, "Delta" + s);
  }
  std::string outer =
      b.op("MatMul", {kCol, b.op("Unsqueeze", {write, b.v("NegTwo1D")}, "WriteRow" + s)}, "Outer" + s);
  std::string next = b.op("Add", {st, outer}, "State" + s);
  std::string read = next;  // grouped-query heads: each kv head's state read by its query heads
  if (a.qHeads != a.kvHeads) {
    std::string un = b.op("Unsqueeze", {next, b.v("Two1D")}, "StateUnsq" + s);
    std::string ex = b.op("Expand", {un, b.v("StateExpandShape")}, "StateExpanded" + s);
    read = b.op("Reshape", {ex, b.v("StateReadShape")}, "StateForRead" + s);
  }
  std::string r = b.op("MatMul", {b.op("Unsqueeze", {q, b.v("NegTwo1D")}, "QtRow" + s), read}, "ReadOut" + s);
  std::string o = b.op("Mul", {b.v("ScaleFactor"), b.op("Squeeze", {r, b.v("NegTwo1D")}, "ReadSq" + s)}, "Out" + s);
  *out = b.op("Unsqueeze", {o, b.v("One1D")}, "OutRow" + s);  // [B, 1, Hq, dv]
  return next;
}

void expandOne(Body& b, const onnx::GraphProto& g, const onnx::NodeProto& n) {
  const LinAttn a = readNode(g, n);
  const int et = declared(g, input(n, 0)).elemType;
  b.qElemType = et;
  b.constInts({-1}, "NegOne1D");
  b.constInts({-2}, "NegTwo1D");
  b.constInts({1}, "One1D");
  b.constInts({2}, "Two1D");
  b.constFloat(a.scale, "ScaleFactor");
  std::vector<std::string> xs = {split4(b, input(n, 0), {a.B, a.T, a.qHeads, -1}, "Q"),
                                 split4(b, input(n, 1), {a.B, a.T, a.kvHeads, -1}, "K"),
                                 split4(b, input(n, 2), {a.B, a.T, a.kvHeads, -1}, "V"), "", ""};
  if (a.decay) xs[3] = split4(b, input(n, 4), {a.B, a.T, a.kvHeads, -1}, "Decay");
  if (a.beta) xs[4] = split4(b, input(n, 5), {a.B, a.T, -1, 1}, "Beta");
  const std::string past = input(n, 3);
  std::string state;
  if (!past.empty()) {
    Body::intAttr(b.add("Cast", {past}, b.v("State0")), "to", onnx::TensorProto::FLOAT);
    state = b.v("State0");
  } else {
    state = b.op("ConstantOfShape", {b.constInts({a.B, a.kvHeads, a.dk, a.dv}, "StateShape")}, "State0");
  }
  if (a.qHeads != a.kvHeads) {
    b.constInts({a.B, a.kvHeads, a.qHeads / a.kvHeads, a.dk, a.dv}, "StateExpandShape");
    b.constInts({a.B, a.qHeads, a.dk, a.dv}, "StateReadShape");
  }
  std::vector<std::string> outs((size_t)a.T);
  for (int64_t t = 0; t < a.T; ++t) state = step(b, a, state, xs, t, et, &outs[(size_t)t]);
  std::string all = a.T == 1 ? outs[0] : b.concat(outs, "OutputAccum", 1);  // [B, T, Hq, dv]
  std::string y = b.op("Reshape", {all, b.constInts({a.B, a.T, -1}, "OutputShape3D")}, "Output3D");
  b.add("CastLike", {y, input(n, 0)}, output(n, 0));
  if (!output(n, 1).empty()) b.add("CastLike", {state, past.empty() ? input(n, 0) : past}, output(n, 1));
}

}  // namespace

int expandLinearAttentionNodes(onnx::ModelProto* model) {
  return expandFunctionNodes(model, "LinearAttention", expandOne);
}

}  // namespace onnxfe
}  // namespace atc
