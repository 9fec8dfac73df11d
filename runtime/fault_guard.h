// Guarded kernel calls for the exception dump (docs/debugging.md): a SIGSEGV, SIGBUS, SIGFPE or
// SIGILL raised inside a guarded call returns to the call instead of killing the process, so
// the runtime can name the op, dump its tensors and report an error. The handler is
// process-wide and installed on first use; a signal outside a guarded call goes to the
// disposition that was there before (the default: the process dies as it would have).
#pragma once
#include <atomic>
#include <cstdint>

namespace atc {
namespace rt {

// The first fault seen by the calls that share this record (a step's chunks on every thread).
// An `oom` build's failed bounds check is a SIGILL whose registers say what it was
// (kernels/lib/kernel_abi.h: ATCK_OOB_TRAP_MAGIC); oob is then set and the rest filled.
struct FaultRecord {
  std::atomic<int> sig{0};
  std::atomic<uintptr_t> addr{0};
  std::atomic<bool> oob{false};
  std::atomic<int64_t> oobSlot{0}, oobStore{0}, oobOffset{0}, oobBytes{0}, oobSize{0};
  void clear() { sig.store(0), addr.store(0), oob.store(false); }
};

// Calls fn(ctx, b, e). Returns false when a fault signal interrupted it (recorded in *rec,
// the first one wins). The interrupted code does not resume: a kernel that faults leaves its
// outputs partly written, which is why the caller stops the run.
bool callGuarded(void (*fn)(void*, int64_t, int64_t), void* ctx, int64_t b, int64_t e, FaultRecord* rec);

// "SIGSEGV (invalid memory access)" and the like.
const char* faultSignalName(int sig);

}  // namespace rt
}  // namespace atc
