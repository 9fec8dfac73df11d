// TensorFlow TensorProto / DataType / TensorShapeProto -> IR tensors and types.
#pragma once
#include <string>

#include "frontends/tf/tf_graph.pb.h"
#include "ir/tensor.h"

namespace atc {
namespace tffe {

// False for types with no IR equivalent (string, complex, quantised, resource, variant).
bool dtypeFromTf(int tfType, DType* out);
std::string tfTypeName(int tfType);
// Dims of a TensorShapeProto; -1 for unknown dims. *known = false for unknown rank.
Shape shapeFromTf(const tfproto::TensorShapeProto& s, bool* known);
// All encodings: tensor_content, typed value lists, and the splat of fewer values than
// elements (the last value repeats). `where` names the node in error messages (E10041).
TensorPtr tensorFromTf(const tfproto::TensorProto& t, const std::string& where);

}  // namespace tffe
}  // namespace atc
