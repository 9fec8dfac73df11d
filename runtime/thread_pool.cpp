#include "runtime/thread_pool.h"

#include <algorithm>

namespace atc {
namespace rt {
namespace {

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

void parallelForThunk(void* pool, int64_t n, AtcTaskFn fn, void* ctx) {
  static_cast<ThreadPool*>(pool)->parallelFor(n, fn, ctx);
}

constexpr int kSpinBeforeSleep = 20000;  // pause iterations (~0.1-0.5 ms) before blocking

}  // namespace

ThreadPool::ThreadPool(int threads) {
  rt_.pool = this;
  rt_.parallel_for = &parallelForThunk;
  for (int i = 1; i < std::max(1, threads); ++i) workers_.emplace_back([this] { workerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stop_ = true;
    gen_.fetch_add(1);
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::runChunks(AtcTaskFn fn, void* ctx, int64_t n, int64_t chunk, FaultRecord* guard) {
  for (;;) {
    int64_t b = next_.fetch_add(chunk, std::memory_order_relaxed);
    if (b >= n) break;
    int64_t e = std::min(n, b + chunk);
    if (guard) callGuarded(fn, ctx, b, e, guard);
    else fn(ctx, b, e);
    done_.fetch_add(e - b, std::memory_order_acq_rel);
  }
}

void ThreadPool::parallelFor(int64_t n, AtcTaskFn fn, void* ctx) {
  if (n <= 0) return;
  if (workers_.empty() || n == 1) {
    if (guard_) callGuarded(fn, ctx, 0, n, guard_);
    else fn(ctx, 0, n);
    return;
  }
  int64_t t = threads();
  int64_t chunk = std::max<int64_t>(1, (n + 4 * t - 1) / (4 * t));
  {
    // Workers from the previous job may still be leaving it; the job is only rewritten
    // when none is inside (they enter under the same lock).
    while (inside_.load(std::memory_order_acquire) != 0) cpuRelax();
    std::lock_guard<std::mutex> g(mu_);
    while (inside_.load(std::memory_order_acquire) != 0) cpuRelax();
    fn_ = fn;
    ctx_ = ctx;
    n_ = n;
    chunk_ = chunk;
    jobGuard_ = guard_;
    next_.store(0, std::memory_order_relaxed);
    done_.store(0, std::memory_order_relaxed);
    gen_.fetch_add(1, std::memory_order_release);
    if (sleepers_ > 0) cv_.notify_all();
  }
  runChunks(fn, ctx, n, chunk, guard_);
  int spins = 0;
  while (done_.load(std::memory_order_acquire) < n || inside_.load(std::memory_order_acquire) != 0) {
    if (++spins < 4096) cpuRelax();
    else std::this_thread::yield();
  }
}

void ThreadPool::workerLoop() {
  uint64_t seen = 0;
  for (;;) {
    int spins = 0;
    while (gen_.load(std::memory_order_acquire) == seen && spins < kSpinBeforeSleep) {
      cpuRelax();
      ++spins;
    }
    AtcTaskFn fn;
    void* ctx;
    int64_t n, chunk;
    FaultRecord* guard;
    {
      std::unique_lock<std::mutex> lk(mu_);
      if (gen_.load(std::memory_order_acquire) == seen) {
        ++sleepers_;
        cv_.wait(lk, [&] { return gen_.load(std::memory_order_acquire) != seen; });
        --sleepers_;
      }
      if (stop_) return;
      seen = gen_.load(std::memory_order_acquire);
      fn = fn_;
      ctx = ctx_;
      n = n_;
      chunk = chunk_;
      guard = jobGuard_;
      inside_.fetch_add(1, std::memory_order_acq_rel);
    }
    runChunks(fn, ctx, n, chunk, guard);
    inside_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

}  // namespace rt
}  // namespace atc
