#include "frontends/onnx/onnx_rotary_embedding.h"

#include <cstdint>
#include <limits>
#include <string>

#include "frontends/onnx/onnx_function_body.h"
#include "support/diagnostics.h"

namespace atc {
namespace onnxfe {
namespace {

[[noreturn]] void refuse(const std::string& node, const std::string& why) {
  throw AtcError("E19999", "Op [" + node + "] of type [RotaryEmbedding] is invalid: " + why,
                 "Check the node's attributes and inputs against the ONNX RotaryEmbedding specification.");
}

// x[..., start:end:step] on the last axis of a 4-D value.
std::string lastAxisSlice(Body& b, const std::string& x, int64_t start, int64_t end, int64_t step, const std::string& part) {
  return b.op("Slice",
              {x, b.constInts({start}, part + "Start"), b.constInts({end}, part + "End"), b.constInts({3}, part + "Axis"),
               b.constInts({step}, part + "Step")},
              part);
}

void expandOne(Body& b, const onnx::GraphProto& g, const onnx::NodeProto& n) {
  int64_t interleaved = 0, numHeads = 0, rotaryDim = 0;
  for (const auto& a : n.attribute()) {
    if (a.name() == "interleaved") interleaved = a.i();
    else if (a.name() == "num_heads") numHeads = a.i();
    else if (a.name() == "rotary_embedding_dim") rotaryDim = a.i();
  }
  const std::string X = input(n, 0), cosCache = input(n, 1), sinCache = input(n, 2), positions = input(n, 3);
  if (X.empty() || cosCache.empty() || sinCache.empty()) refuse(n.name(), "X, cos_cache and sin_cache are required");
  if (output(n, 0).empty()) refuse(n.name(), "output Y is required");
  if (rotaryDim < 0 || numHeads < 0) refuse(n.name(), "rotary_embedding_dim and num_heads must not be negative");
  if (rotaryDim % 2) refuse(n.name(), "rotary_embedding_dim must be even");
  int rank = declared(g, X).rank;
  if (rank < 0) rank = numHeads > 0 ? 3 : 4;
  if (rank != 3 && rank != 4) refuse(n.name(), "X must be 3-D or 4-D");
  if (rank == 3 && numHeads == 0) refuse(n.name(), "a 3-D X needs num_heads");
  // [batch, seq, heads, size]
  std::string x4;
  if (rank == 4) {
    Body::intsAttr(b.add("Transpose", {X}, b.v("XBSNH")), "perm", {0, 2, 1, 3});
    x4 = b.v("XBSNH");
  } else {
    x4 = b.op("Reshape", {X, b.constInts({0, 0, numHeads, -1}, "BSNHShape")}, "XBSNH");
  }
  // cos/sin [batch, seq, 1, rotary/2]
  std::string cosRows = positions.empty() ? cosCache : b.op("Gather", {cosCache, positions}, "CosRows");
  std::string sinRows = positions.empty() ? sinCache : b.op("Gather", {sinCache, positions}, "SinRows");
  std::string two = b.constInts({2}, "HeadAxis");
  std::string cos = b.op("Unsqueeze", {cosRows, two}, "Cos"), sin = b.op("Unsqueeze", {sinRows, two}, "Sin");
  const int64_t kEnd = std::numeric_limits<int64_t>::max();
  std::string xRot = rotaryDim > 0 ? lastAxisSlice(b, x4, 0, rotaryDim, 1, "XRotate") : x4;
  std::string x1, x2;
  if (interleaved) {
    x1 = lastAxisSlice(b, xRot, 0, kEnd, 2, "X1");
    x2 = lastAxisSlice(b, xRot, 1, kEnd, 2, "X2");
  } else {
    onnx::NodeProto& s = b.add("Split", {xRot}, b.v("X1"));
    s.add_output(b.v("X2"));
    Body::intAttr(s, "axis", -1);
    Body::intAttr(s, "num_outputs", 2);
    x1 = b.v("X1"), x2 = b.v("X2");
  }
  std::string real = b.op("Sub", {b.op("Mul", {cos, x1}, "CosX1"), b.op("Mul", {sin, x2}, "SinX2")}, "Real");
  std::string imag = b.op("Add", {b.op("Mul", {sin, x1}, "SinX1"), b.op("Mul", {cos, x2}, "CosX2")}, "Imag");
  std::string rotated;
  if (interleaved) {
    std::string last = b.constInts({-1}, "LastAxis");
    std::string pairs = b.concat({b.op("Unsqueeze", {real, last}, "Real5"), b.op("Unsqueeze", {imag, last}, "Imag5")},
                                 "Pairs", -1);
    rotated = b.op("Reshape", {pairs, b.constInts({0, 0, 0, -1}, "RotatedShape")}, "Rotated");
  } else {
    rotated = b.concat({real, imag}, "Rotated", -1);
  }
  std::string out4 = rotaryDim > 0 ? b.concat({rotated, lastAxisSlice(b, x4, rotaryDim, kEnd, 1, "XPass")}, "YBSNH", -1)
                                   : rotated;
  if (rank == 4) Body::intsAttr(b.add("Transpose", {out4}, output(n, 0)), "perm", {0, 2, 1, 3});
  else b.add("Reshape", {out4, b.constInts({0, 0, -1}, "YShape")}, output(n, 0));
}

}  // namespace

int expandRotaryEmbeddingNodes(onnx::ModelProto* model) {
  return expandFunctionNodes(model, "RotaryEmbedding", expandOne);
}

}  // namespace onnxfe
}  // namespace atc
