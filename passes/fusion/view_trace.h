// Strided views through data-movement ops: what a value is, as (base value, element offset,
// shape, strides), looking back through Transpose, Reshape/Flatten/Squeeze/Unsqueeze (when
// the reshape needs no copy) and Split. Lets a fused kernel read its operands in place.
#pragma once
#include <vector>

#include "ir/graph.h"

namespace atc {
namespace fu {

struct StridedView {
  Value* base = nullptr;
  int64_t offset = 0;
  Shape shape;
  std::vector<int64_t> strides;
  std::vector<Node*> through;  // the data-movement nodes looked through, outermost first
};

std::vector<int64_t> contiguousStrides(const Shape& s);
// Strides of `to` viewing the strided (from, fromStrides) without a copy; false if impossible.
bool reshapeStrides(const Shape& from, const std::vector<int64_t>& fromStrides, const Shape& to,
                    std::vector<int64_t>* toStrides);
// The view of v through data-movement producers (static float32/any dtype shapes).
StridedView traceView(Value* v);

}  // namespace fu
}  // namespace atc
