#include "ops/datamove/datamove_util.h"

#include <cstring>

namespace atc {
namespace dm {

std::vector<int64_t> constInts(const Node& n, size_t i, const char* what) {
  Value* v = n.input(i);
  if (!v) opError(n, std::string("input '") + what + "' is missing");
  if (!v->isConstant())
    opError(n, std::string("input '") + what +
                   "' must be a compile-time constant (dynamic shapes are not supported)");
  return v->constant->toInts();
}

bool runTimeShapeInput(const Node& n, size_t i, const char* what, std::initializer_list<DType> dtypes,
                       int64_t* len, int64_t maxLen) {
  Value* v = n.input(i);
  if (!v) opError(n, std::string("input '") + what + "' is missing");
  if (v->isConstant()) return false;
  bool ok = false;
  for (DType d : dtypes) ok = ok || v->type.dtype == d;
  if (!ok) opError(n, std::string("input '") + what + "' has dtype " + dtypeName(v->type.dtype));
  if (!v->type.isStatic() || v->type.rank() > 1 || v->shapeFromData)
    opError(n, std::string("input '") + what + "' fed at run time needs a static shape of rank 0 or 1");
  *len = v->type.numel();
  if (*len > maxLen)
    opError(n, std::string("input '") + what + "' fed at run time has " + std::to_string(*len) +
                   " values; at most " + std::to_string(maxLen) + " are supported");
  return true;
}

void setRunSized(Node& n, size_t o, DType dt, const Shape& dims) {
  if ((int64_t)dims.size() > kRunSizedMaxRank)
    opError(n, "an output whose shape is decided at run time may have at most " + std::to_string(kRunSizedMaxRank) +
                   " dims, not " + std::to_string(dims.size()));
  n.outputs[o]->type = TensorType(dt, dims);
  n.outputs[o]->shapeFromData = true;
}

std::vector<double> constFloats(const Node& n, size_t i, const char* what) {
  Value* v = n.input(i);
  if (!v) opError(n, std::string("input '") + what + "' is missing");
  if (!v->isConstant())
    opError(n, std::string("input '") + what + "' must be a compile-time constant");
  const Tensor& t = *v->constant;
  std::vector<double> r((size_t)std::max<int64_t>(t.type.numel(), 0));
  for (size_t k = 0; k < r.size(); ++k) r[k] = t.floatAt((int64_t)k);
  return r;
}

AxisSlices axisSlices(const Node& n, const TensorType& x, int64_t maxRank) {
  AxisSlices g;
  if (!n.hasAttr("axis")) {
    g.n = x.numel();
    g.shape = {g.n};
    return g;
  }
  if (x.rank() > maxRank) opError(n, "supports rank <= " + std::to_string(maxRank) + ", got " + x.str());
  g.axis = normalizeAxis(n.attrInt("axis", 0), x.rank(), n);
  for (int64_t d = 0; d < g.axis; ++d) g.outer *= x.shape[d];
  for (int64_t d = g.axis + 1; d < x.rank(); ++d) g.inner *= x.shape[d];
  g.n = x.shape[g.axis];
  g.shape = x.shape;
  return g;
}

const Shape& staticShape(const Node& n, size_t i) {
  Value* v = n.input(i);
  if (!v) opError(n, "input " + std::to_string(i) + " is missing");
  if (!v->type.isStatic())
    opError(n, "input " + std::to_string(i) + " (" + v->name + ") has no static shape " +
                   v->type.str() + " (dynamic shapes are not supported)");
  return v->type.shape;
}

std::vector<int64_t> stridesOf(const Shape& s) {
  std::vector<int64_t> r(s.size());
  int64_t k = 1;
  for (size_t d = s.size(); d-- > 0;) { r[d] = k; k *= s[d]; }
  return r;
}

KernelCall stridedCopy(const Node& n, int64_t esize, Shape dims, std::vector<int64_t> strides,
                       int64_t offset) {
  int64_t numel = 1;
  for (auto d : dims) numel *= d;
  Shape nd;
  std::vector<int64_t> ns;
  if (numel > 0) {
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d] == 1) continue;
      if (!nd.empty() && ns.back() == strides[d] * dims[d]) {
        nd.back() *= dims[d];
        ns.back() = strides[d];
      } else {
        nd.push_back(dims[d]);
        ns.push_back(strides[d]);
      }
    }
    if (nd.empty()) { nd.push_back(1); ns.push_back(1); }
  } else {
    nd.push_back(0);
    ns.push_back(1);
  }
  KernelCall k;
  k.kernel = "strided_copy";
  k.params.push_back(esize);
  k.params.push_back((int64_t)nd.size());
  for (auto d : nd) k.params.push_back(d);
  for (auto s : ns) k.params.push_back(s);
  k.params.push_back(offset);
  k.params.push_back((int64_t)n.inputs.size());
  return k;
}

KernelCall copyInput0(const Node& n) {
  int64_t bytes = n.outputs[0]->type.byteSize();
  if (n.inputs.size() <= 1) return KernelCall{"copy", {bytes}};
  return KernelCall{"copy_to", {bytes, (int64_t)n.inputs.size()}};
}

int64_t elementBits(double v, DType dt) {
  int64_t bits = 0;
  auto put = [&](const void* p, size_t n) { std::memcpy(&bits, p, n); };
  switch (dt) {
    case DType::F32: { float f = (float)v; put(&f, 4); break; }
    case DType::F64: put(&v, 8); break;
    case DType::F16: { uint16_t h = floatToHalf((float)v); put(&h, 2); break; }
    case DType::BF16: { uint16_t h = floatToBf16((float)v); put(&h, 2); break; }
    case DType::I64: { int64_t x = (int64_t)v; put(&x, 8); break; }
    case DType::U64: { uint64_t x = (uint64_t)v; put(&x, 8); break; }
    case DType::I32: { int32_t x = (int32_t)v; put(&x, 4); break; }
    case DType::U32: { uint32_t x = (uint32_t)v; put(&x, 4); break; }
    case DType::I16: { int16_t x = (int16_t)v; put(&x, 2); break; }
    case DType::U16: { uint16_t x = (uint16_t)v; put(&x, 2); break; }
    case DType::I8: { int8_t x = (int8_t)v; put(&x, 1); break; }
    case DType::U8: { uint8_t x = (uint8_t)v; put(&x, 1); break; }
    case DType::Bool: { uint8_t x = v != 0; put(&x, 1); break; }
    default: break;
  }
  return bits;
}

int64_t elementBits(const Tensor& t) {
  int64_t bits = 0;
  size_t es = dtypeSize(t.type.dtype);
  if (!t.data.empty()) std::memcpy(&bits, t.data.data(), std::min<size_t>(es, 8));
  return bits;
}

bool intsFromAttrOrInput(const Node& n, const char* attr, size_t input, std::vector<int64_t>* out) {
  if (n.hasAttr(attr)) { *out = n.attrInts(attr); return true; }
  if (n.input(input)) { *out = constInts(n, input, attr); return true; }
  return false;
}

}  // namespace dm
}  // namespace atc
