// Transpose, DepthToSpace, SpaceToDepth: permutations of a (re-viewed) input, lowered to
// the strided_copy kernel (blocked when the innermost dims swap).
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

// out dims / strides of `view` permuted by perm.
KernelCall permuted(const Node& n, int64_t esize, const Shape& view, const std::vector<int64_t>& perm) {
  auto st = dm::stridesOf(view);
  Shape dims;
  std::vector<int64_t> strides;
  for (auto p : perm) {
    dims.push_back(view[(size_t)p]);
    strides.push_back(st[(size_t)p]);
  }
  return dm::stridedCopy(n, esize, dims, strides, 0);
}

std::vector<int64_t> transposePerm(const Node& n, int64_t r) {
  std::vector<int64_t> perm = n.attrInts("perm");
  if (perm.empty()) {
    for (int64_t i = r - 1; i >= 0; --i) perm.push_back(i);
  }
  if ((int64_t)perm.size() != r) opError(n, "perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(r));
  std::vector<bool> seen((size_t)r, false);
  for (auto& p : perm) {
    if (p < 0) p += r;
    if (p < 0 || p >= r || seen[(size_t)p]) opError(n, "perm is not a permutation");
    seen[(size_t)p] = true;
  }
  return perm;
}

void inferTranspose(Graph&, Node& n) {
  const Shape& in = dm::staticShape(n, 0);
  auto perm = transposePerm(n, (int64_t)in.size());
  Shape out;
  for (auto p : perm) out.push_back(in[(size_t)p]);
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, out);
}

KernelCall lowerTranspose(LowerCtx& c) {
  const Shape& in = c.node.inputs[0]->type.shape;
  return permuted(c.node, (int64_t)dtypeSize(c.node.inputs[0]->type.dtype), in,
                  transposePerm(c.node, (int64_t)in.size()));
}

int64_t blockSize(const Node& n) {
  int64_t b = n.attrInt("blocksize", 0);
  if (b <= 0) opError(n, "blocksize must be positive");
  return b;
}

const Shape& nchw(const Node& n) {
  const Shape& in = dm::staticShape(n, 0);
  if (in.size() != 4) opError(n, "input must be 4-d (NCHW)");
  return in;
}

void inferDepthToSpace(Graph&, Node& n) {
  const Shape& s = nchw(n);
  int64_t b = blockSize(n);
  if (s[1] % (b * b) != 0) opError(n, "channels are not a multiple of blocksize^2");
  std::string mode = n.attrString("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") opError(n, "mode must be DCR or CRD");
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, {s[0], s[1] / (b * b), s[2] * b, s[3] * b});
}

KernelCall lowerDepthToSpace(LowerCtx& c) {
  const Shape& s = c.node.inputs[0]->type.shape;
  int64_t b = blockSize(c.node), es = (int64_t)dtypeSize(c.node.inputs[0]->type.dtype);
  int64_t cc = s[1] / (b * b);
  if (c.node.attrString("mode", "DCR") == "DCR")
    return permuted(c.node, es, {s[0], b, b, cc, s[2], s[3]}, {0, 3, 4, 1, 5, 2});
  return permuted(c.node, es, {s[0], cc, b, b, s[2], s[3]}, {0, 1, 4, 2, 5, 3});
}

void inferSpaceToDepth(Graph&, Node& n) {
  const Shape& s = nchw(n);
  int64_t b = blockSize(n);
  if (s[2] % b != 0 || s[3] % b != 0) opError(n, "H and W must be multiples of blocksize");
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, {s[0], s[1] * b * b, s[2] / b, s[3] / b});
}

KernelCall lowerSpaceToDepth(LowerCtx& c) {
  const Shape& s = c.node.inputs[0]->type.shape;
  int64_t b = blockSize(c.node), es = (int64_t)dtypeSize(c.node.inputs[0]->type.dtype);
  return permuted(c.node, es, {s[0], s[1], s[2] / b, b, s[3] / b, b}, {0, 3, 5, 1, 2, 4});
}

OpDef def(const char* type, std::function<void(Graph&, Node&)> inf, std::function<KernelCall(LowerCtx&)> low) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::DataMove;
  d.infer = std::move(inf);
  d.lower = std::move(low);
  d.storesF16AndBf16();  // bytes moved as they are
  return d;
}

ATC_REGISTER_OP(def("Transpose", inferTranspose, lowerTranspose));
ATC_REGISTER_OP(def("DepthToSpace", inferDepthToSpace, lowerDepthToSpace));
ATC_REGISTER_OP(def("SpaceToDepth", inferSpaceToDepth, lowerSpaceToDepth));

}  // namespace
}  // namespace atc
