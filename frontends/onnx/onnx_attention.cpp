#include "frontends/onnx/onnx_attention.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "frontends/onnx/onnx_function_body.h"
#include "support/diagnostics.h"

namespace atc {
namespace onnxfe {
namespace {

struct AttentionAttrs {
  int64_t isCausal = 0, qHeads = 0, kvHeads = 0, qkMode = 0, softmaxPrecision = 0;
  int64_t leftWindow = -1, rightWindow = -1;  // opset 25: -1 unbounded
  bool hasScale = false;
  float scale = 0, softcap = 0;
};

AttentionAttrs readAttrs(const onnx::NodeProto& n) {
  AttentionAttrs a;
  for (const auto& at : n.attribute()) {
    const std::string& k = at.name();
    if (k == "is_causal") a.isCausal = at.i();
    else if (k == "q_num_heads") a.qHeads = at.i();
    else if (k == "kv_num_heads") a.kvHeads = at.i();
    else if (k == "qk_matmul_output_mode") a.qkMode = at.i();
    else if (k == "softmax_precision") a.softmaxPrecision = at.i();
    else if (k == "scale") a.hasScale = true, a.scale = at.f();
    else if (k == "softcap") a.softcap = at.f();
    else if (k == "left_window_size") a.leftWindow = at.i();
    else if (k == "right_window_size") a.rightWindow = at.i();
  }
  return a;
}

[[noreturn]] void refuse(const std::string& node, const std::string& why) {
  throw AtcError("E19999", "Op [" + node + "] of type [Attention] is invalid: " + why,
                 "Check the node's attributes and inputs against the ONNX Attention specification.");
}

// 3-D Q/K/V [batch, seq, heads*size] -> 4-D [batch, heads, seq, size].
std::string toHeads(Body& b, const std::string& x, const std::string& batch, const std::string& seq,
                    int64_t heads, const std::string& tag) {
  std::string shape = b.concat({batch, seq, b.constInts({heads}, tag + "Heads"), b.v("NegOne")}, tag + "Shape");
  std::string r = b.op("Reshape", {x, shape}, tag + "Intermediate");
  onnx::NodeProto& t = b.add("Transpose", {r}, b.v(tag + "Reshaped"));
  Body::intsAttr(t, "perm", {0, 2, 1, 3});
  return b.v(tag + "Reshaped");
}

// The mask as an additive bias (bool -> 0 / -inf), its last dim padded with -inf up to the keys'
// count when it is declared shorter (an external cache: opset 24); "" without a mask.
std::string maskBias(Body& b, const onnx::GraphProto& g, const onnx::NodeProto& n, int64_t totalKeys) {
  const std::string mask = input(n, 3);
  if (mask.empty()) return "";
  Declared d = declared(g, mask);
  if (d.elemType == 0) refuse(n.name(), "the element type of attn_mask [" + mask + "] is not declared in the model");
  std::string bias = d.elemType == onnx::TensorProto::BOOL
                         ? b.op("Where", {mask, b.v("ScalarZero"), b.v("FloatNegInf")}, "AttnBiasShort")
                         : mask;
  const int64_t maskKeys = d.dims.empty() ? -1 : d.dims.back();
  if (maskKeys <= 0 || totalKeys <= 0 || maskKeys >= totalKeys) return bias;
  std::string pads = b.concat({b.v("Zero1D"), b.constInts({totalKeys - maskKeys}, "PaddingKVSeqLen")}, "Pads");
  return b.op("Pad", {bias, pads, b.op("CastLike", {b.v("FloatNegInf"), bias}, "FloatNegInfCast"), b.v("NegOne")},
              "AttnBiasPadded");
}

// Adds to bias the -inf of the keys outside the window of each query (opset 25): absolute
// position p = row + offset attends j with p - left <= j <= p + right (a bound of -1: none).
std::string addWindow(Body& b, const AttentionAttrs& a, const std::string& bias, const std::string& absPos,
                      const std::string& cols) {
  const std::string diff = b.op("Sub", {absPos, cols}, "WinDiff");  // p - j
  std::string ok;
  if (a.leftWindow >= 0)
    ok = b.op("LessOrEqual", {diff, b.constInts({a.leftWindow}, "LeftWindowSize", true)}, "WinLeftOk");
  if (a.rightWindow >= 0) {
    std::string r = b.op("LessOrEqual", {b.op("Neg", {diff}, "WinRightDiff"),
                                        b.constInts({a.rightWindow}, "RightWindowSize", true)},
                         "WinRightOk");
    ok = ok.empty() ? r : b.op("And", {ok, r}, "WinOk");
  }
  std::string maskF = b.op("Where", {ok, b.v("ScalarZero"), b.v("FloatNegInf")}, "WinMaskFloat");
  return b.op("Add", {bias, b.op("CastLike", {maskF, bias}, "WinMask")}, "AttnBiasCausalWindow");
}

// Bias [.., q, kv]: the mask's, or zeros; the causal triangle added (query row i sees keys
// j <= i + offset: offset = the past length, or nonpad_kv_seqlen - q length per batch with an
// external cache), then the sliding window; with nonpad_kv_seqlen, keys at or past it masked per
// batch ([b, 1, q, kv]).
std::string attentionBias(Body& b, const onnx::GraphProto& g, const onnx::NodeProto& n, const AttentionAttrs& a,
                          const std::string& biasShape, const std::string& pastLen, int64_t totalKeys) {
  const std::string nonpad = input(n, 6);
  const bool window = a.leftWindow >= 0 || a.rightWindow >= 0;
  std::string bias = maskBias(b, g, n, totalKeys);
  if (bias.empty()) bias = b.op("ConstantOfShape", {biasShape}, "AttnBias");
  if (!a.isCausal && !window && nonpad.empty()) return bias;
  std::string zero = b.constInts({0}, "ZeroNoDim", true), one = b.constInts({1}, "OneNoDim", true);
  std::string total = b.op("Gather", {biasShape, one}, "TotalSequenceLength");
  std::string cols = b.op("Range", {zero, total, one}, "RangeCol");
  if (a.isCausal || window) {
    std::string seq = b.op("Gather", {biasShape, zero}, "SequenceLength");
    std::string rows = b.op("Unsqueeze", {b.op("Range", {zero, seq, one}, "RangeRow"), b.v("One1D")}, "RangeRow2D");
    std::string colsX = b.op("Unsqueeze", {cols, b.v("Zero1D")}, "RangeCol2D");
    std::string absPos;
    if (nonpad.empty()) {
      absPos = b.op("Add", {rows, pastLen}, "RangeRow2DPast");
    } else {  // per batch: [b, 1, 1, 1] offsets against [1, 1, q, 1] rows and [1, 1, 1, kv] columns
      std::string axes01 = b.constInts({0, 1}, "Axes01");
      std::string off = b.op("Unsqueeze", {b.op("Sub", {nonpad, b.v("QSeqLen")}, "CausalOffsetPerBatch"),
                                          b.constInts({1, 2, 3}, "Axes123")},
                             "OffsetB4D");
      absPos = b.op("Add", {b.op("Unsqueeze", {rows, axes01}, "RangeRow4D"), off}, "RowPlusOff");
      colsX = b.op("Unsqueeze", {colsX, axes01}, "RangeCol4D");
    }
    if (a.isCausal) {
      std::string tri = b.op("Less", {absPos, colsX}, "BoolMaskTri");
      std::string triF = b.op("Where", {tri, b.v("FloatNegInf"), b.v("ScalarZero")}, "MaskTri");
      bias = b.op("Add", {bias, b.op("CastLike", {triF, bias}, "MaskTriT")}, "AttnBiasCausal");
    }
    if (window) bias = addWindow(b, a, bias, absPos, colsX);
  }
  if (nonpad.empty()) return bias;
  std::string valid = b.op("Less", {cols, b.op("Unsqueeze", {nonpad, b.v("One1D")}, "KVSeqLenExpanded")},
                           "PaddingMaskBool");  // [b, kv]
  std::string padF = b.op("Where", {valid, b.v("ScalarZero"), b.v("FloatNegInf")}, "PaddingMaskFloat");
  std::string pad4 = b.op("Unsqueeze", {padF, b.constInts({1, 2}, "Axes12")}, "PaddingMask4D");
  return b.op("Add", {bias, b.op("CastLike", {pad4, bias}, "PaddingMaskT")}, "AttnBiasCausalPad");
}

// K or V [b, kvh, s, d] -> [b, qh, s, d]: each kv head repeated qh/kvh times (grouped-query
// attention; once when the head counts are equal).
std::string repeatHeads(Body& b, const std::string& x, const std::string& headSize, const std::string& tag) {
  std::string un = b.op("Unsqueeze", {x, b.v("Two1D")}, tag + "Unsqueezed");
  std::string es = b.concat({b.v("BatchSize"), b.v("KVNumHeads"), b.v("InterleaveDim"), b.v("NewKVSeqLen"), headSize},
                          tag + "ExpandShape");
  std::string ex = b.op("Expand", {un, es}, tag + "Expanded");
  std::string as = b.concat({b.v("BatchSize"), b.v("QNumHeads"), b.v("NewKVSeqLen"), headSize}, tag + "AttentionShape");
  return b.op("Reshape", {ex, as}, tag + "AttentionInput");
}

// Q K^T * scale (+ softcap) (+ bias) -> softmax -> x V, the qk_matmul_output and Y. The scale
// multiplies the product (the form the attention fusion pass matches; the function body
// scales Q and K^T by its square root: the same up to rounding). bias "" = none (no mask,
// not causal: nothing to add and no row can be fully masked).
void finishAttention(Body& b, const onnx::NodeProto& n, const AttentionAttrs& a, const std::string& q,
                     const std::string& kIn, const std::string& vIn, const std::string& biasT) {
  onnx::NodeProto& kt = b.add("Transpose", {kIn}, b.v("KTranspose"));
  Body::intsAttr(kt, "perm", {0, 1, 3, 2});
  std::string raw = b.op("MatMul", {q, b.v("KTranspose")}, "QKRaw");
  std::string qk = b.op("Mul", {raw, b.v("ScaleT")}, "QKAttnWeight");
  std::string capped = qk;
  if (a.softcap > 0) {
    std::string c = b.like(b.constFloat(a.softcap, "Softcap"), q, "SoftcapF");
    capped = b.op("Mul", {b.op("Tanh", {b.op("Div", {qk, c}, "SoftcapDiv")}, "SoftcapTanh"), c}, "QKAttnSoftcapped");
  }
  std::string logits = biasT.empty() ? capped : b.op("Add", {capped, biasT}, "QKAttnWeightSoftcap");
  std::string smIn = logits;
  if (a.softmaxPrecision) {
    onnx::NodeProto& c = b.add("Cast", {logits}, b.v("SoftmaxCast"));
    Body::intAttr(c, "to", a.softmaxPrecision);
    smIn = b.v("SoftmaxCast");
  }
  Body::intAttr(b.add("Softmax", {smIn}, b.v("AttnWeightSoftmax")), "axis", -1);
  std::string probs = a.softmaxPrecision ? b.like(b.v("AttnWeightSoftmax"), q, "SoftmaxOut")
                                         : b.v("AttnWeightSoftmax");
  std::string safe = probs;
  if (!biasT.empty()) {  // a row whose every key is masked gets zero probabilities, not NaN
    std::string rowMax = b.op("ReduceMax", {biasT, b.v("NegOne")}, "BiasRowMax");
    std::string allMasked =
        b.op("Equal", {rowMax, b.like(b.v("FloatNegInf"), q, "FloatNegInfT")}, "RowAllMasked");
    safe = b.op("Where", {allMasked, b.like(b.v("ScalarZero"), q, "ZeroProbT"), probs}, "SoftmaxOutSafe");
  }
  if (!output(n, 3).empty()) {
    const std::string src[4] = {qk, capped, logits, safe};
    b.add("Identity", {src[a.qkMode]}, output(n, 3));
  }
  std::string y = b.op("MatMul", {safe, vIn}, "YPreReshape");
  if (b.rank == 3) {
    onnx::NodeProto& t = b.add("Transpose", {y}, b.v("YTranspose"));
    Body::intsAttr(t, "perm", {0, 2, 1, 3});
    b.add("Reshape", {b.v("YTranspose"), b.concat({b.v("Zero1D"), b.v("Zero1D"), b.v("NegOne")}, "YNewShape")},
          output(n, 0));
  } else {
    b.add("Identity", {y}, output(n, 0));
  }
}

// Whether Q and K are known to have the same number of heads (no grouped-query repeat).
bool sameHeads(const onnx::GraphProto& g, const AttentionAttrs& a, int rank, const std::string& Q, const std::string& K) {
  if (rank == 3) return a.qHeads == a.kvHeads;
  Declared dq = declared(g, Q), dk = declared(g, K);
  return dq.dims.size() == 4 && dk.dims.size() == 4 && dq.dims[1] > 0 && dq.dims[1] == dk.dims[1];
}

void expandOne(Body& b, const onnx::GraphProto& g, const onnx::NodeProto& n) {
  const AttentionAttrs a = readAttrs(n);
  const std::string Q = input(n, 0), K = input(n, 1), V = input(n, 2), pastK = input(n, 4), pastV = input(n, 5);
  if (Q.empty() || K.empty() || V.empty()) refuse(n.name(), "Q, K and V are required");
  if (pastK.empty() != pastV.empty()) refuse(n.name(), "past_key and past_value must be given together");
  if (!input(n, 6).empty() && (!pastK.empty() || !output(n, 1).empty() || !output(n, 2).empty()))
    refuse(n.name(), "nonpad_kv_seqlen cannot be combined with past or present key and value");
  if (!input(n, 6).empty() && declared(g, input(n, 6)).elemType != onnx::TensorProto::INT64)
    refuse(n.name(), "nonpad_kv_seqlen must be int64");
  if (a.qkMode < 0 || a.qkMode > 3) refuse(n.name(), "qk_matmul_output_mode must be 0 to 3");
  if (a.leftWindow < -1 || a.rightWindow < -1) refuse(n.name(), "left_window_size and right_window_size must be >= -1");
  int rank = declared(g, Q).rank;
  if (rank < 0) rank = a.qHeads > 0 && a.kvHeads > 0 ? 3 : 4;
  if (rank != 3 && rank != 4) refuse(n.name(), "Q must be 3-D or 4-D");
  if (rank == 3 && (a.qHeads <= 0 || a.kvHeads <= 0))
    refuse(n.name(), "3-D inputs need q_num_heads and kv_num_heads (both > 0)");
  b.rank = rank;
  b.qElemType = declared(g, Q).elemType;
  b.shape(Q, 0, 1, "BatchSize");
  std::string qSeq = b.shape(Q, -2, -1, "QSeqLen"), kvSeq = b.shape(K, -2, -1, "KVSeqLen");
  b.constInts({-1}, "NegOne");
  b.constInts({1}, "One1D");
  b.constInts({0}, "Zero1D");
  b.constInts({2}, "Two1D");
  b.constFloat(-std::numeric_limits<float>::infinity(), "FloatNegInf");
  b.constFloat(0.0f, "ScalarZero");
  std::string q = Q, k = K, v = V;
  if (rank == 3) {
    q = toHeads(b, Q, b.v("BatchSize"), qSeq, a.qHeads, "Q");
    k = toHeads(b, K, b.v("BatchSize"), kvSeq, a.kvHeads, "K");
    v = toHeads(b, V, b.v("BatchSize"), kvSeq, a.kvHeads, "V");
  }
  b.shape(q, 1, 2, "QNumHeads");
  b.shape(k, 1, 2, "KVNumHeads");
  std::string qkSize = b.shape(q, 3, 4, "QKHeadSize"), vSize = b.shape(v, 3, 4, "VHeadSize");
  // Scale: the attribute or 1/sqrt(head size), applied to the product Q K^T.
  std::string scale;
  if (a.hasScale) {
    scale = b.constFloat(a.scale, "ScaleFactor");
  } else {
    onnx::NodeProto& c = b.add("Cast", {qkSize}, b.v("QKHeadSizeF"));
    Body::intAttr(c, "to", onnx::TensorProto::FLOAT);
    scale = b.op("Div", {b.constFloat(1.0f, "One1DF"), b.op("Sqrt", {b.v("QKHeadSizeF")}, "SqrtHeadSize")}, "ScaleFactor");
  }
  b.like(scale, q, "ScaleT");
  // The key/value cache.
  std::string presentK = pastK.empty() ? k : b.concat({pastK, k}, "PresentKey", 2);
  std::string presentV = pastV.empty() ? v : b.concat({pastV, v}, "PresentValue", 2);
  std::string pastLen = pastK.empty() ? b.v("Zero1D") : b.shape(pastK, -2, -1, "PastKVSeqLen");
  if (!output(n, 1).empty()) b.add("Identity", {presentK}, output(n, 1));
  if (!output(n, 2).empty()) b.add("Identity", {presentV}, output(n, 2));
  b.shape(presentK, -2, -1, "NewKVSeqLen");
  std::string biasShape = b.concat({qSeq, b.v("NewKVSeqLen")}, "AttnBiasShape");
  // The keys' count when the model declares it (a shorter attn_mask is padded up to it).
  const Declared dk = declared(g, K), dp = declared(g, pastK);
  int64_t totalKeys = dk.dims.size() >= 2 ? dk.dims[dk.dims.size() - 2] : -1;
  if (rank == 3) totalKeys = dk.dims.size() == 3 ? dk.dims[1] : -1;
  if (!pastK.empty()) totalKeys = dp.dims.size() == 4 && dp.dims[2] > 0 && totalKeys > 0 ? totalKeys + dp.dims[2] : -1;
  const bool window = a.leftWindow >= 0 || a.rightWindow >= 0;
  const bool noBias = input(n, 3).empty() && !a.isCausal && input(n, 6).empty() && !window;
  std::string biasT =
      noBias ? std::string() : b.like(attentionBias(b, g, n, a, biasShape, pastLen, totalKeys), q, "AttnBiasT");
  // Grouped-query heads: InterleaveDim = qh / kvh when it divides, else 1. Skipped when the
  // head counts are known equal (the Expand would copy K and V for nothing).
  if (sameHeads(g, a, rank, Q, K)) {
    finishAttention(b, n, a, q, presentK, presentV, biasT);
    return;
  }
  std::string gqa1 = b.op("Not", {b.op("Equal", {b.v("QNumHeads"), b.v("KVNumHeads")}, "NGQACond1")}, "GQACond1");
  std::string gqa2 = b.op("Equal", {b.op("Mod", {b.v("QNumHeads"), b.v("KVNumHeads")}, "RemainderNumHeads"), b.v("Zero1D")},
                          "GQACond2");
  b.op("Where", {b.op("And", {gqa1, gqa2}, "GQACond"), b.op("Div", {b.v("QNumHeads"), b.v("KVNumHeads")}, "DivNumHeads"),
                 b.v("One1D")},
       "InterleaveDim");
  std::string kIn = repeatHeads(b, presentK, qkSize, "K"), vIn = repeatHeads(b, presentV, vSize, "V");
  finishAttention(b, n, a, q, kIn, vIn, biasT);
}

}  // namespace

int expandAttentionNodes(onnx::ModelProto* model) {
  return expandFunctionNodes(model, "Attention", [](Body& b, const onnx::GraphProto& g, const onnx::NodeProto& n) {
    if (n.output_size() < 1 || n.output(0).empty()) refuse(n.name(), "output Y is required");
    expandOne(b, g, n);
  });
}

}  // namespace onnxfe
}  // namespace atc
