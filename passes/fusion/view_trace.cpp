#include "passes/fusion/view_trace.h"

namespace atc {
namespace fu {

std::vector<int64_t> contiguousStrides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (int64_t i = (int64_t)s.size() - 2; i >= 0; --i) st[i] = st[i + 1] * s[i + 1];
  return st;
}

bool reshapeStrides(const Shape& from, const std::vector<int64_t>& fst, const Shape& to,
                    std::vector<int64_t>* out) {
  std::vector<int64_t> od, os;
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i] == 0) return false;
    if (from[i] != 1) {
      od.push_back(from[i]);
      os.push_back(fst[i]);
    }
  }
  out->assign(to.size(), 0);
  size_t oi = 0, ni = 0;
  while (ni < to.size()) {
    if (to[ni] <= 0) return false;
    if (to[ni] == 1) {
      ni++;
      continue;
    }
    if (oi >= od.size()) return false;
    int64_t np = to[ni], op = od[oi];
    size_t nj = ni + 1, oj = oi + 1;
    while (np != op) {
      if (np < op) {
        if (nj >= to.size()) return false;
        np *= to[nj++];
      } else {
        if (oj >= od.size()) return false;
        op *= od[oj++];
      }
    }
    for (size_t k = oi; k + 1 < oj; ++k)
      if (os[k] != os[k + 1] * od[k + 1]) return false;
    int64_t st = os[oj - 1];
    for (size_t k = nj; k-- > ni;) {
      (*out)[k] = st;
      st *= to[k];
    }
    ni = nj;
    oi = oj;
  }
  return oi == od.size();
}

namespace {

bool staticOk(const Value* v) { return v && v->type.isStatic(); }

}  // namespace

StridedView traceView(Value* v) {
  StridedView self;
  self.base = v;
  self.shape = v->type.shape;
  self.strides = contiguousStrides(self.shape);
  Node* p = v->producer;
  if (!p || !staticOk(v) || p->inputs.empty() || !staticOk(p->inputs[0])) return self;
  const std::string& t = p->type;
  if (t == "Transpose") {
    StridedView in = traceView(p->inputs[0]);
    size_t r = in.shape.size();
    std::vector<int64_t> perm = p->attrInts("perm");
    if (perm.empty())
      for (size_t i = 0; i < r; ++i) perm.push_back((int64_t)(r - 1 - i));
    if (perm.size() != r) return self;
    StridedView out = in;
    for (size_t i = 0; i < r; ++i) {
      if (perm[i] < 0 || perm[i] >= (int64_t)r) return self;
      out.shape[i] = in.shape[perm[i]];
      out.strides[i] = in.strides[perm[i]];
    }
    if (out.shape != v->type.shape) return self;
    out.through.insert(out.through.begin(), p);
    return out;
  }
  if (t == "Reshape" || t == "Flatten" || t == "Squeeze" || t == "Unsqueeze") {
    StridedView in = traceView(p->inputs[0]);
    StridedView out = in;
    out.shape = v->type.shape;
    if (!reshapeStrides(in.shape, in.strides, out.shape, &out.strides)) return self;
    out.through.insert(out.through.begin(), p);
    return out;
  }
  if (t == "Split") {
    StridedView in = traceView(p->inputs[0]);
    int64_t r = (int64_t)in.shape.size(), axis = p->attrInt("axis", 0);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) return self;
    int64_t start = 0;
    for (int i = 0; i < v->producerIndex; ++i) {
      const Value* o = p->outputs[i];
      if (!staticOk(o) || (int64_t)o->type.shape.size() != r) return self;
      start += o->type.shape[axis];
    }
    StridedView out = in;
    out.offset += start * in.strides[axis];
    out.shape = v->type.shape;
    if ((int64_t)out.shape.size() != r) return self;
    out.through.insert(out.through.begin(), p);
    return out;
  }
  return self;
}

}  // namespace fu
}  // namespace atc
