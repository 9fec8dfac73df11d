// Static memory plan: places buffers with known lifetimes in one arena, reusing memory of
// buffers whose lifetimes do not overlap (best fit). Pure function, deterministic.
#pragma once
#include <cstdint>
#include <vector>

namespace atc {

struct PlanBuffer {
  int64_t size = 0;    // bytes (0 allowed)
  int first = 0;       // first step where it is live (inclusive)
  int last = 0;        // last step where it is live (inclusive)
  int64_t offset = -1; // result: 64-byte aligned offset in the arena
};

constexpr int64_t kPlanAlign = 64;

// Assigns offsets; returns the arena size (a multiple of 64). reuse=false gives every
// buffer its own memory.
int64_t planArena(std::vector<PlanBuffer>& bufs, bool reuse);

}  // namespace atc
