// TF neural-network ops: Conv2D, DepthwiseConv2dNative, Conv2DBackpropInput, BiasAdd,
// FusedBatchNorm(V2/V3), MaxPool, AvgPool, activations, Softmax. Channels-last data (TF's
// default NHWC) is moved to the IR's NCHW ops with explicit Transpose nodes on each side.
#include <cmath>

#include "frontends/tf/tf_common.h"
#include "frontends/tf/tf_convert.h"

namespace atc {
namespace tffe {
namespace {

using Outs = std::vector<Value*>;

// padding attribute -> IR attributes (auto_pad or explicit pads).
void setPadding(TfCtx& c, std::map<std::string, AttrValue>& a, int64_t r) {
  std::string p = c.s("padding", "VALID");
  if (p == "SAME") {
    a["auto_pad"] = std::string("SAME_UPPER");  // TF puts the odd cell at the end, like SAME_UPPER
  } else if (p == "VALID") {
    a["auto_pad"] = std::string("VALID");
  } else if (p == "EXPLICIT") {
    std::vector<int64_t> e = c.ints("explicit_paddings");
    if ((int64_t)e.size() != 2 * r) c.invalid("explicit_paddings needs 2 values per dim");
    bool last = c.channelsLast();
    std::vector<int64_t> pads(2 * (r - 2));
    for (int64_t k = 0; k < r - 2; ++k) {
      int64_t d = last ? 1 + k : 2 + k;
      pads[k] = e[2 * d];
      pads[k + r - 2] = e[2 * d + 1];
    }
    a["pads"] = pads;
  } else {
    c.unsupported("padding " + p);
  }
}

// Runs `body` on channels-first data: transposes around it when the node is channels-last.
Value* channelsFirstOp(TfCtx& c, Value* x, int64_t r, const std::function<Value*(Value*, const std::string&)>& body) {
  if (!c.channelsLast()) return body(x, "");
  Value* y = body(c.toChannelsFirst(x, r), "nchw");
  return c.toChannelsLast(y, r, "");
}

Value* filterToOihw(TfCtx& c, Value* w) { return c.op("Transpose", {w}, {{"perm", std::vector<int64_t>{3, 2, 0, 1}}}, "filter"); }

Outs conv2d(TfCtx& c) {
  Value *x = c.in.at(0), *w = c.in.at(1);
  const int64_t r = 4;
  if (c.rank(w) >= 0 && c.rank(w) != 4) c.invalid("the filter must have rank 4");
  std::map<std::string, AttrValue> a;
  a["strides"] = c.spatialOf(c.has("strides") ? c.ints("strides") : std::vector<int64_t>(r, 1), r);
  if (c.has("dilations")) a["dilations"] = c.spatialOf(c.ints("dilations"), r);
  setPadding(c, a, r);
  Value* wt = filterToOihw(c, w);
  return {channelsFirstOp(c, x, r, [&](Value* xc, const std::string& sfx) {
    if (xc->type.shapeKnown && w->type.shapeKnown && w->type.shape[2] > 0 && xc->type.shape[1] > 0) {
      int64_t group = xc->type.shape[1] / w->type.shape[2];
      if (group > 1) a["group"] = group;
    }
    return c.op("Conv", {xc, wt}, a, sfx);
  })};
}

Outs depthwise(TfCtx& c) {
  Value *x = c.in.at(0), *w = c.in.at(1);
  const int64_t r = 4;
  if (!w->type.isStatic()) c.unsupported("the filter shape must be known");
  if (c.rank(w) != 4) c.invalid("the filter must have rank 4");
  const Shape& ws = w->type.shape;  // [H, W, Cin, M]
  std::map<std::string, AttrValue> a;
  a["strides"] = c.spatialOf(c.has("strides") ? c.ints("strides") : std::vector<int64_t>(r, 1), r);
  if (c.has("dilations")) a["dilations"] = c.spatialOf(c.ints("dilations"), r);
  a["group"] = ws[2];
  setPadding(c, a, r);
  // Output channel c*M+m: [H,W,Cin,M] -> [H,W,1,Cin*M] -> [Cin*M,1,H,W].
  Value* w2 = c.op("Reshape", {w, c.constI64({ws[0], ws[1], 1, ws[2] * ws[3]})}, {}, "filter_reshape");
  Value* wt = filterToOihw(c, w2);
  return {channelsFirstOp(c, x, r, [&](Value* xc, const std::string& sfx) { return c.op("Conv", {xc, wt}, a, sfx); })};
}

Outs conv2dBackpropInput(TfCtx& c) {
  // inputs: input_sizes, filter [H, W, out channels, in channels], out_backprop
  Value *w = c.in.at(1), *dy = c.in.at(2);
  const int64_t r = 4;
  std::vector<int64_t> sizes = c.constInts(0, "input_sizes");
  if ((int64_t)sizes.size() != r) c.invalid("input_sizes must have 4 values");
  if (!w->type.isStatic()) c.unsupported("the filter shape must be known");
  if (c.rank(w) != 4) c.invalid("the filter must have rank 4");
  std::vector<int64_t> outSp = c.spatialOf(sizes, r);
  std::vector<int64_t> strides = c.spatialOf(c.has("strides") ? c.ints("strides") : std::vector<int64_t>(r, 1), r);
  std::vector<int64_t> dil = c.has("dilations") ? c.spatialOf(c.ints("dilations"), r) : std::vector<int64_t>(r - 2, 1);
  std::string p = c.s("padding", "VALID");
  if (p != "SAME" && p != "VALID") c.unsupported("padding " + p);
  Shape inSp;
  if (dy->type.isStatic()) inSp = c.spatialOf(dy->type.shape, r);
  else c.unsupported("the shape of out_backprop must be known (give --input_shape)");
  std::map<std::string, AttrValue> a;
  std::vector<int64_t> pads(2 * (r - 2), 0), outPad(r - 2, 0);
  for (int64_t k = 0; k < r - 2; ++k) {
    int64_t kEff = (w->type.shape[k] - 1) * dil[k] + 1;
    int64_t total = 0;
    if (p == "SAME") total = std::max<int64_t>(0, (inSp[k] - 1) * strides[k] + kEff - outSp[k]);
    pads[k] = total / 2;
    pads[k + r - 2] = total - total / 2;
    int64_t natural = strides[k] * (inSp[k] - 1) + kEff - total;
    outPad[k] = outSp[k] - natural;
    if (outPad[k] < 0) c.invalid("input_sizes do not match out_backprop and the filter");
  }
  a["strides"] = strides;
  a["dilations"] = dil;
  a["pads"] = pads;
  bool anyPad = false;
  for (auto v : outPad) anyPad = anyPad || v != 0;
  if (anyPad) a["output_padding"] = outPad;
  Value* wt = filterToOihw(c, w);  // [in channels (of dy), out channels, H, W]
  return {channelsFirstOp(c, dy, r, [&](Value* xc, const std::string& sfx) { return c.op("ConvTranspose", {xc, wt}, a, sfx); })};
}

Outs biasAdd(TfCtx& c) {
  Value *x = c.in.at(0), *b = c.in.at(1);
  if (c.channelsLast() || c.def.op() == "BiasAddV1") return {c.op("Add", {x, b})};
  int64_t r = c.rank(x) < 0 ? 4 : c.rank(x);
  std::vector<int64_t> axes;
  for (int64_t k = 1; k < r - 1; ++k) axes.push_back(k);
  Value* bb = axes.empty() ? b : c.op("Unsqueeze", {b, c.constI64(axes)}, {}, "bias");
  return {c.op("Add", {x, bb})};
}

Outs fusedBatchNorm(TfCtx& c) {
  Value *x = c.in.at(0), *scale = c.in.at(1), *offset = c.in.at(2);
  double eps = c.f("epsilon", 1e-4);
  int64_t r = c.rank(x) < 0 ? 4 : c.rank(x);
  bool training = c.b("is_training", true);
  Value *mean = c.in.size() > 3 ? c.in[3] : nullptr, *var = c.in.size() > 4 ? c.in[4] : nullptr;
  bool haveStats = mean && var && mean->type.shapeKnown && mean->type.numel() != 0 && var->type.numel() != 0;
  if (training || !haveStats) {
    // Batch statistics (is_training=True in a frozen graph): normalise over all but channels.
    std::vector<int64_t> axes;
    int64_t ch = c.channelsLast() ? r - 1 : 1;
    for (int64_t k = 0; k < r; ++k)
      if (k != ch) axes.push_back(k);
    Value* m = c.op("ReduceMean", {x}, {{"axes", axes}, {"keepdims", (int64_t)1}}, "mean");
    Value* d = c.op("Sub", {x, m}, {}, "centered");
    Value* v = c.op("ReduceMean", {c.op("Mul", {d, d}, {}, "sq")}, {{"axes", axes}, {"keepdims", (int64_t)1}}, "variance");
    Value* inv = c.op("Reciprocal", {c.op("Sqrt", {c.op("Add", {v, c.constScalar(eps, DType::F32)}, {}, "var_eps")}, {}, "std")}, {}, "rstd");
    Value* sh = scale;
    Value* of = offset;
    if (!c.channelsLast()) {
      std::vector<int64_t> ua;
      for (int64_t k = 1; k < r - 1; ++k) ua.push_back(k);
      sh = c.op("Unsqueeze", {scale, c.constI64(ua)}, {}, "scale_b");
      of = c.op("Unsqueeze", {offset, c.constI64(ua)}, {}, "offset_b");
    }
    Value* y = c.op("Add", {c.op("Mul", {c.op("Mul", {d, inv}, {}, "norm"), sh}, {}, "scaled"), of});
    return {y, m, v, m, v, m};
  }
  Value* y = channelsFirstOp(c, x, r, [&](Value* xc, const std::string& sfx) {
    return c.op("BatchNormalization", {xc, scale, offset, mean, var}, {{"epsilon", eps}}, sfx);
  });
  return {y, mean, var, mean, var, mean};
}

Outs pool(TfCtx& c, bool isMax) {
  Value* x = c.in.at(0);
  int64_t r = c.def.op().find("3D") != std::string::npos ? 5 : 4;
  std::vector<int64_t> ksize = c.ints("ksize"), strides = c.ints("strides");
  if (c.def.op() == "MaxPoolV2") {
    ksize = c.constInts(1, "ksize");
    strides = c.constInts(2, "strides");
  }
  std::map<std::string, AttrValue> a;
  a["kernel_shape"] = c.spatialOf(ksize, r);
  a["strides"] = c.spatialOf(strides, r);
  setPadding(c, a, r);
  if (!isMax) a["count_include_pad"] = (int64_t)0;  // TF divides by the valid cells only
  return {channelsFirstOp(c, x, r, [&](Value* xc, const std::string& sfx) {
    return c.op(isMax ? "MaxPool" : "AveragePool", {xc}, a, sfx);
  })};
}

Converter unary(const std::string& type, std::map<std::string, AttrValue> attrs = {}) {
  return [type, attrs](TfCtx& c) -> Outs { return {c.op(type, {c.in.at(0)}, attrs)}; };
}

Outs relu6(TfCtx& c) {
  DType t = c.irType("T", DType::F32);
  return {c.op("Clip", {c.in.at(0), c.constScalar(0, t), c.constScalar(6, t)})};
}

Outs softmaxLike(TfCtx& c, const std::string& type) { return {c.op(type, {c.in.at(0)}, {{"axis", (int64_t)-1}})}; }

}  // namespace

void registerNnConverters(ConverterTable& t) {
  t["Conv2D"] = conv2d;
  t["DepthwiseConv2dNative"] = depthwise;
  t["Conv2DBackpropInput"] = conv2dBackpropInput;
  t["BiasAdd"] = biasAdd;
  t["BiasAddV1"] = biasAdd;
  t["FusedBatchNorm"] = fusedBatchNorm;
  t["FusedBatchNormV2"] = fusedBatchNorm;
  t["FusedBatchNormV3"] = fusedBatchNorm;
  t["MaxPool"] = [](TfCtx& c) { return pool(c, true); };
  t["MaxPoolV2"] = [](TfCtx& c) { return pool(c, true); };
  t["MaxPool3D"] = [](TfCtx& c) { return pool(c, true); };
  t["AvgPool"] = [](TfCtx& c) { return pool(c, false); };
  t["AvgPool3D"] = [](TfCtx& c) { return pool(c, false); };
  t["Relu"] = unary("Relu");
  t["Relu6"] = relu6;
  t["Elu"] = unary("Elu", {{"alpha", 1.0}});
  t["Selu"] = unary("Selu");
  t["Sigmoid"] = unary("Sigmoid");
  t["Tanh"] = unary("Tanh");
  t["Softplus"] = unary("Softplus");
  t["Softsign"] = unary("Softsign");
  t["LeakyRelu"] = [](TfCtx& c) -> Outs { return {c.op("LeakyRelu", {c.in.at(0)}, {{"alpha", c.f("alpha", 0.2)}})}; };
  t["Softmax"] = [](TfCtx& c) { return softmaxLike(c, "Softmax"); };
  t["LogSoftmax"] = [](TfCtx& c) { return softmaxLike(c, "LogSoftmax"); };
}

}  // namespace tffe
}  // namespace atc
