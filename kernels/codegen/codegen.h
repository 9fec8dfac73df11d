// Kernel code generation with LLVM: the only module that includes LLVM headers.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cache/kernel_cache.h"
#include "target/target_profile.h"

namespace atc {

struct KernelInstance {
  std::string kernel;            // library kernel name (atck_<kernel>_ntasks/_task)
  std::vector<int64_t> params;   // baked in as a constant
  std::string symbol;            // exported entry symbol in the shared object
  // The graph nodes this instance serves (names and op types): --op_debug_config's
  // op_debug_list selects instances by them, and cache hits are reported per node.
  std::vector<std::string> nodes, opTypes;
  // `oom` (docs/debugging.md): every load and store of the kernel is checked against the
  // bytes of the buffer it addresses, bufBytes: one per argument in the kernel ABI's order
  // (inputs, outputs, workspace; 0: absent or empty). See bounds_check.h.
  bool boundsCheck = false;
  std::vector<int64_t> bufBytes;
  // A generic instance (a shape-range build, docs/dynamic-shapes.md, "Ranges"): the params at
  // the positions runtimeParams marks are read at run time from the int64 array whose address
  // the runtime puts in the slot before bufs[0] (bufs[-1]; the plan step's `params`); the
  // others are baked in from params as usual (so code paths chosen by them fold away).
  bool generic = false;
  std::vector<uint8_t> runtimeParams;  // generic: one per param, 1 = read at run time
};

struct CodegenOptions {
  int optLevel = 3;
  int workers = 0;  // 0 = $TE_PARALLEL_COMPILER, else the number of cores
  // The disk kernel cache (docs/cache.md); mode Disable = no cache.
  cache::CacheSettings cache;
  // Called (serialised) after each unique kernel is served: (done, total, cache hits).
  std::function<void(size_t, size_t, size_t)> progress;
  // kernel_meta (docs/debugging.md): when set, an existing folder that receives, per compiled
  // kernel, <symbol>.ll (optimised IR with line tables), .s, .o and .json (params, nodes,
  // source line in kernels/lib, target). Set with the cache bypassed: cache hits have none.
  std::string kernelMetaDir;
  // When set: receives, per input instance (input order), 1 if served from the cache.
  std::vector<uint8_t>* hitsOut = nullptr;
};

// Specialises each instance, compiles it for the target and links all of them into one
// ELF shared object. Each symbol has the signature of AtcKernelEntry (runtime/atc_rt_abi.h).
// Deterministic: same inputs -> byte-identical output. Throws AtcError E20001 on failure.
std::vector<uint8_t> compileKernels(const TargetProfile& target,
                                    const std::vector<KernelInstance>& instances,
                                    const CodegenOptions& opts);

std::string llvmVersionString();

// Versions that determine the machine code besides a kernel's own description: atc, the
// codegen scheme, LLVM, and the hash of the embedded kernel bitcode.
std::string codegenVersionTag();
// The content key (SHA-256 hex) of one kernel instance's object: its description (kernel
// name + params), the target (triple, CPU, features), the codegen options and the versions.
// Independent of the instance's symbol and of the model.
std::string kernelCacheKey(const TargetProfile& target, const KernelInstance& ki, const CodegenOptions& opts);

}  // namespace atc
