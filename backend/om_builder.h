// The backend: lowers an optimised graph (backend/lowering.h), plans its memory
// (backend/buffer_plan.h), compiles its kernels (kernels/codegen, through the kernel cache)
// and serialises the .om (see docs/om-format.md).
#pragma once
#include <functional>
#include <cstdint>
#include <vector>

#include "backend/backend_options.h"
#include "ir/graph.h"
#include "passes/compile_report.h"
#include "target/target_profile.h"

namespace atc {

// g must be verified, topologically sorted, with static shapes everywhere. Kernel cache hits
// per node go to *cacheReport when given.
std::vector<uint8_t> buildOm(Graph& g, const BackendOptions& opts, const TargetProfile& target,
                             KernelCacheReport* cacheReport = nullptr);
// The same into memory from alloc(size), which returns size zeroed bytes (the driver's
// calloc'd image: with opts.releaseConstants the weights then exist once, not twice).
// Returns the size.
size_t buildOm(Graph& g, const BackendOptions& opts, const TargetProfile& target, KernelCacheReport* cacheReport,
               const std::function<uint8_t*(size_t)>& alloc);

}  // namespace atc
