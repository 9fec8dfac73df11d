// Thread pool: every item of every parallel_for runs exactly once, across many short jobs
// (the job hand-over protocol), with more threads than cores too.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "runtime/thread_pool.h"

namespace {

struct Ctx {
  std::vector<std::atomic<int>>* hits;
};

void mark(void* c, int64_t b, int64_t e) {
  auto* ctx = static_cast<Ctx*>(c);
  for (int64_t i = b; i < e; ++i) (*ctx->hits)[(size_t)i].fetch_add(1);
}

}  // namespace

TEST(RuntimeThreadPool, EveryItemOnce) {
  for (int threads : {1, 2, 5}) {
    atc::rt::ThreadPool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    for (int iter = 0; iter < 3000; ++iter) {
      int64_t n = (iter * 37) % 301;
      std::vector<std::atomic<int>> hits((size_t)n);
      Ctx ctx{&hits};
      pool.rt()->parallel_for(pool.rt()->pool, n, mark, &ctx);
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[(size_t)i].load(), 1) << "threads " << threads << " n " << n;
    }
  }
}
