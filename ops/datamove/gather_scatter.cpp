// Gather, GatherElements, GatherND, ScatterND, ScatterElements (and opset-9 Scatter).
// Indices are int32 or int64; negative indices count from the end.
#include "ops/datamove/datamove_util.h"
#include "ops/impl_variant.h"

namespace atc {
namespace {

DType indexType(const Node& n, size_t i) {
  DType t = n.inputs[i]->type.dtype;
  if (t != DType::I64 && t != DType::I32) opError(n, "indices must be int32 or int64");
  return t;
}

int64_t prod(const Shape& s, size_t b, size_t e) {
  int64_t p = 1;
  for (size_t i = b; i < e && i < s.size(); ++i) p *= s[i];
  return p;
}

// Constant indices outside [-n, n) are refused at compile time: at run time they would be clamped
// (docs/implmode.md), a silently different result. With support_out_of_bound_index they read
// zeros, as documented, and are accepted.
void checkConstIndices(const Node& n, size_t i, int64_t dim) {
  const Value* v = n.inputs[i];
  if (!v->isConstant() || implChecksIndices(n)) return;
  const Tensor& t = *v->constant;
  for (int64_t j = 0; j < t.type.numel(); ++j) {
    int64_t x = t.type.dtype == DType::I64 ? t.as<int64_t>()[j] : (int64_t)t.as<int32_t>()[j];
    if (x < -dim || x >= dim)
      opError(n, "constant index " + std::to_string(x) + " is outside [-" + std::to_string(dim) + ", " +
                     std::to_string(dim) + ") (set support_out_of_bound_index with --op_precision_mode to "
                     "read zeros for such indices)");
  }
}

// ---- Gather ----
void inferGather(Graph&, Node& n) {
  const Shape& data = dm::staticShape(n, 0);
  const Shape& ind = dm::staticShape(n, 1);
  indexType(n, 1);
  if (data.empty()) opError(n, "data is a scalar; Gather needs rank >= 1");  // normalizeAxis lets axis 0 pass
  int64_t axis = normalizeAxis(n.attrInt("axis", 0), (int64_t)data.size(), n);
  Shape out(data.begin(), data.begin() + axis);
  out.insert(out.end(), ind.begin(), ind.end());
  out.insert(out.end(), data.begin() + axis + 1, data.end());
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, out);
}

KernelCall lowerGather(LowerCtx& c) {
  Node& n = c.node;
  const Shape& data = n.inputs[0]->type.shape;
  int64_t axis = normalizeAxis(n.attrInt("axis", 0), (int64_t)data.size(), n);
  int64_t es = (int64_t)dtypeSize(n.inputs[0]->type.dtype);
  int64_t post = prod(data, (size_t)axis + 1, data.size()) * es;
  checkConstIndices(n, 1, data[(size_t)axis]);
  return KernelCall{"gather", {post, prod(data, 0, (size_t)axis), data[(size_t)axis],
                               n.inputs[1]->type.numel(), (int64_t)indexType(n, 1),
                               (int64_t)implChecksIndices(n)}};
}

// ---- GatherElements ----
void inferGatherElements(Graph&, Node& n) {
  const Shape& data = dm::staticShape(n, 0);
  const Shape& ind = dm::staticShape(n, 1);
  indexType(n, 1);
  if (ind.size() != data.size()) opError(n, "data and indices must have the same rank");
  normalizeAxis(n.attrInt("axis", 0), (int64_t)data.size(), n);
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, ind);
}

KernelCall lowerGatherElements(LowerCtx& c) {
  Node& n = c.node;
  const Shape& data = n.inputs[0]->type.shape;
  const Shape& ind = n.inputs[1]->type.shape;
  int64_t r = (int64_t)data.size();
  int64_t axis = normalizeAxis(n.attrInt("axis", 0), r, n);
  checkConstIndices(n, 1, data[(size_t)axis]);
  KernelCall k;
  k.kernel = "gather_elements";
  k.params = {(int64_t)dtypeSize(n.inputs[0]->type.dtype), (int64_t)indexType(n, 1), r, axis};
  for (auto d : ind) k.params.push_back(d);
  for (auto s : dm::stridesOf(data)) k.params.push_back(s);
  k.params.push_back(data[(size_t)axis]);
  k.params.push_back((int64_t)implChecksIndices(n));  // support_out_of_bound_index
  return k;
}

// ---- GatherND ----
void inferGatherND(Graph&, Node& n) {
  const Shape& data = dm::staticShape(n, 0);
  const Shape& ind = dm::staticShape(n, 1);
  indexType(n, 1);
  int64_t b = n.attrInt("batch_dims", 0);
  if (ind.empty()) opError(n, "indices must have rank >= 1");
  int64_t k = ind.back();
  if (b < 0 || b >= (int64_t)ind.size() || b + k > (int64_t)data.size())
    opError(n, "batch_dims / indices last dim out of range");
  for (int64_t i = 0; i < b; ++i)
    if (data[(size_t)i] != ind[(size_t)i]) opError(n, "batch dims of data and indices differ");
  Shape out(ind.begin(), ind.end() - 1);
  out.insert(out.end(), data.begin() + b + k, data.end());
  n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, out);
}

