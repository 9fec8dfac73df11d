#include "frontends/onnx/onnx_tensor.h"

#include <cstring>

#include "frontends/onnx/onnx_external_data.h"
#include "support/checked_math.h"
#include "support/diagnostics.h"

namespace atc {
namespace onnxfe {

using TP = onnx::TensorProto;

bool dtypeFromOnnx(int t, DType* out) {
  *out = dtypeFromOnnxCode(t);
  return *out != DType::Undefined;
}

std::string onnxTypeName(int t) {
  if (TP::DataType_IsValid(t)) return TP::DataType_Name((TP::DataType)t);
  const DType dt = dtypeFromOnnxCode(t);
  if (dt != DType::Undefined) return dtypeName(dt);  // codes newer than our onnx.proto (float8, int4...)
  return "type " + std::to_string(t);
}

namespace {

[[noreturn]] void bad(const std::string& modelPath, const std::string& name,
                      const std::string& why) {
  throw AtcError("E10041",
                 "Failed to load the model from [" + modelPath + "]: tensor [" + name + "] " + why,
                 "Check that the model file is a valid, complete ONNX model.");
}

// ONNX packs 4-bit and 2-bit elements into bytes, the first element in the low bits; the IR
// holds one element per byte (ir/dtype.h), int4 / int2 sign-extended.
void unpackSubByte(const uint8_t* packed, Tensor& t) {
  const int bits = dtypeBits(t.type.dtype), per = 8 / bits;
  const bool sgn = t.type.dtype == DType::I4 || t.type.dtype == DType::I2;
  uint8_t* d = t.as<uint8_t>();
  const int64_t n = t.type.numel();
  for (int64_t i = 0; i < n; ++i) {
    int v = (packed[i / per] >> ((i % per) * bits)) & ((1 << bits) - 1);
    if (sgn && (v >> (bits - 1))) v -= 1 << bits;
    d[i] = (uint8_t)(int8_t)v;
  }
}

// A 4- or 2-bit tensor: ceil(n * bits / 8) bytes of raw data, or one packed byte per int32_data
// entry, unpacked to a byte per element.
TensorPtr packedFromOnnx(const TP& p, const TensorType& type, size_t packedBytes, const std::string& name,
                         const std::string& modelPath) {
  const int bits = dtypeBits(type.dtype);
  std::vector<uint8_t> packed(packedBytes);
  if (p.has_raw_data()) {
    if (p.raw_data().size() != packedBytes)
      bad(modelPath, name,
          "has " + std::to_string(p.raw_data().size()) + " bytes of raw data, expected " +
              std::to_string(packedBytes) + " for " + type.str() + " (" + std::to_string(bits) + "-bit, packed)");
    std::memcpy(packed.data(), p.raw_data().data(), packedBytes);
  } else {
    if ((size_t)p.int32_data_size() != packedBytes)
      bad(modelPath, name,
          "has " + std::to_string(p.int32_data_size()) + " int32_data entries, expected " +
              std::to_string(packedBytes) + " for " + type.str() + " (" + std::to_string(bits) + "-bit, packed)");
    for (size_t i = 0; i < packedBytes; ++i) packed[i] = (uint8_t)p.int32_data((int)i);
  }
  auto t = std::make_shared<Tensor>(type);
  unpackSubByte(packed.data(), *t);
  return t;
}

template <class Dst, class Src>
void copyTyped(const Src& src, Tensor& t) {
  Dst* d = t.as<Dst>();
  for (int i = 0; i < src.size(); ++i) d[i] = (Dst)src.Get(i);
}

}  // namespace

TensorPtr tensorFromOnnx(const TP& p, const std::string& modelDir, const std::string& modelPath) {
  const std::string name = p.name().empty() ? std::string("<unnamed>") : p.name();
  DType dt;
  if (!dtypeFromOnnx(p.data_type(), &dt))
    throw AtcError("E19010",
                   "Tensor [" + name + "] has the element type " + onnxTypeName(p.data_type()) +
                       ", which is not supported.",
                   "Use numeric or bool tensors; string and complex tensors are not supported.");
  if (p.has_segment()) bad(modelPath, name, "is segmented, which is not supported");
  Shape shape;
  for (int i = 0; i < p.dims_size(); ++i) {
    if (p.dims(i) < 0) bad(modelPath, name, "has a negative dimension");
    shape.push_back(p.dims(i));
  }
  // Sizes checked before anything is allocated: a tensor claiming 8 GiB with 32 bytes of data
  // is refused here, not after allocating 8 GiB.
  int64_t n = 0, nbytes = 0;
  if (!shapeSize(shape, dtypeSize(dt), &n, &nbytes))
    bad(modelPath, name, "has a shape whose size overflows or exceeds " + std::to_string(kMaxTensorBytes) + " bytes");
  const size_t bytes = (size_t)nbytes;
  const TensorType type(dt, shape);

  const int bits = dtypeBits(dt);
  const size_t packedBytes = (size_t)((n * bits + 7) / 8);  // == bytes for whole-byte types
  if (p.data_location() == TP::EXTERNAL) {
    ExternalDataRef ref;
    for (const auto& kv : p.external_data()) {
      try {
        if (kv.key() == "location") ref.location = kv.value();
        else if (kv.key() == "offset") ref.offset = std::stoll(kv.value());
        else if (kv.key() == "length") ref.length = std::stoll(kv.value());
      } catch (const std::exception&) {
        bad(modelPath, name, "has an invalid external_data entry [" + kv.key() + "=" + kv.value() + "]");
      }
    }
    if (ref.length >= 0 && (uint64_t)ref.length != packedBytes)
      bad(modelPath, name,
          "declares " + std::to_string(ref.length) + " bytes of external data, expected " +
              std::to_string(packedBytes) + " for " + type.str());
    std::vector<uint8_t> raw = readExternalData(modelDir, ref, name, modelPath);
    if (raw.size() != packedBytes)
      bad(modelPath, name,
          "has " + std::to_string(raw.size()) + " bytes of external data, expected " +
              std::to_string(packedBytes) + " for " + type.str());
    if (bits < 8) {
      auto t = std::make_shared<Tensor>(type);
      unpackSubByte(raw.data(), *t);
      return t;
    }
    auto t = std::make_shared<Tensor>();
    t->type = type;
    t->data = std::move(raw);
    return t;
  }

  if (bits < 8) return packedFromOnnx(p, type, packedBytes, name, modelPath);
  if (p.has_raw_data()) {
    if (p.raw_data().size() != bytes)
      bad(modelPath, name,
          "has " + std::to_string(p.raw_data().size()) + " bytes of raw data, expected " +
              std::to_string(bytes) + " for " + type.str());
    auto t = std::make_shared<Tensor>(type);
    if (bytes) std::memcpy(t->data.data(), p.raw_data().data(), bytes);  // host is little endian
    return t;
  }

  int64_t have = 0;
  switch (p.data_type()) {
    case TP::FLOAT: have = p.float_data_size(); break;
    case TP::DOUBLE: have = p.double_data_size(); break;
    case TP::INT64: have = p.int64_data_size(); break;
    case TP::UINT32: case TP::UINT64: have = p.uint64_data_size(); break;
    default: have = p.int32_data_size(); break;
  }
  if (have != n)
    bad(modelPath, name,
        "has " + std::to_string(have) + " elements, expected " + std::to_string(n) + " for " + type.str());
  auto t = std::make_shared<Tensor>(type);
  Tensor& d = *t;
  switch (dt) {
    case DType::F32: copyTyped<float>(p.float_data(), d); break;
    case DType::F64: copyTyped<double>(p.double_data(), d); break;
    case DType::I64: copyTyped<int64_t>(p.int64_data(), d); break;
    case DType::U32: copyTyped<uint32_t>(p.uint64_data(), d); break;
    case DType::U64: copyTyped<uint64_t>(p.uint64_data(), d); break;
    case DType::I32: copyTyped<int32_t>(p.int32_data(), d); break;
    case DType::I16: copyTyped<int16_t>(p.int32_data(), d); break;
    case DType::I8: copyTyped<int8_t>(p.int32_data(), d); break;
    case DType::U8: copyTyped<uint8_t>(p.int32_data(), d); break;
    case DType::U16: copyTyped<uint16_t>(p.int32_data(), d); break;
    case DType::F16: copyTyped<uint16_t>(p.int32_data(), d); break;   // bit patterns
    case DType::BF16: copyTyped<uint16_t>(p.int32_data(), d); break;  // bit patterns
    case DType::F8E4M3FN: case DType::F8E4M3FNUZ: case DType::F8E5M2: case DType::F8E5M2FNUZ:
    case DType::F8E8M0:
      copyTyped<uint8_t>(p.int32_data(), d);  // bit patterns
      break;
    case DType::Bool: {
      uint8_t* b = d.as<uint8_t>();
      for (int i = 0; i < p.int32_data_size(); ++i) b[i] = p.int32_data(i) != 0;
      break;
    }
    default: bad(modelPath, name, "has an unsupported element type");
  }
  return t;
}

}  // namespace onnxfe
}  // namespace atc
