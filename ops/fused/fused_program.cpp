#include "ops/fused/fused_program.h"

#include "support/diagnostics.h"
#include "ops/elementwise/eltwise_common.h"

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
  // float32, or one narrow float (float16 / bfloat16) for every input and the output.
  const DType st = n.inputs.empty() || !n.inputs[0] ? DType::F32 : n.inputs[0]->type.dtype;
  if (st != DType::F32 && st != DType::F16 && st != DType::BF16) opError(n, "fused_eltwise: float inputs only");
  for (auto* v : n.inputs)
    if (!v || v->type.dtype != st) opError(n, "fused_eltwise: inputs of one float dtype only");
  if (out.dtype != st) opError(n, "fused_eltwise: the output has its inputs' dtype");
  std::vector<const Shape*> inShapes;
  for (auto* v : n.inputs) inShapes.push_back(&v->type.shape);
  const BroadcastLayout lay = collapseBroadcast(n, inShapes, out.shape, FE_MAX_RANK);
  const std::vector<int64_t>& shape = lay.shape;
  const std::vector<std::vector<int64_t>>& cst = lay.strides;
  const int64_t total = lay.total;
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
  p[FE_DT] = st == DType::F32 ? 0 : (int64_t)st;
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
