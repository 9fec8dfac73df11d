// What a compile reports back (the options carry only inputs): the passes that ran with
// their counters, the kernel cache's hits per node, and the phase timings.
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "passes/pass.h"

namespace atc {

struct KernelCacheReport {
  size_t unique = 0, hits = 0;
  std::map<std::string, bool> nodeHit;  // graph node name -> its kernel came from the cache
};

struct CompileReport {
  std::vector<PassRecord> passes;
  KernelCacheReport kernelCache;
  std::vector<std::pair<std::string, double>> phaseMilliseconds;
};

}  // namespace atc
