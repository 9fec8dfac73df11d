// Types and small constants of values while a graph is still being imported: what the
// control-flow lowering (onnx_control_flow.h, tf_while.h) must know before the passes run: a trip
// count, an If's condition, a Scan's length, the shapes of branch outputs. Each producer in a
// value's cone is inferred on a scratch copy whose inputs are the values folded so far, and
// evaluated with the native kernels when all its inputs fold and its outputs are small; the
// graph itself is left as it is but for the types of the values visited (the passes infer
// and fold again).
#pragma once
#include <map>
#include <set>

#include "ir/graph.h"

namespace atc {
namespace frontend {

class ImportEval {
 public:
  // Outputs of more elements than this are typed but not folded (shape arithmetic is small;
  // folding a large tensor at import would only cost time).
  static constexpr int64_t kMaxFoldElems = 1 << 16;

  explicit ImportEval(Graph& g) : g_(g) {}
  // v's type, inferred (with those of the values it depends on) where the inputs allow it.
  const TensorType& typeOf(Value* v);
  // v's contents when they fold to a constant, else null.
  TensorPtr constantOf(Value* v);

 private:
  void visit(Value* root);
  void evalProducer(Node* n);
  static TensorPtr shapeOnly(const Node& n);

  Graph& g_;
  std::map<const Value*, TensorPtr> folded_;
  std::set<const Value*> visited_;
  std::set<const Node*> evaluated_;
};

}  // namespace frontend
}  // namespace atc
