// Tensor types and constant tensor data.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "support/half.h"

namespace atc {

// Dim value -1 means unknown (symbolic or dynamic).
using Shape = std::vector<int64_t>;

struct TensorType {
  DType dtype = DType::Undefined;
  Shape shape;
  bool shapeKnown = false;  // false: rank unknown (shape is meaningless)

  TensorType() = default;
  TensorType(DType t, Shape s) : dtype(t), shape(std::move(s)), shapeKnown(true) {}
  int64_t rank() const { return (int64_t)shape.size(); }
  bool isStatic() const;       // shapeKnown and no -1 dims
  int64_t numel() const;       // product of dims; -1 if not static or too large (sizeFits)
  int64_t byteSize() const;    // numel * dtype size; -1 if not static or too large (sizeFits)
  // False when the static shape's size overflows or exceeds kMaxTensorBytes
  // (support/checked_math.h); true for shapes that are not static.
  bool sizeFits() const;
  std::string str() const;     // "float32[1,3,224,224]"
  bool operator==(const TensorType& o) const {
    return dtype == o.dtype && shapeKnown == o.shapeKnown && shape == o.shape;
  }
};

// The byte size of a tensor of type t (0 when not static); throws when it does not fit.
size_t checkedBytes(const TensorType& t);

// Immutable constant data (weights, folded values). Row-major, densely packed.
struct Tensor {
  TensorType type;
  std::vector<uint8_t> data;  // type.byteSize() bytes

  Tensor() = default;
  // Throws AtcError E19999 when the shape's size does not fit (TensorType::sizeFits).
  Tensor(TensorType t) : type(std::move(t)), data(checkedBytes(type)) {}
  template <class T> T* as() { return reinterpret_cast<T*>(data.data()); }
  template <class T> const T* as() const { return reinterpret_cast<const T*>(data.data()); }
  // Element i converted to int64 / double, whatever the dtype (for shape arithmetic); a float
  // converts to int64 saturated (inf, values beyond int64: the nearest bound; NaN: 0).
  int64_t intAt(int64_t i) const;
  double floatAt(int64_t i) const;
  std::vector<int64_t> toInts() const;  // all elements as int64
};
using TensorPtr = std::shared_ptr<const Tensor>;

TensorPtr makeIntTensor(const std::vector<int64_t>& v, DType dt = DType::I64, bool scalar = false);
TensorPtr makeScalar(double v, DType dt);

// fp16 / bf16 helpers: support/half.h.

}  // namespace atc
