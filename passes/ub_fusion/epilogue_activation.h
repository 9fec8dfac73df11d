// The activations a fused kernel can apply to its output (cube epilogues,
// TbeCommonRules0FusionPass; normalisation epilogues, TbeReduceElemwiseFusionPass): the
// AtckEltOp unary code and its params for node n, or false.
#pragma once
#include <limits>
#include <set>
#include <string>

#include "ir/graph.h"
#include "kernels/lib/math_eltwise_codes.h"
#include "passes/fusion/fusion_util.h"
#include "ops/elementwise/unary_table.h"
#include "ops/impl_variant.h"

namespace atc {

// Activation code and params of n, or false.
inline bool activationOf(const Node& n, int64_t* code, double* a, double* b) {
  // The activations the epilogue applies (codes and params: ops/elementwise/unary_table.h).
  static const std::set<std::string> kEpilogue = {"Relu", "Sigmoid", "Tanh", "LeakyRelu",
                                                  "HardSigmoid", "HardSwish", "Elu"};
  *a = *b = 0;
  if (implKeepsOwnKernel(n)) return false;  // docs/implmode.md
  if (n.type == "Gelu") {
    if (n.attrString("approximate", "none") != "none") return false;
    *code = ATCK_E_GELU;
    return true;
  }
  if ((n.type != "Clip" && !kEpilogue.count(n.type)) || n.outputs[0]->type.dtype != DType::F32) return false;
  if (const UnaryOpRow* row = findUnaryOp(n.type)) {
    *code = row->code;
    unaryAlphaBeta(*row, n, a, b);
  }
  if (n.type == "Clip") {
    *code = ATCK_E_CLIP;
    *a = n.hasAttr("min") ? n.attrFloat("min", 0) : -std::numeric_limits<double>::infinity();
    *b = n.hasAttr("max") ? n.attrFloat("max", 0) : std::numeric_limits<double>::infinity();
    for (int i = 1; i < 3; ++i) {
      Value* v = n.input(i);
      if (!v) continue;
      double d;
      if (!fu::scalarConst(v, &d)) return false;
      (i == 1 ? *a : *b) = d;
    }
  } else if (n.inputs.size() != 1) {
    return false;
  }
  return true;
}

// Records the activation on the fused node (read back by setCubeEpilogue in
// ops/cube/gemm_lowering.h and by the normalize lowering).
inline void setEpilogueActivation(Node* n, int64_t code, double a, double b) {
  n->attrs["_epi_act"] = code;
  n->attrs["_epi_alpha"] = a;
  n->attrs["_epi_beta"] = b;
}

}  // namespace atc
