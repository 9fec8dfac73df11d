// DFT (opsets 17 and 20): kernel "dft" (kernels/lib/dft.cpp). float32 input [..., n, 1 or 2]
// (real or complex in the last dim). Opset 17: `axis` attribute (default 1); opset 20: the
// axis as input 2 (default -2), a constant or, for a two-sided transform without dft_length
// (whose output shape does not depend on the axis), a value the kernel reads at run time;
// dft_length (input 1) must be a constant.
// inverse, onesided: forward onesided keeps bins 0..N/2; inverse onesided takes a half
// spectrum of m bins (N = dft_length or 2 (m - 1)) and gives a real [..., N, 1] output.
#include <algorithm>

#include "ir/dtype.h"
#include "ir/op_registry.h"
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

// Limits of the direct (O(N^2)) kernel: docs/signal-ops.md.
constexpr int64_t kMaxDftLength = 16384;
constexpr double kMaxDftTerms = 4294967296.0;  // 2^32 multiply-adds, about 10 s on one core

int64_t product(const Shape& s) {
  int64_t p = 1;
  for (int64_t v : s) p *= v;
  return p;
}

struct DftGeometry {
  int64_t axis = 0, nIn = 0, N = 0, nOut = 0, cin = 1, cout = 2, outer = 1, inner = 1;
  bool inverse = false, hermitian = false;
  bool runtimeAxis = false;  // axis fed at run time: the geometry above is axis -2's
};

// Whether the axis (input 2) is fed at run time. A onesided transform's output shape depends on
// it: the output is then run-sized (docs/dynamic-shapes.md).
bool dftRuntimeAxis(const Node& n) {
  const Value* a = dm::hasInput(n, 2) ? n.inputs[2] : nullptr;
  if (!a || a->isConstant()) return false;
  if (a->type.dtype != DType::I64 && a->type.dtype != DType::I32) opError(n, "axis must be int32 or int64");
  if (!a->type.shapeKnown || a->type.numel() != 1) opError(n, "axis must be a scalar");
  if (dm::hasInput(n, 1))
    opError(n, "axis must be a compile-time constant for a DFT with dft_length (their output shape is not supported "
               "yet)");
  return true;
}

DftGeometry dftGeometry(const Graph& g, const Node& n) {
  const TensorType& x = n.inputs[0]->type;
  if (x.dtype != DType::F32) opError(n, "the input must be float32");
  if (!x.shapeKnown || x.rank() < 2) opError(n, "the input needs a static shape of rank 2 or more");
  const int64_t r = (int64_t)x.rank();
  DftGeometry d;
  d.cin = x.shape.back();
  if (d.cin != 1 && d.cin != 2) opError(n, "the input's last dim must be 1 (real) or 2 (complex)");
  int64_t axis = g.opsetVersion >= 20 ? -2 : 1;
  d.runtimeAxis = dftRuntimeAxis(n);
  if (d.runtimeAxis) {
    axis = -2;
  } else if (dm::hasInput(n, 2)) {
    std::vector<int64_t> a = dm::constInts(n, 2, "axis");
    if (a.size() != 1) opError(n, "axis must be a scalar");
    axis = a[0];
  } else if (n.hasAttr("axis")) {
    axis = n.attrInt("axis", 1);
  }
  if (axis < -r || axis > r - 2 || (axis < 0 && axis > -2)) opError(n, "axis must lie in [-rank, -2] or [0, rank - 2]");
  d.axis = axis < 0 ? axis + r : axis;
  d.inverse = n.attrInt("inverse", 0) != 0;
  const bool onesided = n.attrInt("onesided", 0) != 0;
  d.nIn = x.shape[d.axis];
  d.hermitian = d.inverse && onesided;
  d.N = d.hermitian ? 2 * (d.nIn - 1) : d.nIn;
  if (dm::hasInput(n, 1)) {
    std::vector<int64_t> l = dm::constInts(n, 1, "dft_length");
    if (l.size() != 1) opError(n, "dft_length must be a scalar");
    d.N = l[0];
  }
  if (d.N < 1 || d.N > kMaxDftLength) opError(n, "the DFT length must be 1 to " + std::to_string(kMaxDftLength));
  if (d.nIn < 1) opError(n, "the axis must not be empty");
  d.nOut = onesided && !d.inverse ? d.N / 2 + 1 : d.N;
  d.cout = d.hermitian ? 1 : 2;
  for (int64_t i = 0; i < d.axis; ++i) d.outer *= x.shape[i];
  for (int64_t i = d.axis + 1; i < r - 1; ++i) d.inner *= x.shape[i];
  // The kernel is O(N^2) per transform: a model that would run for minutes is refused (a run-time
  // axis: the worst of the axes).
  double terms = (double)d.outer * (double)d.inner * (double)d.N * (double)d.nOut;
  for (int64_t a = 0; d.runtimeAxis && a < r - 1; ++a) {
    if (x.shape[a] > kMaxDftLength) opError(n, "the DFT length must be 1 to " + std::to_string(kMaxDftLength));
    terms = std::max(terms, (double)product(x.shape) / (double)d.cin * (double)x.shape[a]);
  }
  if (terms > kMaxDftTerms)
    opError(n, "the transforms need " + std::to_string((long long)terms) + " multiply-adds, more than the " +
                   std::to_string((long long)kMaxDftTerms) + " the O(N^2) DFT kernel takes");
  return d;
}

