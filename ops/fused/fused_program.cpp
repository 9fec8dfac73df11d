#include "ops/fused/fused_program.h"

#include "ir/error.h"

namespace atc {

void storeFeProgram(Node& n, const FeProgram& p) {
  std::vector<int64_t> code;
  std::vector<double> prm;
  for (auto& o : p.ops) {
    code.insert(code.end(), {o.code, o.dst, o.a, o.b});
    prm.insert(prm.end(), {o.alpha, o.beta});
  }
  n.attrs["program"] = code;
  n.attrs["op_params"] = prm;
  n.attrs["out_reg"] = p.outReg;
}

FeProgram loadFeProgram(const Node& n) {
  FeProgram p;
  p.nin = (int64_t)n.inputs.size();
  std::vector<int64_t> code = n.attrInts("program");
  std::vector<double> prm = n.attrFloats("op_params");
  if (code.size() % 4 || prm.size() != code.size() / 2) opError(n, "malformed fused program");
  for (size_t i = 0; i < code.size() / 4; ++i) {
    FeOp o{code[4 * i], code[4 * i + 1], code[4 * i + 2], code[4 * i + 3], prm[2 * i], prm[2 * i + 1]};
    int64_t lim = p.nin + (int64_t)i;
    if (o.dst != lim || o.a < 0 || o.a >= lim || o.b >= lim) opError(n, "fused program register out of range");
    p.ops.push_back(o);
  }
  p.outReg = n.attrInt("out_reg", p.nin + (int64_t)p.ops.size() - 1);
  if (p.outReg < 0 || p.outReg >= p.nextReg()) opError(n, "fused program output register out of range");
  return p;
}

KernelCall makeFusedEltwiseCall(const Node& n, const FeProgram& prog, const TensorType& out) {
  const size_t nin = n.inputs.size();
  if (nin == 0 || nin > FE_MAX_IN) opError(n, "fused_eltwise: 1 to 8 inputs");
  if (prog.nextReg() > FE_MAX_REG) opError(n, "fused_eltwise: program too long");
  for (auto* v : n.inputs)
    if (!v || v->type.dtype != DType::F32) opError(n, "fused_eltwise: float32 inputs only");
  const Shape& os = out.shape;
  const size_t R = os.size();
  std::vector<std::vector<int64_t>> st(nin, std::vector<int64_t>(R, 0));
  for (size_t k = 0; k < nin; ++k) {
    const Shape& is = n.inputs[k]->type.shape;
    if (is.size() > R) opError(n, "fused_eltwise: input rank above output rank");
    size_t off = R - is.size();
    int64_t stride = 1;
    for (size_t d = is.size(); d-- > 0;) {
      st[k][off + d] = (is[d] == 1 && os[off + d] != 1) ? 0 : stride;
      stride *= is[d];
    }
  }
  std::vector<int64_t> shape;
  std::vector<std::vector<int64_t>> cst(nin);
  for (size_t d = 0; d < R; ++d) {
    if (os[d] == 1) continue;
    bool merge = !shape.empty();
    for (size_t k = 0; k < nin && merge; ++k)
      if (cst[k].back() != st[k][d] * os[d]) merge = false;
    if (merge) {
      shape.back() *= os[d];
      for (size_t k = 0; k < nin; ++k) cst[k].back() = st[k][d];
    } else {
      shape.push_back(os[d]);
      for (size_t k = 0; k < nin; ++k) cst[k].push_back(st[k][d]);
    }
  }
  if (shape.empty()) {
    shape.push_back(1);
    for (size_t k = 0; k < nin; ++k) cst[k].push_back(0);
  }
  if (shape.size() > FE_MAX_RANK) opError(n, "fused_eltwise: rank too large after collapsing");
  int64_t total = 1;
  for (int64_t d : os) total *= d;
  KernelCall c;
  c.kernel = "fused_eltwise";
  auto& p = c.params;
  p.resize(FE_HEADER, 0);
  p[FE_NIN] = (int64_t)nin;
  p[FE_RANK] = (int64_t)shape.size();
  p[FE_TOTAL] = total;
  p[FE_OUTBUF] = (int64_t)nin;
  p[FE_NOPS] = (int64_t)prog.ops.size();
  p[FE_OUTREG] = prog.outReg;
  for (size_t k = 0; k < nin; ++k) p.push_back((int64_t)k);
  for (auto d : shape) p.push_back(d);
  for (size_t k = 0; k < nin; ++k)
    for (auto s : cst[k]) p.push_back(s);
  for (auto& o : prog.ops) {
    p.insert(p.end(), {o.code, o.dst, o.a, o.b});
    p.push_back(paramFromDouble(o.alpha));
    p.push_back(paramFromDouble(o.beta));
  }
  return c;
}

}  // namespace atc
