#include "kernels/codegen/host_cpu.h"

#include <algorithm>
#include <vector>

#include <llvm/ADT/StringMap.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

namespace atc {

HostCpu hostCpu() {
  HostCpu h;
  h.triple = llvm::Triple::normalize(llvm::sys::getDefaultTargetTriple());
  h.cpu = llvm::sys::getHostCPUName().str();
  auto feats = llvm::sys::getHostCPUFeatures();
  std::vector<std::string> fs;
  for (auto& kv : feats) fs.push_back((kv.second ? "+" : "-") + kv.first().str());
  std::sort(fs.begin(), fs.end());
  for (auto& f : fs) h.features += (h.features.empty() ? "" : ",") + f;
  return h;
}

TargetProfile loadHostTargetProfile(const std::string& socVersion) { return loadTargetProfile(socVersion, hostCpu()); }

}  // namespace atc
