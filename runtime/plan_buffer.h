// One buffer of a task plan (docs/om-format.md, TASK_INFO "buffers"), as the loader checked it.
#pragma once
#include <cstddef>
#include <cstdint>

namespace atc {
namespace rt {

struct PlanBuffer {
  bool weights = false;
  uint64_t offset = 0, size = 0;
  bool run = false;  // a run-sized value: offset / size is its dims slot in the arena
  int64_t rank = 0;
  size_t esize = 0;
};

}  // namespace rt
}  // namespace atc