KernelCall lowerGatherND(LowerCtx& c) {
  Node& n = c.node;
  const Shape& data = n.inputs[0]->type.shape;
  const Shape& ind = n.inputs[1]->type.shape;
  size_t b = (size_t)n.attrInt("batch_dims", 0), k = (size_t)ind.back();
  int64_t slice = prod(data, b + k, data.size());
  KernelCall kc;
  kc.kernel = "gather_nd";
  kc.params = {slice * (int64_t)dtypeSize(n.inputs[0]->type.dtype), (int64_t)indexType(n, 1),
               prod(data, 0, b), prod(ind, b, ind.size() - 1), (int64_t)k, prod(data, b, b + k)};
  for (size_t i = 0; i < k; ++i) kc.params.push_back(data[b + i]);
  for (size_t i = 0; i < k; ++i) kc.params.push_back(prod(data, b + i + 1, b + k));
  kc.params.push_back((int64_t)implChecksIndices(n));  // support_out_of_bound_index
  return kc;
}

// ---- Scatter ----
int64_t reductionCode(const Node& n) {
  std::string r = n.attrString("reduction", "none");
  int64_t code = r == "none" ? 0 : r == "add" ? 1 : r == "mul" ? 2 : r == "max" ? 3 : r == "min" ? 4 : -1;
  if (code < 0) opError(n, "unknown reduction " + r);
  DType t = n.inputs[0]->type.dtype;
  if (code > 0 && t != DType::F32 && t != DType::F64 && t != DType::I32 && t != DType::I64)
    opError(n, "reduction " + r + " supports float32/float64/int32/int64 only");
  return code;
}

void inferScatterND(Graph&, Node& n) {
  const Shape& data = dm::staticShape(n, 0);
  const Shape& ind = dm::staticShape(n, 1);
  const Shape& upd = dm::staticShape(n, 2);
  indexType(n, 1);
  reductionCode(n);
  if (ind.empty() || ind.back() > (int64_t)data.size()) opError(n, "bad indices shape");
  Shape want(ind.begin(), ind.end() - 1);
  want.insert(want.end(), data.begin() + ind.back(), data.end());
  if (want != upd) opError(n, "updates shape does not match indices and data");
  n.outputs[0]->type = n.inputs[0]->type;
}

KernelCall lowerScatterND(LowerCtx& c) {
  Node& n = c.node;
  const Shape& data = n.inputs[0]->type.shape;
  const Shape& ind = n.inputs[1]->type.shape;
  size_t k = (size_t)ind.back();
  KernelCall kc;
  kc.kernel = "scatter_nd";
  kc.params = {prod(data, k, data.size()), (int64_t)dtypeSize(n.inputs[0]->type.dtype),
               (int64_t)n.inputs[0]->type.dtype, reductionCode(n), (int64_t)indexType(n, 1),
               prod(ind, 0, ind.size() - 1), (int64_t)k, n.inputs[0]->type.byteSize()};
  for (size_t i = 0; i < k; ++i) kc.params.push_back(data[i]);
  auto st = dm::stridesOf(data);
  for (size_t i = 0; i < k; ++i) kc.params.push_back(st[i]);
  kc.params.push_back((int64_t)implChecksIndices(n));  // support_out_of_bound_index
  return kc;
}

void inferScatterElements(Graph&, Node& n) {
  const Shape& data = dm::staticShape(n, 0);
  const Shape& ind = dm::staticShape(n, 1);
  indexType(n, 1);
  reductionCode(n);
  if (ind.size() != data.size() || dm::staticShape(n, 2) != ind)
    opError(n, "indices and updates must have data's rank and one shape");
  normalizeAxis(n.attrInt("axis", 0), (int64_t)data.size(), n);
  n.outputs[0]->type = n.inputs[0]->type;
}

KernelCall lowerScatterElements(LowerCtx& c) {
  Node& n = c.node;
  const Shape& data = n.inputs[0]->type.shape;
  const Shape& ind = n.inputs[1]->type.shape;
  int64_t r = (int64_t)data.size();
  int64_t axis = normalizeAxis(n.attrInt("axis", 0), r, n);
  KernelCall kc;
  kc.kernel = "scatter_elements";
  kc.params = {(int64_t)dtypeSize(n.inputs[0]->type.dtype), (int64_t)n.inputs[0]->type.dtype,
               reductionCode(n), (int64_t)indexType(n, 1), r, axis, n.inputs[0]->type.byteSize()};
  for (auto d : ind) kc.params.push_back(d);
  for (auto s : dm::stridesOf(data)) kc.params.push_back(s);
  kc.params.push_back(data[(size_t)axis]);
  kc.params.push_back((int64_t)implChecksIndices(n));  // support_out_of_bound_index
  return kc;
}

OpDef def(const char* type, int nin, std::function<void(Graph&, Node&)> inf,
          std::function<KernelCall(LowerCtx&)> low) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::DataMove;
  d.minInputs = d.maxInputs = nin;
  d.infer = std::move(inf);
  d.lower = std::move(low);
  return d;
}

ATC_REGISTER_OP(def("Gather", 2, inferGather, lowerGather));
ATC_REGISTER_OP(def("GatherElements", 2, inferGatherElements, lowerGatherElements));
ATC_REGISTER_OP(def("GatherND", 2, inferGatherND, lowerGatherND));
ATC_REGISTER_OP(def("ScatterND", 3, inferScatterND, lowerScatterND));
ATC_REGISTER_OP(def("ScatterElements", 3, inferScatterElements, lowerScatterElements));
ATC_REGISTER_OP(def("Scatter", 3, inferScatterElements, lowerScatterElements));

}  // namespace
}  // namespace atc