void inferDft(Graph& g, Node& n) {
  const DftGeometry d = dftGeometry(g, n);
  if (d.runtimeAxis && n.attrInt("onesided", 0) != 0) {
    dm::setRunSized(n, 0, DType::F32, Shape(n.inputs[0]->type.shape.size(), -1));
    return;
  }
  Shape y = n.inputs[0]->type.shape;
  y[d.axis] = d.nOut;
  y.back() = d.cout;
  n.outputs[0]->type = TensorType(DType::F32, y);
}

KernelCall lowerDft(LowerCtx& c) {
  const DftGeometry d = dftGeometry(c.graph, c.node);
  KernelCall kc;
  kc.kernel = "dft";
  kc.params = {d.outer, d.inner, d.nIn, d.N, d.nOut, d.cin, d.cout, d.inverse ? 1 : 0, d.hermitian ? 1 : 0,
               (int64_t)c.node.inputs.size(), -1};
  if (d.runtimeAxis) {
    // [10] the axis buffer, [11] its dtype, [12] rank - 1, [13..] the dims before the last;
    // [0] the most transforms any axis gives (the task count), [1] 1.
    const Shape& xs = c.node.inputs[0]->type.shape;
    const int64_t rs = (int64_t)xs.size() - 1;
    int64_t most = 0;
    for (int64_t a = 0; a < rs; ++a) most = std::max(most, xs[a] ? product(xs) / d.cin / xs[a] : 0);
    kc.params[0] = most;
    kc.params[1] = 1;
    kc.params[10] = 2;
    kc.params.push_back((int64_t)c.node.inputs[2]->type.dtype);
    kc.params.push_back(rs);
    for (int64_t a = 0; a < rs; ++a) kc.params.push_back(xs[a]);
    // [13 + rs] onesided, [14 + rs] run-sized (a onesided transform: the axis decides Y's shape)
    const bool onesided = c.node.attrInt("onesided", 0) != 0;
    kc.params.push_back(onesided ? 1 : 0);
    kc.params.push_back(onesided ? 1 : 0);
    kc.sizesOutputs = onesided;
  }
  return kc;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "DFT";
  d.category = OpCategory::Misc;
  d.minInputs = 1;
  d.maxInputs = 3;
  d.infer = inferDft;
  d.lower = lowerDft;
  return d;
}());

}  // namespace
}  // namespace atc
