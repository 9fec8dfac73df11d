#include "runtime/cpu_check.h"

#include <cstring>

#if defined(__x86_64__) && defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace atc {
namespace rt {
namespace {

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__)
// AMX: CPUID.(7,0).EDX bit 22 AMX-BF16, 24 AMX-TILE, 25 AMX-INT8, and Linux's permission for
// this process to use the tile data (arch_prctl ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA; asked
// once, granted for every thread). Without the permission the first tile instruction faults.
int amxHas(int bit) {
  static const int granted = [] {
    unsigned a, b, c, d;
    __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(7), "c"(0));
    if (!(d >> 24 & 1)) return 0;
    return syscall(SYS_arch_prctl, 0x1023, 18) == 0 ? 1 : 0;
  }();
  unsigned a, b, c, d;
  __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(7), "c"(0));
  return granted && (d >> bit & 1) ? 1 : 0;
}
#endif

// Returns 1 present, 0 absent, -1 unknown feature.
int hostHas(const std::string& f) {
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__)
  if (f == "amx-bf16") return amxHas(22);
  if (f == "amx-tile") return amxHas(24);
  if (f == "amx-int8") return amxHas(25);
#endif
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
