#include "frontends/onnx/onnx_opset_changes.h"

#include <map>
#include <set>
#include <sstream>

namespace atc {
namespace onnxfe {
namespace {

// The ops with a new version in each opset, from ONNX's operator set definitions
// (onnx/defs/operator_sets.h).
const std::map<int64_t, const char*>& changesByOpset() {
  static const std::map<int64_t, const char*> t = {
      {18, "BitwiseAnd BitwiseNot BitwiseOr BitwiseXor CenterCropPad Col2Im GroupNormalization LpPool Mish "
           "OptionalGetElement OptionalHasElement Pad ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp ReduceMax "
           "ReduceMean ReduceMin ReduceProd ReduceSumSquare Resize ScatterElements ScatterND Split"},
      {19, "AveragePool Cast CastLike Constant DeformConv DequantizeLinear Equal Identity If Loop Pad "
           "QuantizeLinear Reshape Resize Scan Shape Size"},
      {20, "AffineGrid ConstantOfShape DFT Gelu GridSample ImageDecoder IsInf IsNaN ReduceMax ReduceMin "
           "RegexFullMatch StringConcat StringSplit"},
      {21, "Cast CastLike Constant ConstantOfShape DequantizeLinear Flatten GroupNormalization Identity If Loop "
           "Pad QLinearMatMul QuantizeLinear Reshape Scan Shape Size Squeeze Transpose Unsqueeze"},
      {22, "Acos Acosh Asin Asinh Atan Atanh AveragePool Bernoulli Conv ConvTranspose Cos Cosh DeformConv Det "
           "Dropout Elu EyeLike GRU GlobalAveragePool GlobalLpPool GlobalMaxPool GridSample HardSigmoid HardSwish "
           "InstanceNormalization LSTM LpNormalization LpPool MaxPool MaxRoiPool MaxUnpool Mish Multinomial "
           "NegativeLogLikelihoodLoss RNN RandomNormal RandomNormalLike RandomUniform RandomUniformLike RoiAlign "
           "Round Selu Sin Sinh Softplus Softsign Tan ThresholdedRelu"},
      {23, "Attention Cast CastLike Constant ConstantOfShape DequantizeLinear Flatten Identity If Loop Pad "
           "QuantizeLinear RMSNormalization Reshape RotaryEmbedding Scan Shape Size Squeeze Transpose Unsqueeze"},
      {24, "Attention Cast CastLike Constant ConstantOfShape DequantizeLinear Flatten Identity If Loop Pad "
           "QuantizeLinear Reshape Scan Shape Size SplitToSequence Squeeze Swish TensorScatter TopK Transpose "
           "Unsqueeze"},
      {25, "Attention Cast CastLike Constant ConstantOfShape DequantizeLinear Flatten Identity If Loop Pad "
           "QuantizeLinear Reshape Scan Shape Size Squeeze Transpose Unsqueeze"},
      {26, "BitCast CumProd"},
      {27, "CausalConvWithState LinearAttention Range"},
      {28, "Celu SwiGLU"},
  };
  return t;
}

// The new versions of those opsets that only add element types (float8e8m0 in 24, int2 and
// uint2 in 25, float16 and bfloat16 to Celu in 28, bfloat16 to SplitToSequence in 24), or
// attributes that only apply to the new types
// (CastLike-24's round_mode);
// Cast-24 changed its float8 saturation table: atc's float8 casts follow the current table
// (kernels/lib/cast_lp.h, docs/element-types.md) at every opset. Compared
// against onnx/docs/Changelog.md (the text of each op's version 23 and 24/25). For every
// element type atc implements, these versions compute what version 23 computes, so a node
// using them imports as the opset-23 op (an unsupported element type is still refused by
// type). If, Loop and Scan 24 / 25 keep their opset-23 text and attributes (onnx/defs/controlflow:
// the same doc strings, type lists of IR 12 / 13). Attention-24/25 (nonpad_kv_seqlen, sliding
// windows) stays in the table above.
const std::map<int64_t, const char*>& typeOnlyChanges() {
  static const std::map<int64_t, const char*> t = {
      {24, "Cast CastLike Constant ConstantOfShape DequantizeLinear Flatten Identity If Loop Pad QuantizeLinear Reshape "
           "Scan Shape Size SplitToSequence Squeeze TopK Transpose Unsqueeze"},
      {25, "Cast CastLike Constant ConstantOfShape DequantizeLinear Flatten Identity If Loop Pad QuantizeLinear Reshape "
           "Scan Shape Size Squeeze Transpose Unsqueeze"},
      {27, "Range"},  // stash_type: float16 / bfloat16 computed in float or double; atc computes in double
      {28, "Celu"},  // float16 and bfloat16 besides float32 (its function body: Div, Elu, Mul)
  };
  return t;
}

std::map<int64_t, std::set<std::string>> splitLists(const std::map<int64_t, const char*>& t) {
  std::map<int64_t, std::set<std::string>> m;
  for (auto& [v, text] : t) {
    std::istringstream ss(text);
    std::string op;
    while (ss >> op) m[v].insert(op);
  }
  return m;
}

// Ops new in an opset after 23 that atc implements (ops/), by the text of their first version
// in onnx/docs/Changelog.md, and new versions it implements: Attention-24 (nonpad_kv_seqlen,
// a causal mask offset per batch, a short attn_mask padded) and Attention-25 (sliding windows:
// frontends/onnx/onnx_attention.cpp).
const std::map<int64_t, const char*>& newOpsImplemented() {
  static const std::map<int64_t, const char*> t = {
      {24, "Attention"},
      {25, "Attention"},
      {26, "BitCast CumProd"},
  };
  return t;
}

const std::map<int64_t, std::set<std::string>>& changeSets() {
  static const std::map<int64_t, std::set<std::string>> sets = [] {
    std::map<int64_t, std::set<std::string>> m = splitLists(changesByOpset());
    for (auto& [v, ops] : splitLists(typeOnlyChanges()))
      for (const std::string& op : ops) m[v].erase(op);
    for (auto& [v, ops] : splitLists(newOpsImplemented()))
      for (const std::string& op : ops) m[v].erase(op);
    return m;
  }();
  return sets;
}

}  // namespace

int64_t opChangedIn(const std::string& op, int64_t after, int64_t upTo) {
  for (auto& [v, ops] : changeSets())
    if (v > after && v <= upTo && ops.count(op)) return v;
  return 0;
}

}  // namespace onnxfe
}  // namespace atc
