// Glue between the backend and the kernel cache: the code generator's cache settings and
// progress line, and the per-node hit report (fusion_result.json's repository_hit_times).
#pragma once
#include <cstdint>
#include <vector>

#include "backend/backend_options.h"
#include "kernels/codegen/codegen.h"
#include "passes/compile_report.h"

namespace atc {

// Fills co.cache from the options (parsed at the command line) and co.progress (a progress
// line on a terminal; an --log=info summary otherwise).
void configureKernelCache(const BackendOptions& opts, CodegenOptions& co);
// Per-node cache hits (hits: from CodegenOptions.hitsOut, one per instance).
void reportKernelCacheHits(const std::vector<KernelInstance>& instances, const std::vector<uint8_t>& hits,
                           KernelCacheReport& report);

}  // namespace atc
