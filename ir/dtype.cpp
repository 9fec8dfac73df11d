#include "ir/dtype.h"

namespace atc {

size_t dtypeSize(DType t) {
  switch (t) {
    case DType::F32: case DType::I32: case DType::U32: return 4;
    case DType::F16: case DType::BF16: case DType::I16: case DType::U16: return 2;
    case DType::F64: case DType::I64: case DType::U64: return 8;
    case DType::I8: case DType::U8: case DType::Bool: return 1;
    case DType::Undefined: return 0;
  }
  return 0;
}

const char* dtypeName(DType t) {
  switch (t) {
    case DType::F32: return "float32";
    case DType::F16: return "float16";
    case DType::BF16: return "bfloat16";
    case DType::F64: return "float64";
    case DType::I64: return "int64";
    case DType::I32: return "int32";
    case DType::I16: return "int16";
    case DType::I8: return "int8";
    case DType::U8: return "uint8";
    case DType::U16: return "uint16";
    case DType::U32: return "uint32";
    case DType::U64: return "uint64";
    case DType::Bool: return "bool";
    case DType::Undefined: return "undefined";
  }
  return "undefined";
}

bool dtypeFromName(const std::string& s, DType* out) {
  static const struct { const char* n; DType t; } kNames[] = {
      {"float32", DType::F32}, {"float", DType::F32}, {"fp32", DType::F32}, {"FP32", DType::F32},
      {"float16", DType::F16}, {"fp16", DType::F16}, {"FP16", DType::F16}, {"half", DType::F16},
      {"bfloat16", DType::BF16}, {"bf16", DType::BF16}, {"BF16", DType::BF16},
      {"float64", DType::F64}, {"double", DType::F64},
      {"int64", DType::I64}, {"INT64", DType::I64}, {"int32", DType::I32}, {"INT32", DType::I32},
      {"int16", DType::I16}, {"int8", DType::I8}, {"INT8", DType::I8},
      {"uint8", DType::U8}, {"UINT8", DType::U8}, {"uint16", DType::U16},
      {"uint32", DType::U32}, {"uint64", DType::U64}, {"bool", DType::Bool},
  };
  for (auto& e : kNames)
    if (s == e.n) { *out = e.t; return true; }
  return false;
}

bool isFloat(DType t) {
  return t == DType::F32 || t == DType::F16 || t == DType::BF16 || t == DType::F64;
}
bool isInteger(DType t) {
  switch (t) {
    case DType::I64: case DType::I32: case DType::I16: case DType::I8:
    case DType::U8: case DType::U16: case DType::U32: case DType::U64: return true;
    default: return false;
  }
}
bool isSigned(DType t) {
  return t == DType::I64 || t == DType::I32 || t == DType::I16 || t == DType::I8 || isFloat(t);
}

namespace {
struct OnnxCode {
  int64_t code;
  DType t;
};
constexpr OnnxCode kOnnxCodes[] = {
    {1, DType::F32}, {2, DType::U8},   {3, DType::I8},   {4, DType::U16},  {5, DType::I16},
    {6, DType::I32}, {7, DType::I64},  {9, DType::Bool}, {10, DType::F16}, {11, DType::F64},
    {12, DType::U32}, {13, DType::U64}, {16, DType::BF16}};
}  // namespace

DType dtypeFromOnnxCode(int64_t code) {
  for (auto& e : kOnnxCodes)
    if (e.code == code) return e.t;
  return DType::Undefined;
}

int64_t onnxCodeOf(DType t) {
  for (auto& e : kOnnxCodes)
    if (e.t == t) return e.code;
  return 0;
}

}  // namespace atc
