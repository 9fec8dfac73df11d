#include "frontends/onnx/onnx_function_ops.h"

#include <cstdint>
#include <string>
#include <vector>

#include "frontends/onnx/onnx_function_body.h"
#include "support/diagnostics.h"

namespace atc {
namespace onnxfe {
namespace {

[[noreturn]] void refuse(const std::string& node, const std::string& why) {
  throw AtcError("E19999", "Op [" + node + "] of type [GroupNormalization] is invalid: " + why,
                 "Check the node's attributes and inputs against the ONNX GroupNormalization specification.");
}

void expandGroupNorm(Body& b, const onnx::GraphProto& g, const onnx::NodeProto& n, int64_t opset) {
  int64_t groups = 0, stash = 1;
  float eps = 1e-5f;
  for (const auto& a : n.attribute()) {
    if (a.name() == "num_groups") groups = a.i();
    else if (a.name() == "epsilon") eps = a.f();
    else if (a.name() == "stash_type") stash = a.i();
  }
  const std::string X = input(n, 0), scale = input(n, 1), bias = input(n, 2);
  if (X.empty() || scale.empty() || bias.empty() || output(n, 0).empty())
    refuse(n.name(), "X, scale, bias and Y are required");
  if (groups <= 0) refuse(n.name(), "num_groups must be given and positive");
  if (stash != 1) refuse(n.name(), "stash_type " + std::to_string(stash) + " (only 1, float32, is defined)");
  const Declared d = declared(g, X);
  if (d.rank < 3) refuse(n.name(), "X must have a known rank of at least 3 (N x C x D1 ...)");
  if (d.dims.size() > 1 && d.dims[1] > 0 && d.dims[1] % groups)
    refuse(n.name(), "num_groups " + std::to_string(groups) + " does not divide the " + std::to_string(d.dims[1]) +
                         " channels");
  // Stage one in float32 (stash_type 1) when X is float16 or bfloat16.
  const bool narrow = d.elemType == onnx::TensorProto::FLOAT16 || d.elemType == onnx::TensorProto::BFLOAT16;
  std::string x = X;
  if (narrow) {
    Body::intAttr(b.add("Cast", {X}, b.v("X32")), "to", onnx::TensorProto::FLOAT);
    x = b.v("X32");
  }
  const std::string xg = b.op("Reshape", {x, b.constInts({0, groups, -1}, "GroupShape")}, "XGroups");
  const std::string axes = b.constInts({2}, "Axes");
  const std::string mean = b.op("ReduceMean", {xg, axes}, "Mean");
  const std::string dev = b.op("Sub", {xg, mean}, "Dev");
  const std::string var = b.op("ReduceMean", {b.op("Mul", {dev, dev}, "Dev2"), axes}, "Var");
  b.qElemType = narrow ? (int)onnx::TensorProto::FLOAT : d.elemType;
  const std::string e = b.like(b.constFloat(eps, "EpsilonF"), x, "Epsilon");
  const std::string sd = b.op("Sqrt", {b.op("Add", {var, e}, "VarEps")}, "StdDev");
  std::string norm = b.op("Div", {dev, sd}, "Norm");
  if (narrow) {
    Body::intAttr(b.add("Cast", {norm}, b.v("NormX")), "to", d.elemType);
    norm = b.v("NormX");
  }
  const std::string shapeX = b.op("Shape", {X}, "XShape");
  if (opset < 21) {  // GroupNormalization-18: scale and bias per group
    const std::string gShape = b.constInts({1, groups, 1}, "PerGroup");
    const std::string y = b.op("Add",
                               {b.op("Mul", {norm, b.op("Reshape", {scale, gShape}, "GroupScale")}, "Scaled"),
                                b.op("Reshape", {bias, gShape}, "GroupBias")},
                               "YGroups");
    b.add("Reshape", {y, shapeX}, output(n, 0));
    return;
  }
  std::vector<int64_t> cShape(d.rank - 1, 1);  // [C, 1, ..., 1]
  cShape[0] = -1;
  const std::string cs = b.constInts(cShape, "PerChannel");
  const std::string normX = b.op("Reshape", {norm, shapeX}, "NormShaped");
  b.add("Add",
        {b.op("Mul", {normX, b.op("Reshape", {scale, cs}, "ChannelScale")}, "Scaled"),
         b.op("Reshape", {bias, cs}, "ChannelBias")},
        output(n, 0));
}

void expandSwish(Body& b, const onnx::GraphProto& g, const onnx::NodeProto& n) {
  float alpha = 1.0f;
  for (const auto& a : n.attribute())
    if (a.name() == "alpha") alpha = a.f();
  const std::string X = input(n, 0);
  b.qElemType = declared(g, X).elemType;
  std::string gate = X;
  if (alpha != 1.0f) gate = b.op("Mul", {X, b.like(b.constFloat(alpha, "AlphaF"), X, "Alpha")}, "AlphaX");
  b.add("Mul", {X, b.op("Sigmoid", {gate}, "Gate")}, output(n, 0));
}

// SwiGLU-28: Swish(a, alpha) * b.
void expandSwiGLU(Body& b, const onnx::GraphProto& g, const onnx::NodeProto& n) {
  float alpha = 1.0f;
  for (const auto& a : n.attribute())
    if (a.name() == "alpha") alpha = a.f();
  const std::string A = input(n, 0), B = input(n, 1);
  if (A.empty() || B.empty() || output(n, 0).empty())
    throw AtcError("E19999",
                   "Op [" + n.name() + "] of type [SwiGLU] is invalid: inputs a and b and output y are required",
                   "Check the node's inputs against the ONNX SwiGLU specification.");
  b.qElemType = declared(g, A).elemType;
  std::string gate = A;
  if (alpha != 1.0f) gate = b.op("Mul", {A, b.like(b.constFloat(alpha, "AlphaF"), A, "Alpha")}, "AlphaA");
  const std::string swish = b.op("Mul", {A, b.op("Sigmoid", {gate}, "Gate")}, "SwishGate");
  b.add("Mul", {swish, B}, output(n, 0));
}

[[noreturn]] void refuseScatter(const std::string& node, const std::string& why) {
  throw AtcError("E19999", "Op [" + node + "] of type [TensorScatter] is invalid: " + why,
                 "Check the node's attributes and inputs against the ONNX TensorScatter specification.");
}

// TensorScatter-24: the update written into the cache along `axis` from each sample's write
// index (0 without write_indices; modulo the cache length in circular mode), as ScatterElements
// with indices write_indices[b] + s broadcast over the update's shape.
void expandTensorScatter(Body& b, const onnx::GraphProto& g, const onnx::NodeProto& n) {
  int64_t axis = -2;
  std::string mode = "linear";
  for (const auto& a : n.attribute()) {
    if (a.name() == "axis") axis = a.i();
    else if (a.name() == "mode") mode = a.s();
  }
  const std::string past = input(n, 0), update = input(n, 1), wi = input(n, 2);
  if (past.empty() || update.empty() || output(n, 0).empty())
    refuseScatter(n.name(), "past_cache, update and present_cache are required");
  if (mode != "linear" && mode != "circular") refuseScatter(n.name(), "mode must be linear or circular");
  const Declared d = declared(g, past), du = declared(g, update);
  if (d.rank < 2 || du.rank != d.rank)
    refuseScatter(n.name(), "past_cache and update need known, equal ranks of at least 2");
  if (axis < 0) axis += d.rank;
  if (axis <= 0 || axis >= d.rank) refuseScatter(n.name(), "axis must name a dimension other than the batch (0)");
  if (!wi.empty() && declared(g, wi).elemType != onnx::TensorProto::INT64)
    refuseScatter(n.name(), "write_indices must be int64");
  // positions s along the axis: [1, .., S, .., 1]
  std::vector<int64_t> seqShape(d.rank, 1), batchShape(d.rank, 1);
  seqShape[axis] = -1;
  batchShape[0] = -1;
  std::string positions;
  if (du.dims.size() == (size_t)d.rank && du.dims[axis] > 0) {  // the update's length declared: constants
    std::vector<int64_t> p((size_t)du.dims[axis]);
    for (size_t i = 0; i < p.size(); ++i) p[i] = (int64_t)i;
    positions = b.constInts(p, "Positions");
  } else {
    const std::string zero = b.constInts({0}, "Zero", true), one = b.constInts({1}, "One", true);
    const std::string len = b.op("Squeeze", {b.shape(update, axis, axis + 1, "SeqLen1D")}, "SeqLen");
    positions = b.op("Range", {zero, len, one}, "Positions");
  }
  std::string idx = b.op("Reshape", {positions, b.constInts(seqShape, "SeqShape")}, "PositionsND");
  if (!wi.empty())
    idx = b.op("Add", {idx, b.op("Reshape", {wi, b.constInts(batchShape, "BatchShape")}, "WriteND")}, "CacheIndex");
  if (mode == "circular") {
    const std::string cap = d.dims.size() == (size_t)d.rank && d.dims[axis] > 0
                                ? b.constInts({d.dims[axis]}, "MaxSeqLen")
                                : b.shape(past, axis, axis + 1, "MaxSeqLen");
    idx = b.op("Mod", {idx, cap}, "CacheIndexMod");
  }
  const std::string full = b.op("Expand", {idx, b.op("Shape", {update}, "UpdateShape")}, "Indices");
  onnx::NodeProto& sc = b.add("ScatterElements", {past, full, update}, output(n, 0));
  Body::intAttr(sc, "axis", axis);
}

[[noreturn]] void refuseCausalConv(const std::string& node, const std::string& why) {
  throw AtcError("E19999", "Op [" + node + "] of type [CausalConvWithState] is invalid: " + why,
                 "Check the node's attributes and inputs against the ONNX CausalConvWithState specification.");
}

// CausalConvWithState-27: the input [B, C, L] left-padded with past_state (or k - 1 zeros), a
// depthwise Conv (group C, no padding) with the weight [C, 1, k] and bias, SiLU when asked, and
// the padded sequence's last k - 1 positions as present_state (empty for k = 1).
void expandCausalConv(Body& b, const onnx::GraphProto& g, const onnx::NodeProto& n) {
  std::string act = "none";
  for (const auto& a : n.attribute())
    if (a.name() == "activation") act = a.s();
  if (act != "none" && act != "silu" && act != "swish")
    refuseCausalConv(n.name(), "activation must be none, silu or swish");
  const std::string X = input(n, 0), W = input(n, 1), B = input(n, 2), S = input(n, 3);
  if (X.empty() || W.empty() || output(n, 0).empty())
    refuseCausalConv(n.name(), "input, weight and output are required");
  const Declared dx = declared(g, X), dw = declared(g, W);
  int64_t C = dx.dims.size() == 3 && dx.dims[1] > 0 ? dx.dims[1] : (dw.dims.size() == 3 ? dw.dims[0] : -1);
  if (dx.rank != 3 || C <= 0) refuseCausalConv(n.name(), "input must be 3-D with a declared channel count");
  b.qElemType = dx.elemType;
  // Declared dims give the pad and slice bounds as constants; else they come from Shape.
  const int64_t K = dw.dims.size() == 3 ? dw.dims[2] : -1;
  const bool known = K > 0 && dx.dims[0] > 0 && dx.dims[2] > 0;
  const std::string km1 = known ? b.constInts({K - 1}, "Km1")
                                : b.op("Sub", {b.shape(W, 2, 3, "KernelSize"), b.constInts({1}, "One1D")}, "Km1");
  std::string padded;
  if (!S.empty()) {
    const Declared ds = declared(g, S);
    if (K > 0 && ds.dims.size() == 3 && ds.dims[2] >= 0 && ds.dims[2] != K - 1)
      refuseCausalConv(n.name(), "past_state must hold k - 1 = " + std::to_string(K - 1) + " positions, not " +
                                     std::to_string(ds.dims[2]));
    padded = b.concat({S, X}, "PaddedInput", 2);
  } else {
    const std::string zshape =
        known ? b.constInts({dx.dims[0], C, K - 1}, "ZeroPadShape")
              : b.concat({b.shape(X, 0, 1, "BatchDim"), b.shape(X, 1, 2, "ChannelDim"), km1}, "ZeroPadShape");
    const std::string zeros = b.op("CastLike", {b.op("ConstantOfShape", {zshape}, "ZeroPad"), X}, "ZeroPadCast");
    padded = b.concat({zeros, X}, "PaddedInput", 2);
  }
  std::vector<std::string> convIn = {padded, W};
  if (!B.empty()) convIn.push_back(B);
  const std::string conv = b.v("ConvOut");
  Body::intAttr(b.add("Conv", convIn, conv), "group", C);
  if (act == "none") {
    b.add("Identity", {conv}, output(n, 0));
  } else {
    onnx::NodeProto& c = b.add("Cast", {conv}, b.v("ConvOutFloat"));
    Body::intAttr(c, "to", onnx::TensorProto::FLOAT);
    const std::string f = b.v("ConvOutFloat");
    b.add("CastLike", {b.op("Mul", {f, b.op("Sigmoid", {f}, "ConvSigmoid")}, "MulOutFloat"), conv}, output(n, 0));
  }
  if (output(n, 1).empty()) return;
  const std::string len = known ? b.constInts({dx.dims[2] + K - 1}, "PadLen") : b.shape(padded, 2, 3, "PadLen");
  const std::string start = known ? b.constInts({dx.dims[2]}, "StartIdx") : b.op("Sub", {len, km1}, "StartIdx");
  b.add("Slice", {padded, start, len, b.constInts({2}, "SliceAxes")}, output(n, 1));
}

}  // namespace

int expandGroupNormalizationNodes(onnx::ModelProto* model, int64_t opset) {
  return expandFunctionNodes(model, "GroupNormalization",
                             [opset](Body& b, const onnx::GraphProto& g, const onnx::NodeProto& n) {
                               expandGroupNorm(b, g, n, opset);
                             });
}

int expandSwishNodes(onnx::ModelProto* model) { return expandFunctionNodes(model, "Swish", expandSwish); }

int expandSwiGLUNodes(onnx::ModelProto* model) { return expandFunctionNodes(model, "SwiGLU", expandSwiGLU); }

int expandTensorScatterNodes(onnx::ModelProto* model) {
  return expandFunctionNodes(model, "TensorScatter", expandTensorScatter);
}

int expandCausalConvWithStateNodes(onnx::ModelProto* model) {
  return expandFunctionNodes(model, "CausalConvWithState", expandCausalConv);
}

bool expandedNewerOp(const std::string& op) {
  return op == "Swish" || op == "SwiGLU" || op == "TensorScatter" || op == "CausalConvWithState" ||
         op == "LinearAttention";  // onnx_linear_attention.cpp
}

}  // namespace onnxfe
}  // namespace atc
