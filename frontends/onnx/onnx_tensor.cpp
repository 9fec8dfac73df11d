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
  return "type " + std::to_string(t);
}

namespace {

[[noreturn]] void bad(const std::string& modelPath, const std::string& name,
                      const std::string& why) {
  throw AtcError("E10041",
                 "Failed to load the model from [" + modelPath + "]: tensor [" + name + "] " + why,
                 "Check that the model file is a valid, complete ONNX model.");
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
    if (ref.length >= 0 && (uint64_t)ref.length != bytes)
      bad(modelPath, name,
          "declares " + std::to_string(ref.length) + " bytes of external data, expected " + std::to_string(bytes) +
              " for " + type.str());
    std::vector<uint8_t> raw = readExternalData(modelDir, ref, name, modelPath);
    if (raw.size() != bytes)
      bad(modelPath, name,
          "has " + std::to_string(raw.size()) + " bytes of external data, expected " +
              std::to_string(bytes) + " for " + type.str());
    auto t = std::make_shared<Tensor>();
    t->type = type;
    t->data = std::move(raw);
    return t;
  }

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
