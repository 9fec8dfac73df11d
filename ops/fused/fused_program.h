// Expression programs of the fused_eltwise kernel (kernels/lib/fused_eltwise.cpp) and the
// lowering that builds its call. Used by FusedEltwise and Gelu (ops/fused) and the UB-fusion
// passes (passes/ub_fusion).
#pragma once
#include <vector>

#include "ir/op_registry.h"
#include "kernels/lib/fused_params.h"
#include "kernels/lib/math_eltwise_codes.h"

namespace atc {

struct FeOp {
  int64_t code, dst, a, b;  // b = -1 for unary ops and constants
  double alpha = 0, beta = 0;
};

struct FeProgram {
  int64_t nin = 0;
  std::vector<FeOp> ops;
  int64_t outReg = 0;
  int64_t nextReg() const { return nin + (int64_t)ops.size(); }
  int64_t add(int64_t code, int64_t a, int64_t b = -1, double alpha = 0, double beta = 0) {
    int64_t d = nextReg();
    ops.push_back(FeOp{code, d, a, b, alpha, beta});
    outReg = d;
    return d;
  }
  int64_t constant(double v) { return add(FE_OP_CONST, 0, -1, v); }
};

// Program <-> node attributes ("program": [code,dst,a,b]*, "op_params": [alpha,beta]*, "out_reg").
void storeFeProgram(Node& n, const FeProgram& p);
FeProgram loadFeProgram(const Node& n);

// The fused_eltwise call for node n: present inputs broadcast to `out`.
KernelCall makeFusedEltwiseCall(const Node& n, const FeProgram& prog, const TensorType& out);

}  // namespace atc
