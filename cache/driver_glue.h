// Glue between atc's options/console and the kernel cache (part of atc_driver).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "atc/compile_options.h"
#include "kernels/codegen/codegen.h"

namespace atc {

// Fills co.cache (mode, folder, debug bypass) and co.progress (a progress line on a terminal;
// an --log=info summary otherwise) from the options.
void configureKernelCache(const CompileOptions& opts, CodegenOptions& co);
// Records per-node cache hits in opts.kernelCacheReport (hits: from CodegenOptions.hitsOut).
void reportKernelCacheHits(const CompileOptions& opts, const std::vector<KernelInstance>& instances,
                           const std::vector<uint8_t>& hits);

}  // namespace atc
