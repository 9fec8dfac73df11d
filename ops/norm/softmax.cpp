// Softmax, LogSoftmax, Hardmax. Opset < 13: the input is coerced to 2-D at `axis`
// (default 1) and normalised over the flattened trailing dims; opset >= 13: one axis
// (default -1).
#include "support/diagnostics.h"
#include "kernels/lib/math_norm_codes.h"
#include "ops/elementwise/eltwise_common.h"
#include "ops/impl_variant.h"

namespace atc {
namespace {

KernelCall lowerSoftmax(const Graph& g, const Node& n, int64_t mode) {
  const TensorType& in = n.inputs[0]->type;
  const int64_t rank = in.rank();
  const bool legacy = g.opsetVersion > 0 && g.opsetVersion < 13;
  int64_t axis = normalizeAxis(n.attrInt("axis", legacy ? 1 : -1), rank, n);
  int64_t outer = 1, len = 1, inner = 1;
  if (rank == 0) {
    // Scalar: a single element.
  } else if (legacy) {
    for (int64_t d = 0; d < axis; ++d) outer *= in.shape[d];
    for (int64_t d = axis; d < rank; ++d) len *= in.shape[d];
  } else {
    for (int64_t d = 0; d < axis; ++d) outer *= in.shape[d];
    len = in.shape[axis];
    for (int64_t d = axis + 1; d < rank; ++d) inner *= in.shape[d];
  }
  if (!isFloat(in.dtype)) opError(n, "input must be a floating-point tensor");
  KernelCall c;
  c.kernel = "softmax";
  c.params = {mode, (int64_t)in.dtype, outer, len, inner, (int64_t)n.inputs.size()};
  if (implVariantOf(n) == ATCK_IV_PREC) c.params[0] |= ATCK_IV_PREC << ATCK_IV_SHIFT;  // docs/implmode.md
  return c;
}

OpDef makeSoftmax(const char* type, int64_t mode) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::Reduce;
  d.infer = [](Graph& g, Node& n) {
    const TensorType& in = n.inputs[0]->type;
    if (in.shapeKnown && in.rank() > 0) {
      const bool legacy = g.opsetVersion > 0 && g.opsetVersion < 13;
      normalizeAxis(n.attrInt("axis", legacy ? 1 : -1), in.rank(), n);
    }
    n.outputs[0]->type = in;
  };
  d.lower = [mode](LowerCtx& c) { return lowerSoftmax(c.graph, c.node, mode); };
  return d;
}

const bool kRegistered = [] {
  OpRegistry::instance().add(makeSoftmax("Softmax", 0));
  OpRegistry::instance().add(makeSoftmax("LogSoftmax", 1));
  OpRegistry::instance().add(makeSoftmax("Hardmax", 2));
  return true;
}();

}  // namespace
}  // namespace atc
