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

// Tasks one at a time, last first: the runtime runs them on several threads in any order, so a
// task that writes outside its own part of the output (or reads another's) shows up here as a
// wrong result in the kernel tests, not only as a rare race in a model.
void runNativeKernel(const NativeKernel& k, const int64_t* params, void** bufs) {
  for (int64_t i = k.ntasks(params) - 1; i >= 0; --i) k.task(params, bufs, i, i + 1);
}
}  // namespace atc
