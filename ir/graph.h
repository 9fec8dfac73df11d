// The one graph IR: values (tensors), nodes (ops with ONNX-style names and attributes), graph.
#pragma once
#include <cstdint>
#include <list>
#include <set>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ir/tensor.h"

namespace atc {

class Node;

// Attribute values. Floats are stored as double; float lists as vector<double>.
using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>,
                               std::vector<double>, std::vector<std::string>, TensorPtr>;

class Value {
 public:
  std::string name;
  TensorType type;
  TensorPtr constant;          // non-null: compile-time constant (initializer or folded)
  Node* producer = nullptr;    // null for graph inputs and constants
  int producerIndex = 0;
  // The output of an op whose shape depends on input values (NonZero, TopK with a run-time k,
  // ...): type.shape is an upper bound, the data is stored densely in the actual shape and the
  // producing kernel writes the actual dims (int64, one per dim) after the bound's bytes
  // (dataShapeOffset). Printed as `bound` after the type. Such values are graph outputs only
  // (docs/dynamic-shapes.md, "Outputs whose shape depends on data").
  // With -1 dims in type.shape (no static bound: Expand or Resize with a run-time shape) the
  // value is run-sized (isRunSized): its kernel writes the dims into a slot of their own in a
  // size pass and the runtime allocates the data per run (docs/dynamic-shapes.md, "Run-sized").
  bool shapeFromData = false;
  bool isConstant() const { return constant != nullptr; }
};

// Byte offset of a shapeFromData value's actual dims in its buffer (the bound's bytes rounded
// up to 8), and the buffer size that holds both.
int64_t dataShapeOffset(const TensorType& t);
int64_t dataShapeBufferBytes(const TensorType& t);
// A shapeFromData value with no static bound: its size is decided by each run.
inline bool isRunSized(const Value* v) { return v && v->shapeFromData && !v->type.isStatic(); }
// Bytes of a run-sized value's dims slot in the arena (int64 per dim, at most kRunSizedMaxRank).
constexpr int64_t kRunSizedMaxRank = 8;
constexpr int64_t kRunSizedDimsBytes = 8 * kRunSizedMaxRank;

class Node {
 public:
  std::string type;    // op type, ONNX naming ("Conv", "Add", ...)
  std::string name;    // unique node name (from the model, or generated)
  std::string domain;  // "" for the default domain
  std::map<std::string, AttrValue> attrs;
  std::vector<Value*> inputs;   // nullptr = optional input absent
  std::vector<Value*> outputs;  // nullptr never; unused optional outputs are still values

  Value* input(size_t i) const { return i < inputs.size() ? inputs[i] : nullptr; }
  Value* output(size_t i) const { return i < outputs.size() ? outputs[i] : nullptr; }
  bool hasAttr(const std::string& k) const { return attrs.count(k) != 0; }
  int64_t attrInt(const std::string& k, int64_t def) const;
  double attrFloat(const std::string& k, double def) const;
  std::string attrString(const std::string& k, const std::string& def) const;
  std::vector<int64_t> attrInts(const std::string& k, const std::vector<int64_t>& def = {}) const;
  std::vector<double> attrFloats(const std::string& k, const std::vector<double>& def = {}) const;
  TensorPtr attrTensor(const std::string& k) const;
  // Names of original nodes this node was made from (fusion keeps them for per-op options).
  std::vector<std::string> originalNames;
};

class Graph {
 public:
  std::string name;
  std::vector<Value*> inputs;    // runtime-fed inputs, in model order
  std::vector<Value*> outputs;   // graph outputs, in model order
  int64_t opsetVersion = 0;      // default-domain opset of the source model

  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Creates a value owned by the graph; the name is made unique if taken.
  Value* newValue(const std::string& name, const TensorType& type = TensorType());
  Value* newConstant(const std::string& name, TensorPtr data);
  // Gives a and b each other's names (a frontend binding a value it made to a model's name).
  void swapNames(Value* a, Value* b);
  // Creates a node appended at the end of the node list; sets producer of outputs.
  Node* addNode(const std::string& type, const std::string& name,
                const std::vector<Value*>& inputs, const std::vector<Value*>& outputs);
  // Removes the node (its outputs' producer becomes null; values stay).
  void removeNode(Node* n);
  // Removes all of them in one walk of the node list (removeNode is linear in the graph).
  void removeNodes(const std::set<Node*>& ns);
  // For every value, the number of distinct nodes that read it (one walk; users() walks the
  // whole graph per call, so passes that ask for every node use this instead).
  std::map<const Value*, int> userCounts() const;
  // Replaces every use of `from` (node inputs and graph outputs) with `to`.
  void replaceAllUses(Value* from, Value* to);
  // Nodes that read v, in node order.
  std::vector<Node*> users(const Value* v) const;
  bool isGraphOutput(const Value* v) const;
  // Sorts nodes topologically (stable: keeps existing order where possible).
  // Throws AtcError if there is a cycle.
  void topoSort();
  // Puts the nodes in `order`, which must hold every node once (backend/loop_schedule.h).
  void setNodeOrder(const std::vector<Node*>& order);
  // Removes values no node, input or output refers to.
  void pruneValues();

  std::list<std::unique_ptr<Node>>& nodes() { return nodes_; }
  const std::list<std::unique_ptr<Node>>& nodes() const { return nodes_; }
  const std::vector<std::unique_ptr<Value>>& values() const { return values_; }
  Value* findValue(const std::string& name) const;
  Node* findNode(const std::string& name) const;
  std::string uniqueNodeName(const std::string& base);

 private:
  std::list<std::unique_ptr<Node>> nodes_;
  std::vector<std::unique_ptr<Value>> values_;
  std::map<std::string, Value*> valueByName_;
  std::map<std::string, int> nodeNames_;
  std::map<std::string, int> valueSuffix_;  // next suffix to try per base name (no quadratic search)
};

}  // namespace atc
