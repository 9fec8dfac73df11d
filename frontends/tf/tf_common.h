// Small helpers shared by the TF converter files.
#pragma once
#include <cstdint>

#include "ir/dtype.h"

namespace atc {
namespace tffe {

// ONNX TensorProto element type number of an IR dtype (the IR Cast's "to" attribute).
inline int64_t onnxTypeOf(DType t) {
  switch (t) {
    case DType::F32: return 1;
    case DType::U8: return 2;
    case DType::I8: return 3;
    case DType::U16: return 4;
    case DType::I16: return 5;
    case DType::I32: return 6;
    case DType::I64: return 7;
    case DType::Bool: return 9;
    case DType::F16: return 10;
    case DType::F64: return 11;
    case DType::U32: return 12;
    case DType::U64: return 13;
    case DType::BF16: return 16;
    default: return 0;
  }
}

constexpr int64_t kInt64Max = INT64_MAX;

}  // namespace tffe
}  // namespace atc
