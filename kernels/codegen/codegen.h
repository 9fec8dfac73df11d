// Kernel code generation with LLVM: the only module that includes LLVM headers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace atc {

// A target profile, stored as data (kernels/targets/*.json, plus the built-in "native").
struct TargetProfile {
  std::string name;       // --soc_version value
  std::string triple;     // LLVM triple
  std::string cpu;        // LLVM CPU name (resolved to the host's for "native")
  std::string features;   // LLVM feature string "+avx2,+fma,..."
  nlohmann::json opInfo;  // per-op dtype support etc. (see docs/targets.md)
};

// Throws AtcError E10001 listing the known names when the name is unknown.
TargetProfile loadTargetProfile(const std::string& socVersion);
std::vector<std::string> knownTargetNames();

struct KernelInstance {
  std::string kernel;            // library kernel name (atck_<kernel>_ntasks/_task)
  std::vector<int64_t> params;   // baked in as a constant
  std::string symbol;            // exported entry symbol in the shared object
};

struct CodegenOptions {
  int optLevel = 3;
  int workers = 0;  // 0 = number of cores
};

// Specialises each instance, compiles it for the target and links all of them into one
// ELF shared object. Each symbol has the signature of AtcKernelEntry (runtime/atc_rt_abi.h).
// Deterministic: same inputs -> byte-identical output. Throws AtcError E20001 on failure.
std::vector<uint8_t> compileKernels(const TargetProfile& target,
                                    const std::vector<KernelInstance>& instances,
                                    const CodegenOptions& opts);

std::string llvmVersionString();

}  // namespace atc
