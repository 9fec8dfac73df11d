#include "runtime/cpu_check.h"

#include <cstring>

namespace atc {
namespace rt {
namespace {

// Returns 1 present, 0 absent, -1 unknown feature.
int hostHas(const std::string& f) {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
#define ATC_CPU_FEATURE(name) \
  if (f == name) return __builtin_cpu_supports(name) ? 1 : 0;
  ATC_CPU_FEATURE("sse3")
  ATC_CPU_FEATURE("ssse3")
  ATC_CPU_FEATURE("sse4.1")
  ATC_CPU_FEATURE("sse4.2")
  ATC_CPU_FEATURE("popcnt")
  ATC_CPU_FEATURE("avx")
  ATC_CPU_FEATURE("avx2")
  ATC_CPU_FEATURE("fma")
  ATC_CPU_FEATURE("f16c")
  ATC_CPU_FEATURE("bmi")
  ATC_CPU_FEATURE("bmi2")
  ATC_CPU_FEATURE("movbe")
  ATC_CPU_FEATURE("lzcnt")
  ATC_CPU_FEATURE("avx512f")
  ATC_CPU_FEATURE("avx512bw")
  ATC_CPU_FEATURE("avx512dq")
  ATC_CPU_FEATURE("avx512vl")
  ATC_CPU_FEATURE("avx512cd")
  ATC_CPU_FEATURE("avx512vnni")
  ATC_CPU_FEATURE("avxvnni")
  ATC_CPU_FEATURE("avx512bf16")
  ATC_CPU_FEATURE("avx512vbmi")
  ATC_CPU_FEATURE("avx512ifma")
  ATC_CPU_FEATURE("avx512bitalg")
  ATC_CPU_FEATURE("avx512vpopcntdq")
#undef ATC_CPU_FEATURE
#endif
  return -1;
}

}  // namespace

bool cpuFeatureCheckable(const std::string& feature) { return hostHas(feature) >= 0; }

std::vector<std::string> missingCpuFeatures(const std::vector<std::string>& required) {
  std::vector<std::string> out;
  for (auto& f : required)
    if (hostHas(f) == 0) out.push_back(f);
  return out;
}

}  // namespace rt
}  // namespace atc
