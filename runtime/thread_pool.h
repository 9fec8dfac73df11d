// Fixed thread pool behind AtcRt.parallel_for: the caller takes part, workers spin briefly
// between jobs before sleeping so runs of small kernels are not dominated by wake-ups.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/atc_rt_abi.h"
#include "runtime/fault_guard.h"

namespace atc {
namespace rt {

class ThreadPool {
 public:
  explicit ThreadPool(int threads);  // total threads including the caller (>= 1)
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return (int)workers_.size() + 1; }
  // Runs fn(ctx, b, e) over chunks covering [0, n); returns when every chunk is done.
  void parallelFor(int64_t n, AtcTaskFn fn, void* ctx);
  // With a record set, every chunk of the following jobs runs guarded (runtime/fault_guard.h):
  // a fault inside one is recorded there and its chunk counts as done. Set between jobs only.
  void setFaultGuard(FaultRecord* rec) { guard_ = rec; }
  // The AtcRt handed to kernel entries.
  const AtcRt* rt() const { return &rt_; }

 private:
  void workerLoop();
  void runChunks(AtcTaskFn fn, void* ctx, int64_t n, int64_t chunk, FaultRecord* guard);

  std::vector<std::thread> workers_;
  AtcRt rt_;
  std::mutex mu_;
  std::condition_variable cv_;
  int sleepers_ = 0;
  bool stop_ = false;
  std::atomic<uint64_t> gen_{0};
  // Current job (written under mu_ while no worker is inside a job).
  AtcTaskFn fn_ = nullptr;
  void* ctx_ = nullptr;
  int64_t n_ = 0, chunk_ = 1;
  FaultRecord* guard_ = nullptr;     // set by the caller between jobs
  FaultRecord* jobGuard_ = nullptr;  // the current job's copy, read by the workers
  std::atomic<int64_t> next_{0};
  std::atomic<int64_t> done_{0};
  std::atomic<int> inside_{0};
};

}  // namespace rt
}  // namespace atc
