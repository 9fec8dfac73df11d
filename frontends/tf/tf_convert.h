// The TensorFlow import table: one converter per TF op type, producing IR nodes of the
// existing (ONNX-named) ops. Converters are grouped by family in frontends/tf/ops/*.cpp and
// registered explicitly (no static initialisers: the frontend is a static library).
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "frontends/tf/tf_graph.pb.h"
#include "ir/graph.h"

namespace atc {
namespace tffe {

// E10041 naming the node: the GraphDef is invalid.
[[noreturn]] void invalidNode(const tfproto::NodeDef& def, const std::string& why);

// A converter's data inputs. A crafted GraphDef can give any op any number of inputs:
// reading past them (in[i], in.at(i)) is an E10041 error naming the node, not undefined
// behaviour or std::out_of_range.
class TfInputs {
 public:
  TfInputs(const tfproto::NodeDef& def, std::vector<Value*> v) : def_(&def), v_(std::move(v)) {}
  Value* operator[](size_t i) const { return at(i); }
  Value* at(size_t i) const {
    if (i >= v_.size()) missing(i);
    return v_[i];
  }
  size_t size() const { return v_.size(); }
  bool empty() const { return v_.empty(); }
  std::vector<Value*>::const_iterator begin() const { return v_.begin(); }
  std::vector<Value*>::const_iterator end() const { return v_.end(); }
  operator const std::vector<Value*>&() const { return v_; }

 private:
  [[noreturn]] void missing(size_t i) const;
  const tfproto::NodeDef* def_;
  std::vector<Value*> v_;
};

// What one converter sees: the NodeDef, its data inputs (already IR values) and helpers
// that add IR nodes named after the TF node.
class TfCtx {
 public:
  TfCtx(Graph& g, const tfproto::NodeDef& def, std::vector<Value*> in) : g(g), def(def), in(def, std::move(in)) {}
  Graph& g;
  const tfproto::NodeDef& def;
  TfInputs in;

  // Attributes (TF AttrValue), with defaults.
  const tfproto::AttrValue* attr(const std::string& k) const;
  bool has(const std::string& k) const { return attr(k) != nullptr; }
  int64_t i(const std::string& k, int64_t def) const;
  double f(const std::string& k, double def) const;
  bool b(const std::string& k, bool def) const;
  std::string s(const std::string& k, const std::string& def) const;
  std::vector<int64_t> ints(const std::string& k) const;
  int type(const std::string& k, int def) const;  // TF DataType number
  DType irType(const std::string& k, DType def) const;

  // Adds an IR node; its outputs get types from inference when the inputs' types allow it.
  // suffix "" = the TF node's own name, else name/suffix.
  std::vector<Value*> opN(const std::string& type, const std::vector<Value*>& ins, int nOut,
                          std::map<std::string, AttrValue> attrs = {}, const std::string& suffix = "");
  Value* op(const std::string& type, const std::vector<Value*>& ins,
            std::map<std::string, AttrValue> attrs = {}, const std::string& suffix = "") {
    return opN(type, ins, 1, std::move(attrs), suffix)[0];
  }
  Value* constI64(const std::vector<int64_t>& v, bool scalar = false);
  Value* constScalar(double v, DType dt);
  // Input i must be a compile-time constant (a Const, or folded from shapes).
  TensorPtr constInput(size_t i, const std::string& what) const;
  std::vector<int64_t> constInts(size_t i, const std::string& what) const;
  int64_t rank(const Value* v) const { return v && v->type.shapeKnown ? v->type.rank() : -1; }
  int64_t requireRank(const Value* v, const std::string& what) const;
  // data_format of the node: true for channels-last (NHWC, NDHWC, NWC, default).
  bool channelsLast() const;
  // Explicit layout transfers (Transpose nodes a pass can cancel): channels-last <-> first
  // for a tensor of rank r.
  Value* toChannelsFirst(Value* v, int64_t r, const std::string& suffix = "to_nchw");
  Value* toChannelsLast(Value* v, int64_t r, const std::string& suffix = "to_nhwc");
  // Converts a TF attribute given per dim in data_format order (strides, ksize, dilations)
  // to the spatial list.
  std::vector<int64_t> spatialOf(const std::vector<int64_t>& perDim, int64_t r) const;
  [[noreturn]] void unsupported(const std::string& why) const;  // E19010 naming the node
  [[noreturn]] void invalid(const std::string& why) const;      // E10041 naming the node
  int nodesAdded = 0;
};

using Converter = std::function<std::vector<Value*>(TfCtx&)>;
using ConverterTable = std::map<std::string, Converter>;

void registerNnConverters(ConverterTable& t);      // ops/tf_nn.cpp: conv, pool, norm, activations
void registerMathConverters(ConverterTable& t);    // ops/tf_math.cpp: element-wise, reductions, matmul
void registerArrayConverters(ConverterTable& t);   // ops/tf_array.cpp: reshape, concat, slice, gather...
void registerQuantConverters(ConverterTable& t);   // ops/tf_quant.cpp: Dequantize
const ConverterTable& converterTable();

}  // namespace tffe
}  // namespace atc
