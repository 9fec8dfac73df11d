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
  // Formats that only Cast, CastLike, QuantizeLinear, DequantizeLinear and data movement handle
  // (isCastOnly): one element per byte in the IR, the .om and the runtime, also the 4- and 2-bit
  // ones (ONNX packs those; the importer unpacks them). int4 / int2 bytes hold the value sign-
  // extended, uint4 / uint2 zero-extended, the float formats their bit pattern in the low bits.
  F8E4M3FN = 14,
  F8E4M3FNUZ = 15,
  F8E5M2 = 16,
  F8E5M2FNUZ = 17,
  F8E8M0 = 18,
  F4E2M1 = 19,
  I4 = 20,
  U4 = 21,
  I2 = 22,
  U2 = 23,
};

size_t dtypeSize(DType t);
const char* dtypeName(DType t);           // "float32", "float16", "int64", ...
bool dtypeFromName(const std::string& s, DType* out);  // accepts our names and numpy-style names
bool isFloat(DType t);
bool isInteger(DType t);   // signed or unsigned, not bool
bool isSigned(DType t);
bool isCastOnly(DType t);  // F8E4M3FN .. U2: see the enum
int dtypeBits(DType t);    // bits per element in ONNX's packing: 4 for I4 / U4 / F4E2M1, 2 for I2 / U2, else 8 * size
// The value of a cast-only float format's bit pattern (F8*, F4E2M1; NaN where the format has one).
double castOnlyFloatValue(DType t, uint8_t bits);
// ONNX TensorProto.DataType codes (Cast's "to", EyeLike's "dtype", the ONNX frontend):
// Undefined / 0 for the types the IR does not have (string, complex, float8...).
DType dtypeFromOnnxCode(int64_t code);
int64_t onnxCodeOf(DType t);

}  // namespace atc
