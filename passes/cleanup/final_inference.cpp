// Last pass before lowering: orders the nodes, re-infers every node (rewrites may have
// changed types) and checks the graph is valid with static shapes everywhere.
#include "ir/op_registry.h"
#include "ir/verifier.h"
#include "passes/pass.h"

namespace atc {

bool runFinalInference(Graph& g, PassContext& ctx) {
  g.topoSort();
  inferGraph(g);
  VerifyOptions vo;
  vo.requireStaticShapes = true;
  verifyGraph(g, vo, "before lowering");
  return false;
}

}  // namespace atc
