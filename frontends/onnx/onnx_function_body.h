// Building an op's function body as ONNX nodes before import (docs/frontend-onnx.md): ops
// of newer opsets whose ONNX definition is a function of ops the importer has (Attention,
// RotaryEmbedding) are replaced by that body, and the passes see ordinary ops.
#pragma once
#include <onnx/onnx_pb.h>

#include <functional>
#include <string>
#include <vector>

namespace atc {
namespace onnxfe {

bool isDefault(const std::string& domain);

// Element type and rank of a value known from the graph's declarations (-1 when unknown).
struct Declared {
  int elemType = 0;
  int rank = -1;
  std::vector<int64_t> dims;  // -1: unknown
};
Declared declared(const onnx::GraphProto& g, const std::string& name);

std::string input(const onnx::NodeProto& n, int i);   // "" when absent
std::string output(const onnx::NodeProto& n, int i);  // "" when absent

// The function body of one node, built as NodeProtos; values are named "<node>/<part>" so
// they cannot meet the model's own names.
class Body {
 public:
  explicit Body(std::string prefix) : pre_(std::move(prefix)) {}
  std::vector<onnx::NodeProto> nodes;
  int rank = 4;       // of the main input (Attention: Q, K and V)
  int qElemType = 0;  // the main input's element type when the model declares it (0: unknown)

  // x in q's element type: a Cast when that type is declared (a constant x then folds), else
  // a CastLike of q.
  std::string like(const std::string& x, const std::string& q, const std::string& part);
  std::string v(const std::string& part) const { return pre_ + "/" + part; }
  onnx::NodeProto& add(const std::string& type, const std::vector<std::string>& ins, const std::string& out);
  // One op with a fresh output "<node>/<part>"; returns the output's name.
  std::string op(const std::string& type, const std::vector<std::string>& ins, const std::string& part);
  std::string shape(const std::string& x, int64_t start, int64_t end, const std::string& part);
  std::string constInts(const std::vector<int64_t>& vals, const std::string& part, bool scalar = false);
  std::string constFloat(float x, const std::string& part);
  std::string concat(const std::vector<std::string>& ins, const std::string& part, int64_t axis = 0);
  static void intAttr(onnx::NodeProto& n, const std::string& name, int64_t x);
  static void intsAttr(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& xs);

 private:
  static onnx::TensorProto* tensorAttr(onnx::NodeProto& n);
  std::string pre_;
};

// Replaces every default-domain node of type opType in the main graph by the body expand
// builds for it, in place (the graph stays in topological order). Returns how many.
int expandFunctionNodes(onnx::ModelProto* model, const std::string& opType,
                        const std::function<void(Body&, const onnx::GraphProto&, const onnx::NodeProto&)>& expand);

}  // namespace onnxfe
}  // namespace atc
