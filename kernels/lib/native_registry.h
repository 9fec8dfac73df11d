// Native (host-compiled) kernels, for constant folding and kernel tests.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/lib/kernel_abi.h"

namespace atc {
const NativeKernel* findNativeKernel(const char* name);
std::vector<const NativeKernel*> allNativeKernels();
// Runs the kernel serially over all its work items.
void runNativeKernel(const NativeKernel& k, const int64_t* params, void** bufs);
}  // namespace atc
