// Element types of tensors in the IR, the .om and the kernels.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace atc {

// The numeric values are stored in the .om and passed to kernels: never renumber.
enum class DType : int32_t {
  Undefined = 0,
  F32 = 1,
  F16 = 2,
  BF16 = 3,
  F64 = 4,
  I64 = 5,
  I32 = 6,
  I16 = 7,
  I8 = 8,
  U8 = 9,
  U16 = 10,
  U32 = 11,
  U64 = 12,
  Bool = 13,
};

size_t dtypeSize(DType t);
const char* dtypeName(DType t);           // "float32", "float16", "int64", ...
bool dtypeFromName(const std::string& s, DType* out);  // accepts our names and numpy-style names
bool isFloat(DType t);
bool isInteger(DType t);   // signed or unsigned, not bool
bool isSigned(DType t);
// ONNX TensorProto.DataType codes (Cast's "to", EyeLike's "dtype", the ONNX frontend):
// Undefined / 0 for the types the IR does not have (string, complex, float8...).
DType dtypeFromOnnxCode(int64_t code);
int64_t onnxCodeOf(DType t);

}  // namespace atc
