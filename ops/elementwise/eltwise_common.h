// Shared helpers of the element-wise op definitions: type inference for same-type and
// broadcasting ops, and the lowering to the generic "eltwise" kernel
// (kernels/lib/eltwise.cpp, params in kernels/lib/math_eltwise_codes.h).
#pragma once
#include <functional>
#include <vector>

#include "ir/op_registry.h"
#include "kernels/lib/math_eltwise_codes.h"

namespace atc {

struct EltScalars {
  double alpha = 0, beta = 0, gamma = 0;
  int64_t ia = 0, ib = 0;
};

// Compute type code (AtckComputeType) used for arithmetic on values of dtype t.
int64_t eltComputeType(DType t);

// The iteration space of a broadcasting element-wise kernel (kernels/lib/bcast_walk.h):
// the output shape with size-1 dims dropped and adjacent dims merged where every input is
// contiguous across them, and per input the element strides over those dims (0 where the
// input is broadcast). Throws (opError) when the collapsed rank exceeds maxRank.
struct BroadcastLayout {
  std::vector<int64_t> shape;
  std::vector<std::vector<int64_t>> strides;  // [input][dim]
  int64_t total = 1;                          // elements of the output
};
BroadcastLayout collapseBroadcast(const Node& n, const std::vector<const Shape*>& inputs,
                                  const Shape& out, size_t maxRank);

// Builds the eltwise kernel call for node n with op code `op` reading `inputs` (some of
// n's inputs, broadcast to `out`). ct: compute type (-1: eltComputeType of inputs[0]).
KernelCall makeEltwiseCall(const Node& n, int64_t op, const std::vector<const Value*>& inputs,
                           const TensorType& out, int64_t ct = -1,
                           const EltScalars& s = EltScalars());

// Makes an "eltwise" call of node n read a value whose shape depends on data
// (Value::shapeFromData) over its actual elements only ("eltwise_ds", math_eltwise_codes.h),
// its output then data-shaped with the same dims. False (call unchanged) unless the walk is flat
// with that value at stride 1 and every other input a scalar.
bool eltwiseOverDataShape(const Node& n, KernelCall& c);

// Lowers an element-wise node n whose one non-scalar input is run-sized (isRunSized; the output
// then run-sized too) into "eltwise_rs" (math_eltwise_codes.h): `lower` (the op's lowering) runs
// with that input and the output typed as a flat stand-in shape, and the call then walks the
// run's elements. False (nothing lowered) when n is not such a node.
bool eltwiseOverRunSized(Node& n, const std::function<KernelCall()>& lower, KernelCall* out);

// Output = input 0's type.
void inferSameAsInput0(Graph&, Node& n);
// Output shape = broadcast of all inputs; dtype = dt (Undefined: input 0's dtype).
void inferBroadcast(Node& n, DType dt = DType::Undefined);
// Throws unless all (present) inputs have the same dtype.
void checkSameDtypes(const Node& n, size_t first, size_t count);

// The node's present inputs as a vector.
std::vector<const Value*> presentInputs(const Node& n);

}  // namespace atc
