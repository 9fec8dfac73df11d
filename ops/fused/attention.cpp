// FusedAttention (internal, made by AttentionFusionPass): softmax(scale * Q K^T + mask) V for
// every (batch, head) in one attention kernel (kernels/lib/attention.cpp).
// Inputs: q, k, v source tensors (may be the same tensor, e.g. a packed QKV projection),
// optional additive mask. Attributes:
//   dims = [B, H, SQ, SK, D, DV]; scale (float);
//   q_view, k_view, v_view, o_view = [offset, batch, head, seq, dim strides] (elements):
//     element (b, h, s, d) of Q lies at q[offset + b*sb + h*sh + s*ss + d*sd]; K is viewed as
//     [b, h, key, dim], V as [b, h, key, dv], O (into the output) as [b, h, query, dv];
//   m_view = [offset, b, h, query, key strides] of the mask (broadcast dims: 0);
//   out_shape: shape of the output (float32);
//   zero_masked_rows (int, default 0): 1 gives a query row whose every logit is -inf after the
//     mask zero probabilities (the guard of ONNX Attention's function body) instead of NaN.
#include <algorithm>

#include "ir/op_registry.h"
#include "kernels/lib/attention_params.h"

namespace atc {
namespace {

std::vector<int64_t> attr5(const Node& n, const char* k) {
  auto v = n.attrInts(k);
  if (v.size() != 5) opError(n, std::string(k) + " must have 5 values");
  return v;
}

// Largest element index a view reaches, +1 (checks it stays inside the tensor).
void checkView(const Node& n, const char* what, const std::vector<int64_t>& v, const std::vector<int64_t>& ext,
               const Value* t) {
  int64_t last = v[0];
  for (int i = 0; i < 4; ++i) {
    if (v[1 + i] < 0) opError(n, std::string(what) + " view has a negative stride");
    last += (ext[i] - 1) * v[1 + i];
  }
  if (v[0] < 0 || !t->type.isStatic() || last >= t->type.numel())
    opError(n, std::string(what) + " view reaches outside its tensor");
}

void inferAttention(Graph&, Node& n) {
  auto dims = n.attrInts("dims");
  if (dims.size() != 6) opError(n, "dims must be [B, H, SQ, SK, D, DV]");
  for (int64_t d : dims)
    if (d <= 0) opError(n, "dims must be positive");
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (n.inputs[i] && n.inputs[i]->type.dtype != DType::F32) opError(n, "FusedAttention supports float32 only");
  const int64_t B = dims[0], H = dims[1], SQ = dims[2], SK = dims[3], D = dims[4], DV = dims[5];
  Shape out = n.attrInts("out_shape");
  int64_t outN = 1;
  for (int64_t d : out) outN *= d;
  n.outputs[0]->type = TensorType(DType::F32, out);
  checkView(n, "q", attr5(n, "q_view"), {B, H, SQ, D}, n.inputs[0]);
  checkView(n, "k", attr5(n, "k_view"), {B, H, SK, D}, n.inputs[1]);
  checkView(n, "v", attr5(n, "v_view"), {B, H, SK, DV}, n.inputs[2]);
  if (n.input(3)) checkView(n, "mask", attr5(n, "m_view"), {B, H, SQ, SK}, n.inputs[3]);
  if (outN != B * H * SQ * DV) opError(n, "out_shape does not hold B*H*SQ*DV elements");
  checkView(n, "output", attr5(n, "o_view"), {B, H, SQ, DV}, n.outputs[0]);
}

KernelCall lowerAttention(LowerCtx& c) {
  const Node& n = c.node;
  auto dims = n.attrInts("dims");
  const int64_t B = dims[0], H = dims[1], SQ = dims[2], SK = dims[3], D = dims[4], DV = dims[5];
  std::vector<int64_t> P(AT_COUNT, 0);
  P[AT_B] = B; P[AT_H] = H; P[AT_SQ] = SQ; P[AT_SK] = SK; P[AT_D] = D; P[AT_DV] = DV;
  // Query blocks: enough work items for 8 tasks, 6..48 rows each.
  int64_t heads = B * H, nqb = std::max<int64_t>(1, (8 + heads - 1) / heads);
  int64_t qb = ((SQ + nqb - 1) / nqb + 5) / 6 * 6;
  qb = std::min<int64_t>(48, std::max<int64_t>(6, qb));
  P[AT_QB] = qb;
  int64_t items = heads * ((SQ + qb - 1) / qb);
  P[AT_NITEMS] = items;
  P[AT_NTASKS] = std::min<int64_t>(items, 64);
  // 512-bit targets: the 6x64 tiles, columns padded to 64 (kernels/lib/attention.cpp).
  P[AT_WIDE] = c.cubeRows == 16 ? 1 : 0;
  const int64_t padw = P[AT_WIDE] ? 64 : 16;
  auto rp = [&](int64_t x) { return (x + padw - 1) / padw * padw; };
  int64_t slot = D * (rp(SK) + 16) + qb * D + qb * (rp(SK) + 16) + qb * SK + SK * rp(DV) + qb * rp(DV);
  P[AT_SLOT] = (slot + 15) / 16 * 16;
  P[AT_SCALE] = paramFromDouble(n.attrFloat("scale", 1.0));
  P[AT_QIDX] = 0; P[AT_KIDX] = 1; P[AT_VIDX] = 2;
  P[AT_MIDX] = n.input(3) ? 3 : -1;
  P[AT_ZERO_MASKED] = n.attrInt("zero_masked_rows", 0) != 0 ? 1 : 0;
  P[AT_OIDX] = (int64_t)n.inputs.size();
  const char* views[] = {"q_view", "k_view", "v_view", "o_view", "m_view"};
  const int base[] = {AT_Q_OFF, AT_K_OFF, AT_V_OFF, AT_O_OFF, AT_M_OFF};
  for (int i = 0; i < 5; ++i) {
    if (i == 4 && !n.input(3)) continue;
    auto v = n.attrInts(views[i]);
    for (int j = 0; j < 5; ++j) P[base[i] + j] = v[j];
  }
  KernelCall kc;
  kc.kernel = "attention";
  kc.params = P;
  kc.workspaceBytes = P[AT_NTASKS] * P[AT_SLOT] * 4 + 64;
  return kc;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "FusedAttention";
  d.internal = true;
  d.category = OpCategory::Misc;
  d.minInputs = 3;
  d.maxInputs = 4;
  d.infer = inferAttention;
  d.lower = lowerAttention;
  return d;
}());

}  // namespace
}  // namespace atc
