#include "ir/dtype.h"

#include <cmath>

namespace atc {

size_t dtypeSize(DType t) {
  switch (t) {
    case DType::F32: case DType::I32: case DType::U32: return 4;
    case DType::F16: case DType::BF16: case DType::I16: case DType::U16: return 2;
    case DType::F64: case DType::I64: case DType::U64: return 8;
    case DType::I8: case DType::U8: case DType::Bool: return 1;
    case DType::F8E4M3FN: case DType::F8E4M3FNUZ: case DType::F8E5M2: case DType::F8E5M2FNUZ:
    case DType::F8E8M0: case DType::F4E2M1: case DType::I4: case DType::U4: case DType::I2: case DType::U2:
      return 1;
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
    // ml_dtypes' names (the numpy extension types of JAX and ONNX's reference).
    case DType::F8E4M3FN: return "float8_e4m3fn";
    case DType::F8E4M3FNUZ: return "float8_e4m3fnuz";
    case DType::F8E5M2: return "float8_e5m2";
    case DType::F8E5M2FNUZ: return "float8_e5m2fnuz";
    case DType::F8E8M0: return "float8_e8m0fnu";
    case DType::F4E2M1: return "float4_e2m1fn";
    case DType::I4: return "int4";
    case DType::U4: return "uint4";
    case DType::I2: return "int2";
    case DType::U2: return "uint2";
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
      {"float8_e4m3fn", DType::F8E4M3FN}, {"float8_e4m3fnuz", DType::F8E4M3FNUZ}, {"float8_e5m2", DType::F8E5M2},
      {"float8_e5m2fnuz", DType::F8E5M2FNUZ}, {"float8_e8m0fnu", DType::F8E8M0}, {"float4_e2m1fn", DType::F4E2M1},
      {"int4", DType::I4}, {"uint4", DType::U4}, {"int2", DType::I2}, {"uint2", DType::U2},
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
bool isCastOnly(DType t) { return (int32_t)t >= (int32_t)DType::F8E4M3FN && (int32_t)t <= (int32_t)DType::U2; }
int dtypeBits(DType t) {
  if (t == DType::I4 || t == DType::U4 || t == DType::F4E2M1) return 4;
  if (t == DType::I2 || t == DType::U2) return 2;
  return (int)dtypeSize(t) * 8;
}

// The decoding half of kernels/lib/cast_lp.h (the kernels' copy, which also encodes), for
// constants in the IR (printing, passes reading constant values).
double castOnlyFloatValue(DType t, uint8_t b) {
  int eb = 4, mb = 3, bias = 7;
  if (t == DType::F8E4M3FNUZ) bias = 8;
  if (t == DType::F8E5M2) eb = 5, mb = 2, bias = 15;
  if (t == DType::F8E5M2FNUZ) eb = 5, mb = 2, bias = 16;
  if (t == DType::F4E2M1) eb = 2, mb = 1, bias = 1;
  if (t == DType::F8E8M0) return b == 0xff ? NAN : std::ldexp(1.0, (int)b - 127);
  const bool fnuz = t == DType::F8E4M3FNUZ || t == DType::F8E5M2FNUZ;
  const int sbit = 1 << (eb + mb);
  if (fnuz && b == 0x80) return NAN;
  const int mag = b & (sbit - 1), e = mag >> mb, m = mag & ((1 << mb) - 1);
  double v;
  if (t == DType::F8E4M3FN && mag == 0x7f) v = NAN;
  else if (t == DType::F8E5M2 && e == 31) v = m ? NAN : INFINITY;
  else v = e ? std::ldexp(1.0 + m / (double)(1 << mb), e - bias) : std::ldexp(m / (double)(1 << mb), 1 - bias);
  return (b & sbit) ? -v : v;
}

namespace {
struct OnnxCode {
  int64_t code;
  DType t;
};
constexpr OnnxCode kOnnxCodes[] = {
    {1, DType::F32}, {2, DType::U8},   {3, DType::I8},   {4, DType::U16},  {5, DType::I16},
    {6, DType::I32}, {7, DType::I64},  {9, DType::Bool}, {10, DType::F16}, {11, DType::F64},
    {12, DType::U32}, {13, DType::U64}, {16, DType::BF16},
    {17, DType::F8E4M3FN}, {18, DType::F8E4M3FNUZ}, {19, DType::F8E5M2}, {20, DType::F8E5M2FNUZ},
    {21, DType::U4}, {22, DType::I4}, {23, DType::F4E2M1}, {24, DType::F8E8M0}, {25, DType::U2}, {26, DType::I2}};
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
