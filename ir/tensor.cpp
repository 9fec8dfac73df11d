#include "ir/tensor.h"

#include <cmath>
#include <sstream>

#include "support/checked_math.h"
#include "support/diagnostics.h"

namespace atc {

bool TensorType::isStatic() const {
  if (!shapeKnown) return false;
  for (auto d : shape)
    if (d < 0) return false;
  return true;
}

int64_t TensorType::numel() const {
  int64_t n = -1;
  if (!isStatic() || !shapeSize(shape, dtypeSize(dtype), &n, nullptr)) return -1;
  return n;
}

int64_t TensorType::byteSize() const {
  int64_t b = -1;
  if (!isStatic() || !shapeSize(shape, dtypeSize(dtype), nullptr, &b)) return -1;
  return b;
}

size_t checkedBytes(const TensorType& t) {
  if (!t.sizeFits())
    throw AtcError("E19999", "A tensor of type " + t.str() + " is too large: its size overflows or exceeds " +
                                 std::to_string(kMaxTensorBytes) + " bytes.",
                   "Check the model's shapes and --input_shape.");
  return (size_t)std::max<int64_t>(t.byteSize(), 0);
}

bool TensorType::sizeFits() const { return !isStatic() || shapeSize(shape, dtypeSize(dtype), nullptr, nullptr); }

std::string TensorType::str() const {
  std::ostringstream os;
  os << dtypeName(dtype);
  if (!shapeKnown) { os << "[?]"; return os.str(); }
  os << "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) os << ",";
    if (shape[i] < 0) os << "?"; else os << shape[i];
  }
  os << "]";
  return os.str();
}

namespace {
// A float as an int64, saturated (a plain cast of inf, NaN or a value beyond int64 is undefined
// behaviour; these reach shape arithmetic from crafted models): NaN -> 0.
int64_t saturatingInt64(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9223372036854775807.0) return INT64_MAX;
  if (v <= -9223372036854775808.0) return INT64_MIN;
  return (int64_t)v;
}
}  // namespace

int64_t Tensor::intAt(int64_t i) const {
  switch (type.dtype) {
    case DType::I64: return as<int64_t>()[i];
    case DType::I32: return as<int32_t>()[i];
    case DType::I16: return as<int16_t>()[i];
    case DType::I8: return as<int8_t>()[i];
    case DType::U8: return as<uint8_t>()[i];
    case DType::U16: return as<uint16_t>()[i];
    case DType::U32: return as<uint32_t>()[i];
    case DType::U64: return (int64_t)as<uint64_t>()[i];
    case DType::Bool: return as<uint8_t>()[i] ? 1 : 0;
    case DType::F32: return saturatingInt64(as<float>()[i]);
    case DType::F64: return saturatingInt64(as<double>()[i]);
    case DType::F16: return saturatingInt64(halfToFloat(as<uint16_t>()[i]));
    case DType::BF16: return saturatingInt64(bf16ToFloat(as<uint16_t>()[i]));
    case DType::I4: case DType::I2: return as<int8_t>()[i];
    case DType::U4: case DType::U2: return as<uint8_t>()[i];
    case DType::F8E4M3FN: case DType::F8E4M3FNUZ: case DType::F8E5M2: case DType::F8E5M2FNUZ:
    case DType::F8E8M0: case DType::F4E2M1:
      return saturatingInt64(castOnlyFloatValue(type.dtype, as<uint8_t>()[i]));
    default: internalError("intAt on undefined dtype");
  }
}

double Tensor::floatAt(int64_t i) const {
  switch (type.dtype) {
    case DType::F32: return as<float>()[i];
    case DType::F64: return as<double>()[i];
    case DType::F16: return halfToFloat(as<uint16_t>()[i]);
    case DType::BF16: return bf16ToFloat(as<uint16_t>()[i]);
    case DType::U64: return (double)as<uint64_t>()[i];
    case DType::F8E4M3FN: case DType::F8E4M3FNUZ: case DType::F8E5M2: case DType::F8E5M2FNUZ:
    case DType::F8E8M0: case DType::F4E2M1:
      return castOnlyFloatValue(type.dtype, as<uint8_t>()[i]);
    default: return (double)intAt(i);
  }
}

std::vector<int64_t> Tensor::toInts() const {
  int64_t n = type.numel();
  std::vector<int64_t> r((size_t)std::max<int64_t>(n, 0));
  for (int64_t i = 0; i < n; ++i) r[(size_t)i] = intAt(i);
  return r;
}

TensorPtr makeIntTensor(const std::vector<int64_t>& v, DType dt, bool scalar) {
  auto t = std::make_shared<Tensor>(TensorType(dt, scalar ? Shape{} : Shape{(int64_t)v.size()}));
  for (size_t i = 0; i < v.size(); ++i) {
    switch (dt) {
      case DType::I64: t->as<int64_t>()[i] = v[i]; break;
      case DType::I32: t->as<int32_t>()[i] = (int32_t)v[i]; break;
      default: internalError("makeIntTensor: unsupported dtype");
    }
  }
  return t;
}

TensorPtr makeScalar(double v, DType dt) {
  auto t = std::make_shared<Tensor>(TensorType(dt, Shape{}));
  switch (dt) {
    case DType::F32: t->as<float>()[0] = (float)v; break;
    case DType::F64: t->as<double>()[0] = v; break;
    case DType::F16: t->as<uint16_t>()[0] = floatToHalf((float)v); break;
    case DType::BF16: t->as<uint16_t>()[0] = floatToBf16((float)v); break;
    case DType::I64: t->as<int64_t>()[0] = (int64_t)v; break;
    case DType::I32: t->as<int32_t>()[0] = (int32_t)v; break;
    case DType::I16: t->as<int16_t>()[0] = (int16_t)v; break;
    case DType::I8: t->as<int8_t>()[0] = (int8_t)v; break;
    case DType::U8: case DType::Bool: t->as<uint8_t>()[0] = (uint8_t)v; break;
    case DType::U16: t->as<uint16_t>()[0] = (uint16_t)v; break;
    case DType::U32: t->as<uint32_t>()[0] = (uint32_t)v; break;
    case DType::U64: t->as<uint64_t>()[0] = (uint64_t)v; break;
    default: internalError("makeScalar: undefined dtype");
  }
  return t;
}

}  // namespace atc
