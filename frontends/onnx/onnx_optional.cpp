// See onnx_optional.h.
#include "frontends/onnx/onnx_optional.h"

#include "support/diagnostics.h"

namespace atc {
namespace onnxfe {

bool isOptionalNode(const onnx::NodeProto& n) {
  return (n.domain().empty() || n.domain() == "ai.onnx") &&
         (n.op_type() == "Optional" || n.op_type() == "OptionalHasElement" || n.op_type() == "OptionalGetElement");
}

Value* boolConstant(Graph& g, const std::string& name, bool v) {
  return g.newConstant(name, makeScalar(v ? 1 : 0, DType::Bool));
}

Value* Optionals::adopt(Graph& g, const std::string& name, OptionalValue o) {
  Value* marker = g.newConstant(name + "/optional", makeScalar(0, DType::F32));
  opts_[marker] = o;
  return marker;
}

std::vector<Value*> Optionals::lower(Graph& g, frontend::ImportEval& ev, const onnx::NodeProto& n,
                                     const std::string& name, const std::vector<Value*>& ins) {
  const std::string& op = n.op_type();
  Value* x = ins.empty() ? nullptr : ins[0];
  auto invalid = [&](const std::string& why) {
    throw AtcError("E10041", "Failed to load the model: node [" + name + "] (" + op + ") " + why + ".",
                   "Check that the model is a valid ONNX model.");
  };
  if (op == "Optional") {
    if (isOptional(x)) invalid("wraps an optional in an optional");
    return {adopt(g, name, {boolConstant(g, name + "/has", x != nullptr), x})};
  }
  if (op == "OptionalHasElement") {  // opset 18: a tensor or a sequence has an element; absent: none
    if (!isOptional(x)) return {boolConstant(g, name, x != nullptr)};
    return {get(x).has};
  }
  // OptionalGetElement: opset 18 passes a tensor or sequence through.
  if (!x) invalid("has no input");
  if (!isOptional(x)) return {x};
  const OptionalValue& o = get(x);
  TensorPtr has = ev.constantOf(o.has);
  if ((has && has->intAt(0) == 0) || !o.payload)
    throw AtcError("E19010",
                   "Op [" + name + ", " + op + "] cannot be compiled: the optional it reads holds no value" +
                       (has ? "" : " on some run") + ".",
                   "Check OptionalHasElement before reading the optional, in a branch of its own.");
  return {o.payload};
}

}  // namespace onnxfe
}  // namespace atc
