#include "frontends/tf/tf_convert.h"

#include "frontends/tf/tf_tensor.h"
#include "support/diagnostics.h"
#include "ir/op_registry.h"

namespace atc {
namespace tffe {

const tfproto::AttrValue* TfCtx::attr(const std::string& k) const {
  auto it = def.attr().find(k);
  return it == def.attr().end() ? nullptr : &it->second;
}
int64_t TfCtx::i(const std::string& k, int64_t d) const {
  auto* a = attr(k);
  return a && a->value_case() == tfproto::AttrValue::kI ? a->i() : d;
}
double TfCtx::f(const std::string& k, double d) const {
  auto* a = attr(k);
  return a && a->value_case() == tfproto::AttrValue::kF ? a->f() : d;
}
bool TfCtx::b(const std::string& k, bool d) const {
  auto* a = attr(k);
  return a && a->value_case() == tfproto::AttrValue::kB ? a->b() : d;
}
std::string TfCtx::s(const std::string& k, const std::string& d) const {
  auto* a = attr(k);
  return a && a->value_case() == tfproto::AttrValue::kS ? a->s() : d;
}
std::vector<int64_t> TfCtx::ints(const std::string& k) const {
  auto* a = attr(k);
  if (!a || a->value_case() != tfproto::AttrValue::kList) return {};
  return std::vector<int64_t>(a->list().i().begin(), a->list().i().end());
}
int TfCtx::type(const std::string& k, int d) const {
  auto* a = attr(k);
  return a && a->value_case() == tfproto::AttrValue::kType ? (int)a->type() : d;
}
DType TfCtx::irType(const std::string& k, DType d) const {
  auto* a = attr(k);
  if (!a || a->value_case() != tfproto::AttrValue::kType) return d;
  DType r;
  if (!dtypeFromTf(a->type(), &r)) unsupported("attribute " + k + " is " + tfTypeName(a->type()));
  return r;
}

std::vector<Value*> TfCtx::opN(const std::string& type, const std::vector<Value*>& ins, int nOut,
                               std::map<std::string, AttrValue> attrs, const std::string& suffix) {
  std::string base = suffix.empty() ? def.name() : def.name() + "/" + suffix;
  std::string name = g.uniqueNodeName(base);
  std::vector<Value*> outs;
  for (int k = 0; k < nOut; ++k) outs.push_back(g.newValue(k == 0 ? name : name + ":" + std::to_string(k)));
  Node* n = g.addNode(type, name, ins, outs);
  n->attrs = std::move(attrs);
  n->originalNames = {def.name()};
  ++nodesAdded;
  // A node whose input count does not fit its op (a one-input Mul from a hostile GraphDef) is
  // refused here: the scope-fusion passes run before inference and index required inputs.
  checkArity(*n);
  // Types now, when the inputs allow it (converters use ranks); the passes infer again.
  bool ready = true;
  for (Value* v : ins)
    if (v && !v->type.shapeKnown) ready = false;
  if (ready) {
    try {
      inferNode(g, *n);
    } catch (const AtcError&) {
      for (Value* v : outs) v->type = TensorType();
    }
  }
  return outs;
}

Value* TfCtx::constI64(const std::vector<int64_t>& v, bool scalar) {
  return g.newConstant(def.name() + "/const", makeIntTensor(v, DType::I64, scalar));
}
Value* TfCtx::constScalar(double v, DType dt) { return g.newConstant(def.name() + "/const", makeScalar(v, dt)); }

TensorPtr TfCtx::constInput(size_t k, const std::string& what) const {
  if (k >= in.size() || !in[k]) invalid("input " + std::to_string(k) + " (" + what + ") is missing");
  if (!in[k]->isConstant())
    unsupported("input " + std::to_string(k) + " (" + what + ") must be a compile-time constant");
  return in[k]->constant;
}
std::vector<int64_t> TfCtx::constInts(size_t k, const std::string& what) const {
  return constInput(k, what)->toInts();
}

int64_t TfCtx::requireRank(const Value* v, const std::string& what) const {
  int64_t r = rank(v);
  if (r < 0) unsupported("the rank of " + what + " is unknown (give input shapes with --input_shape)");
  return r;
}

bool TfCtx::channelsLast() const {
  std::string f = s("data_format", "NHWC");
  if (f == "NHWC" || f == "NDHWC" || f == "NWC") return true;
  if (f == "NCHW" || f == "NCDHW" || f == "NCW") return false;
  unsupported("data_format " + f + " is not supported");
}

Value* TfCtx::toChannelsFirst(Value* v, int64_t r, const std::string& suffix) {
  std::vector<int64_t> perm = {0, r - 1};
  for (int64_t k = 1; k < r - 1; ++k) perm.push_back(k);
  return op("Transpose", {v}, {{"perm", perm}}, suffix);
}
Value* TfCtx::toChannelsLast(Value* v, int64_t r, const std::string& suffix) {
  std::vector<int64_t> perm = {0};
  for (int64_t k = 2; k < r; ++k) perm.push_back(k);
  perm.push_back(1);
  return op("Transpose", {v}, {{"perm", perm}}, suffix);
}

std::vector<int64_t> TfCtx::spatialOf(const std::vector<int64_t>& perDim, int64_t r) const {
  if ((int64_t)perDim.size() != r) invalid("an attribute has " + std::to_string(perDim.size()) + " values, " +
                                           std::to_string(r) + " expected");
  bool last = channelsLast();
  std::vector<int64_t> s;
  for (int64_t k = 0; k < r - 2; ++k) s.push_back(perDim[last ? 1 + k : 2 + k]);
  return s;
}

void TfCtx::unsupported(const std::string& why) const {
  throw AtcError("E19010", "Op [" + def.name() + ", " + def.op() + "] cannot be converted: " + why + ".",
                 "Change the model so that this node is supported, or cut the graph before it with --out_nodes.");
}
void invalidNode(const tfproto::NodeDef& def, const std::string& why) {
  throw AtcError("E10041", "Failed to load the model: node [" + def.name() + "] (" + def.op() + ") is invalid: " +
                               why + ".",
                 "Check that the model is a valid frozen TensorFlow graph.");
}
void TfCtx::invalid(const std::string& why) const { invalidNode(def, why); }
void TfInputs::missing(size_t i) const {
  invalidNode(*def_, "it has " + std::to_string(v_.size()) + " data input(s); input " + std::to_string(i) + " is needed");
}

const ConverterTable& converterTable() {
  static const ConverterTable table = [] {
    ConverterTable t;
    registerNnConverters(t);
    registerMathConverters(t);
    registerArrayConverters(t);
    registerQuantConverters(t);
    return t;
  }();
  return table;
}

}  // namespace tffe
}  // namespace atc
