// Helpers shared by the data-movement and shape op definitions (ops/datamove, ops/shape).
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

#include "ir/op_registry.h"

namespace atc {
namespace dm {

// True when optional input i is present.
inline bool hasInput(const Node& n, size_t i) { return n.input(i) != nullptr; }

// The int64 values of input i, which must be a compile-time constant (opError otherwise).
std::vector<int64_t> constInts(const Node& n, size_t i, const char* what);
// The float values of input i (constant).
std::vector<double> constFloats(const Node& n, size_t i, const char* what);

// Run-sized outputs (docs/dynamic-shapes.md, "Run-sized values"): whether input i, which decides
// the output's shape, is fed at run time (not a constant). Its length (number of elements, which
// must be static; at most maxLen) in *len; its dtype must be one of `dtypes`.
bool runTimeShapeInput(const Node& n, size_t i, const char* what, std::initializer_list<DType> dtypes,
                       int64_t* len, int64_t maxLen = 8);
// Types output o as run-sized: dtype dt, dims (-1 where a run decides; rank at most 8).
void setRunSized(Node& n, size_t o, DType dt, const Shape& dims);

// Static shape of input i (opError when unknown: dynamic shapes are out of scope).
const Shape& staticShape(const Node& n, size_t i);

// X seen as outer x n x inner slices along the node's `axis` attribute, or, without one, as
// n = numel single elements of flattened X (shape {numel}): Compress, Unique. With an axis
// the rank must be at most maxRank (the kernel's dims array).
struct AxisSlices {
  int64_t axis = 0, outer = 1, n = 1, inner = 1;
  Shape shape;  // X's shape, or {numel} when flattened
};
AxisSlices axisSlices(const Node& n, const TensorType& x, int64_t maxRank);

// Row-major strides (in elements) of a shape.
std::vector<int64_t> stridesOf(const Shape& s);

// Lowering to the strided_copy kernel: out (dense, dims) [idx] = in[offset + idx . strides].
// Drops size-1 dims and merges contiguous dims first.
// The output buffer follows n's inputs.
KernelCall stridedCopy(const Node& n, int64_t esize, Shape dims, std::vector<int64_t> strides,
                       int64_t offset);

// Lowering of "output 0 = input 0's bytes" (Identity, Reshape-like ops, Cast and CastLike
// between equal dtypes): "copy" (writes bufs[1]) for a single-input node, "copy_to" naming
// the output's buffer (bufs[n.inputs.size()]) when the node has more inputs (Reshape's
// shape, Squeeze's axes, CastLike's target): "copy" would write over input 1 instead.
KernelCall copyInput0(const Node& n);

// The bytes of one element of dtype dt holding value v (for fill / pad values), as int64.
int64_t elementBits(double v, DType dt);
// The bytes of element 0 of t, as int64 (esize <= 8).
int64_t elementBits(const Tensor& t);

// Reads an index-like attribute list or constant input (attribute form first).
// Returns false when neither is present.
bool intsFromAttrOrInput(const Node& n, const char* attr, size_t input, std::vector<int64_t>* out);

}  // namespace dm
}  // namespace atc
