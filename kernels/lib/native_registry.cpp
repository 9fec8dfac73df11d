#include "kernels/lib/native_registry.h"

#include <cstring>

namespace atc {
namespace {
std::vector<NativeKernel>& table() {
  static std::vector<NativeKernel> t;
  return t;
}
}  // namespace

void registerNativeKernel(const NativeKernel& k) { table().push_back(k); }

const NativeKernel* findNativeKernel(const char* name) {
  for (auto& k : table())
    if (std::strcmp(k.name, name) == 0) return &k;
  return nullptr;
}

std::vector<const NativeKernel*> allNativeKernels() {
  std::vector<const NativeKernel*> r;
  for (auto& k : table()) r.push_back(&k);
  return r;
}

void runNativeKernel(const NativeKernel& k, const int64_t* params, void** bufs) {
  int64_t n = k.ntasks(params);
  if (n > 0) k.task(params, bufs, 0, n);
}
}  // namespace atc
