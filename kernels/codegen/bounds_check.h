// `oom` bounds checks compiled into a kernel (docs/debugging.md). Runs on the optimised IR,
// so it checks the loads and stores the machine code will do (vector widths included).
// Every load, store, masked load/store, gather/scatter and memcpy/memmove/memset whose address
// derives from a buffer of the kernel's argument table is checked against that buffer's
// bytes before it happens; one that would leave it stops in a trap that carries what it was
// (kernels/lib/kernel_abi.h: ATCK_OOB_TRAP_MAGIC) instead of touching memory.
#pragma once
#include <cstdint>
#include <vector>

namespace llvm {
class Argument;
class Function;
}  // namespace llvm

namespace atc {

struct BoundsCheckStats {
  int64_t checked = 0;    // accesses checked against the buffer they derive from
  int64_t anyBuffer = 0;  // derivation not followed: checked to lie inside one of the buffers
  int64_t unchecked = 0;  // memory accesses of a kind not instrumented (other calls)
};

// Instruments f, whose argument `table` is the kernel's buffer table (void** bufs) with
// bufBytes[i] bytes in slot i (0: absent or empty). Accesses to the stack, globals (the
// params) and the runtime's other arguments are not checked.
BoundsCheckStats instrumentBoundsChecks(llvm::Function& f, llvm::Argument* table, const std::vector<int64_t>& bufBytes);

}  // namespace atc
