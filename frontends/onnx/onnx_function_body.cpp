#include "frontends/onnx/onnx_function_body.h"

#include <set>

namespace atc {
namespace onnxfe {

bool isDefault(const std::string& d) { return d.empty() || d == "ai.onnx"; }

Declared declared(const onnx::GraphProto& g, const std::string& name) {
  auto fromType = [](const onnx::TypeProto& t) {
    Declared d;
    if (!t.has_tensor_type()) return d;
    d.elemType = t.tensor_type().elem_type();
    if (t.tensor_type().has_shape()) {
      d.rank = t.tensor_type().shape().dim_size();
      for (const auto& dim : t.tensor_type().shape().dim()) d.dims.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
    }
    return d;
  };
  for (const auto& v : g.input())
    if (v.name() == name) return fromType(v.type());
  for (const auto& v : g.value_info())
    if (v.name() == name) return fromType(v.type());
  for (const auto& v : g.output())
    if (v.name() == name) return fromType(v.type());
  for (const auto& t : g.initializer())
    if (t.name() == name) return {t.data_type(), t.dims_size(), std::vector<int64_t>(t.dims().begin(), t.dims().end())};
  return {};
}

std::string input(const onnx::NodeProto& n, int i) { return i < n.input_size() ? n.input(i) : std::string(); }
std::string output(const onnx::NodeProto& n, int i) { return i < n.output_size() ? n.output(i) : std::string(); }

std::string Body::like(const std::string& x, const std::string& q, const std::string& part) {
  if (!qElemType) return op("CastLike", {x, q}, part);
  intAttr(add("Cast", {x}, v(part)), "to", qElemType);
  return v(part);
}

onnx::NodeProto& Body::add(const std::string& type, const std::vector<std::string>& ins, const std::string& out) {
  nodes.emplace_back();
  onnx::NodeProto& n = nodes.back();
  n.set_op_type(type);
  n.set_name(pre_ + "/" + type + "_" + std::to_string(nodes.size()));
  for (const auto& i : ins) n.add_input(i);
  n.add_output(out);
  return n;
}

std::string Body::op(const std::string& type, const std::vector<std::string>& ins, const std::string& part) {
  add(type, ins, v(part));
  return v(part);
}

std::string Body::shape(const std::string& x, int64_t start, int64_t end, const std::string& part) {
  onnx::NodeProto& n = add("Shape", {x}, v(part));
  intAttr(n, "start", start);
  intAttr(n, "end", end);
  return v(part);
}

std::string Body::constInts(const std::vector<int64_t>& vals, const std::string& part, bool scalar) {
  onnx::NodeProto& n = add("Constant", {}, v(part));
  onnx::TensorProto* t = tensorAttr(n);
  t->set_data_type(onnx::TensorProto::INT64);
  if (!scalar) t->add_dims((int64_t)vals.size());
  for (int64_t x : vals) t->add_int64_data(x);
  return v(part);
}

std::string Body::constFloat(float x, const std::string& part) {
  onnx::NodeProto& n = add("Constant", {}, v(part));
  onnx::TensorProto* t = tensorAttr(n);
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(1);
  t->add_float_data(x);
  return v(part);
}

std::string Body::concat(const std::vector<std::string>& ins, const std::string& part, int64_t axis) {
  std::string out = op("Concat", ins, part);
  intAttr(nodes.back(), "axis", axis);
  return out;
}

void Body::intAttr(onnx::NodeProto& n, const std::string& name, int64_t x) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(x);
}

void Body::intsAttr(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& xs) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : xs) a->add_ints(x);
}

onnx::TensorProto* Body::tensorAttr(onnx::NodeProto& n) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  return a->mutable_t();
}

int expandFunctionNodes(onnx::ModelProto* model, const std::string& opType,
                        const std::function<void(Body&, const onnx::GraphProto&, const onnx::NodeProto&)>& expand) {
  onnx::GraphProto* g = model->mutable_graph();
  bool any = false;
  for (const auto& n : g->node()) any = any || (n.op_type() == opType && isDefault(n.domain()));
  if (!any) return 0;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> out;
  std::set<std::string> prefixes;  // node names need not be unique; the value names made here must
  int count = 0;
  for (int i = 0; i < g->node_size(); ++i) {
    const onnx::NodeProto& n = g->node(i);
    if (n.op_type() != opType || !isDefault(n.domain())) {
      *out.Add() = n;
      continue;
    }
    std::string prefix = n.name().empty() ? opType + "_" + std::to_string(i) : n.name();
    if (!prefixes.insert(prefix).second) prefixes.insert(prefix += "_" + std::to_string(i));
    Body b(prefix);
    expand(b, *g, n);
    for (auto& e : b.nodes) *out.Add() = std::move(e);
    ++count;
  }
  g->mutable_node()->Swap(&out);
  return count;
}

}  // namespace onnxfe
}  // namespace atc
