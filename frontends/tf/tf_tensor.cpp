#include "frontends/tf/tf_tensor.h"

#include <cstring>

#include "support/diagnostics.h"

namespace atc {
namespace tffe {

bool dtypeFromTf(int t, DType* out) {
  if (t > 100) t -= 100;  // reference types
  switch (t) {
    case tfproto::DT_FLOAT: *out = DType::F32; return true;
    case tfproto::DT_DOUBLE: *out = DType::F64; return true;
    case tfproto::DT_INT32: *out = DType::I32; return true;
    case tfproto::DT_UINT8: *out = DType::U8; return true;
    case tfproto::DT_INT16: *out = DType::I16; return true;
    case tfproto::DT_INT8: *out = DType::I8; return true;
    case tfproto::DT_INT64: *out = DType::I64; return true;
    case tfproto::DT_BOOL: *out = DType::Bool; return true;
    case tfproto::DT_BFLOAT16: *out = DType::BF16; return true;
    case tfproto::DT_UINT16: *out = DType::U16; return true;
    case tfproto::DT_HALF: *out = DType::F16; return true;
    case tfproto::DT_UINT32: *out = DType::U32; return true;
    case tfproto::DT_UINT64: *out = DType::U64; return true;
    // Quantized types hold plain integers; only Dequantize (ops/tf_quant.cpp) gives them meaning.
    case tfproto::DT_QINT8: *out = DType::I8; return true;
    case tfproto::DT_QUINT8: *out = DType::U8; return true;
    case tfproto::DT_QINT16: *out = DType::I16; return true;
    case tfproto::DT_QUINT16: *out = DType::U16; return true;
    case tfproto::DT_QINT32: *out = DType::I32; return true;
    default: return false;
  }
}

std::string tfTypeName(int t) {
  if (tfproto::DataType_IsValid(t)) return tfproto::DataType_Name((tfproto::DataType)t);
  return "DataType(" + std::to_string(t) + ")";
}

Shape shapeFromTf(const tfproto::TensorShapeProto& s, bool* known) {
  *known = !s.unknown_rank();
  Shape r;
  if (!*known) return r;
  for (const auto& d : s.dim()) r.push_back(d.size() >= 0 ? d.size() : -1);
  return r;
}

namespace {

constexpr int64_t kMaxSplatConstantBytes = int64_t(1) << 30;

[[noreturn]] void bad(const std::string& where, const std::string& why) {
  throw AtcError("E10041", "Failed to load the model: the constant of node [" + where + "] is invalid: " + why,
                 "Check that the model is a valid frozen TensorFlow graph.");
}

// Fills n elements from a typed list of `count` values (splat when 0 < count < n).
template <class T, class Get>
void fill(Tensor& t, int64_t n, int count, Get get, const std::string& where) {
  if (count > n) bad(where, "it has more values than elements");
  T* p = t.as<T>();
  if (count == 0) return;  // zeros (already)
  for (int64_t i = 0; i < n; ++i) p[i] = (T)get(i < count ? i : count - 1);
}

}  // namespace

TensorPtr tensorFromTf(const tfproto::TensorProto& tp, const std::string& where) {
  DType dt;
  if (!dtypeFromTf(tp.dtype(), &dt))
    throw AtcError("E19010", "The constant of node [" + where + "] has the type " + tfTypeName(tp.dtype()) +
                                 ", which is not supported.",
                   "Use numeric or bool constants.");
  bool known;
  Shape shape = shapeFromTf(tp.tensor_shape(), &known);
  if (!known) bad(where, "its shape has unknown rank");
  for (int64_t d : shape)
    if (d < 0) bad(where, "its shape has a negative dim");
  TensorType type(dt, shape);
  // A constant without tensor_content is a list of values repeated to fill its shape: a few
  // bytes of model can declare gigabytes. Its declared size is bounded before it is allocated.
  if (tp.tensor_content().empty() && type.byteSize() > kMaxSplatConstantBytes)
    bad(where, "its " + std::to_string(type.byteSize()) + " bytes (" + type.str() +
                   ") would be expanded from a list of values; at most " + std::to_string(kMaxSplatConstantBytes) +
                   " bytes are (store a large constant in tensor_content)");
  auto t = std::make_shared<Tensor>(type);
  const int64_t n = t->type.numel();
  if (!tp.tensor_content().empty()) {
    if ((int64_t)tp.tensor_content().size() != t->type.byteSize())
      bad(where, "tensor_content has " + std::to_string(tp.tensor_content().size()) + " bytes, " +
                     std::to_string(t->type.byteSize()) + " expected for " + t->type.str());
    std::memcpy(t->data.data(), tp.tensor_content().data(), t->data.size());
    return t;
  }
  switch (dt) {
    case DType::F32: fill<float>(*t, n, tp.float_val_size(), [&](int i) { return tp.float_val(i); }, where); break;
    case DType::F64: fill<double>(*t, n, tp.double_val_size(), [&](int i) { return tp.double_val(i); }, where); break;
    case DType::I32: fill<int32_t>(*t, n, tp.int_val_size(), [&](int i) { return tp.int_val(i); }, where); break;
    case DType::I16: fill<int16_t>(*t, n, tp.int_val_size(), [&](int i) { return tp.int_val(i); }, where); break;
    case DType::I8: fill<int8_t>(*t, n, tp.int_val_size(), [&](int i) { return tp.int_val(i); }, where); break;
    case DType::U8: fill<uint8_t>(*t, n, tp.int_val_size(), [&](int i) { return tp.int_val(i); }, where); break;
    case DType::U16: fill<uint16_t>(*t, n, tp.int_val_size(), [&](int i) { return tp.int_val(i); }, where); break;
    case DType::I64: fill<int64_t>(*t, n, tp.int64_val_size(), [&](int i) { return tp.int64_val(i); }, where); break;
    case DType::U32: fill<uint32_t>(*t, n, tp.uint32_val_size(), [&](int i) { return tp.uint32_val(i); }, where); break;
    case DType::U64: fill<uint64_t>(*t, n, tp.uint64_val_size(), [&](int i) { return tp.uint64_val(i); }, where); break;
    case DType::Bool: fill<uint8_t>(*t, n, tp.bool_val_size(), [&](int i) { return tp.bool_val(i) ? 1 : 0; }, where); break;
    case DType::F16:
    case DType::BF16:  // bit patterns in half_val
      fill<uint16_t>(*t, n, tp.half_val_size(), [&](int i) { return (uint16_t)tp.half_val(i); }, where);
      break;
    default: bad(where, "unsupported dtype");
  }
  return t;
}

}  // namespace tffe
}  // namespace atc
