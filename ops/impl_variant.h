// Read side of the implementation modes for op lowerings (header-only, no link dependency):
// the "_impl_mode" attribute set by the ImplModeSelection pass -> kernel variant code.
#pragma once
#include <cstdint>

#include "ir/graph.h"
#include "kernels/lib/math_impl.h"

namespace atc {

// AtckImplVariant of the node (ATCK_IV_PERF when no mode was set).
inline int64_t implVariantOf(const Node& n) {
  std::string m = n.attrString("_impl_mode", "");
  if (m == "high_precision") return ATCK_IV_PREC;
  if (m == "super_performance") return ATCK_IV_SUPER;
  if (m == "keep_fp16") return ATCK_IV_FP16;
  return ATCK_IV_PERF;
}

// support_out_of_bound_index: indices are checked (out of range: zeros / update skipped).
inline bool implChecksIndices(const Node& n) {
  return n.attrString("_impl_mode", "") == "support_out_of_bound_index";
}

// A node whose mode is not its default keeps its own kernel: UB fusion leaves it alone
// (fused kernels implement the default mode only).
inline bool implKeepsOwnKernel(const Node& n) {
  std::string m = n.attrString("_impl_mode", "");
  return !m.empty() && m != "high_performance";
}

}  // namespace atc
