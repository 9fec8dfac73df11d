// ONNX TensorProto / element types -> IR tensors and dtypes.
#pragma once
#include <onnx/onnx_pb.h>

#include <string>

#include "ir/tensor.h"

namespace atc {
namespace onnxfe {

// ONNX TensorProto::DataType -> DType. False for types the IR does not have (string,
// complex, float8...).
bool dtypeFromOnnx(int onnxType, DType* out);
// A readable name of an ONNX element type ("STRING", "COMPLEX64", ...).
std::string onnxTypeName(int onnxType);

// Converts a tensor (typed fields, raw_data, or external data relative to modelDir).
// Throws AtcError E10041 (bad data) or E19010 (unsupported element type).
TensorPtr tensorFromOnnx(const onnx::TensorProto& t, const std::string& modelDir,
                         const std::string& modelPath);

}  // namespace onnxfe
}  // namespace atc
