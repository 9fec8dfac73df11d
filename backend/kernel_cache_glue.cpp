#include "backend/kernel_cache_glue.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "support/log.h"
#include "cache/entry_file.h"

namespace atc {
namespace {

void infoSink(const std::string& t) { logInfo(t); }

// "\r" progress line on a terminal (stdout), at most every 100 ms and at the end.
struct Progress {
  bool tty = ::isatty(STDOUT_FILENO) == 1;
  std::chrono::steady_clock::time_point last{};
  bool printed = false;
  void operator()(size_t done, size_t total, size_t hits) {
    if (!tty) {
      if (done == total) logInfo("kernels: " + std::to_string(total) + " unique, " + std::to_string(hits) +
                                 " from the kernel cache, " + std::to_string(total - hits) + " compiled");
      return;
    }
    auto now = std::chrono::steady_clock::now();
    if (done != total && printed && now - last < std::chrono::milliseconds(100)) return;
    last = now;
    printed = true;
    std::printf("\rcompiling kernels: %zu/%zu (cache hits: %zu)%s", done, total, hits, done == total ? "\n" : "");
    std::fflush(stdout);
  }
};

}  // namespace

void configureKernelCache(const BackendOptions& opts, CodegenOptions& co) {
  cache::setInfoSink(&infoSink);
  co.cache = opts.kernelCache;
  const cache::CacheSettings& s = co.cache;
  if (opts.opDebugLevel != 0)
    logInfo("--op_debug_level=" + std::to_string(opts.opDebugLevel) + ": the kernel cache is bypassed");
  else if (s.bypassAll)
    logInfo("--op_debug_config without op_debug_list: the kernel cache is bypassed");
  if (s.mode != cache::CacheMode::Disable && !s.bypassAll) logInfo("kernel cache: " + s.dir + "/kernel_cache");
  auto p = std::make_shared<Progress>();
  co.progress = [p](size_t d, size_t t, size_t h) { (*p)(d, t, h); };
}

void reportKernelCacheHits(const std::vector<KernelInstance>& instances, const std::vector<uint8_t>& hits,
                           KernelCacheReport& r) {
  r.unique = r.hits = 0;
  r.nodeHit.clear();
  for (size_t i = 0; i < instances.size() && i < hits.size(); ++i) {
    ++r.unique;
    r.hits += hits[i];
    // A node of a dynamic model is served by one instance per gear; the first (gear 0's,
    // whose passes fusion_result.json reports) decides.
    for (auto& n : instances[i].nodes) r.nodeHit.emplace(n, hits[i] != 0);
  }
}

}  // namespace atc
