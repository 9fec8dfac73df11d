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

const std::map<int64_t, std::set<std::string>>& changeSets() {
  static const std::map<int64_t, std::set<std::string>> sets = [] {
    std::map<int64_t, std::set<std::string>> m;
    for (auto& [v, text] : changesByOpset()) {
      std::istringstream ss(text);
      std::string op;
      while (ss >> op) m[v].insert(op);
    }
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
