// The checks atc can compile into a model (docs/debugging.md) and the exception dump:
//  - status check (atc --status_check=1): each step's float outputs are scanned for inf/NaN;
//  - oom (atc --op_debug_config with `oom`): the kernels check each load and store against its
//    buffer (a failure traps, runtime/fault_guard.h), and every arena buffer has red zones
//    before and after it; the runtime fills those of a step's buffers before the step and
//    checks them after;
//  - exception dump (omrun --enable_exception_dump, Model::setExceptionDump): when a step fails
//    one of these checks or faults (runtime/fault_guard.h), its inputs, outputs and workspace
//    are written to a folder before the run stops with a KernelError naming the op.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/atc_runtime.h"

namespace atc {
namespace rt {

constexpr uint8_t kRedzoneByte = 0xA5;

// One arena buffer a step reads or writes, with its red zones (rz bytes each side).
struct StepSpan {
  uint8_t* data = nullptr;
  uint64_t size = 0;
};

void fillRedzones(const std::vector<StepSpan>& spans, uint64_t rz);
// "" or what the step wrote outside its buffers: which argument, before or after it, how far.
std::string checkRedzones(const StepInfo& s, const std::vector<StepSpan>& spans, uint64_t rz);
// What a failed compiled bounds check (an `oom` build) did: "stored 4 bytes at byte 60 of its
// output 0 (y), a buffer of 60 bytes". slot: the argument (-1: outside every buffer, off is
// then the address; -2: the argument table).
std::string describeOutOfBounds(const StepInfo& s, int64_t slot, bool store, int64_t off, int64_t bytes, int64_t size);
// "" or the first output of the step holding inf or NaN (float32/16, bfloat16, float64).
std::string checkFinite(const StepInfo& s);

// Writes <dir>/<model>/<step>_<node>/ with input.K.npy, output.K.npy, workspace.bin and
// exception_info.json (op, type, kernel, fused_from, reason). Returns the folder, or "" with
// *err set when it could not be written (the run still stops with the reason).
std::string writeExceptionDump(const std::string& dir, const std::string& model, const StepInfo& s,
                               const StepSpan& workspace, const std::string& reason, std::string* err);

}  // namespace rt
}  // namespace atc
