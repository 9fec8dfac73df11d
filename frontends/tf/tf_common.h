// Small helpers shared by the TF converter files.
#pragma once
#include <cstdint>

#include "ir/dtype.h"

namespace atc {
namespace tffe {

// ONNX TensorProto element type number of an IR dtype (the IR Cast's "to" attribute).
inline int64_t onnxTypeOf(DType t) { return onnxCodeOf(t); }

constexpr int64_t kInt64Max = INT64_MAX;

}  // namespace tffe
}  // namespace atc
