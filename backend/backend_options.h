// What the backend (lowering, memory plan, kernel code generation, .om serialisation) is told.
#pragma once
#include <string>

#include "cache/kernel_cache.h"

namespace atc {

// The red zone on each side of a buffer in an `oom` build: four 512-bit vectors.
constexpr int64_t kOomRedzoneBytes = 256;

struct BackendOptions {
  int threads = 0;                  // code generation workers (0 = $TE_PARALLEL_COMPILER or the cores)
  bool disableReuseMemory = false;  // --disable_reuse_memory=1: every buffer its own memory, no aliasing
  // The most memory (arena + weights, bytes) a model may need at run time: a larger plan is
  // refused at build time instead of at load ($ATC_MAX_MODEL_MEMORY_BYTES; default 64 GiB).
  int64_t maxModelMemoryBytes = int64_t(64) << 30;
  int opDebugLevel = 0;             // --op_debug_level (!= 0 bypasses the kernel cache)
  // The kernel cache: mode, resolved folder, bypass and recompile list (--op_compiler_cache_mode,
  // --op_compiler_cache_dir, --op_debug_level, --op_debug_config parsed once at the command line).
  cache::CacheSettings kernelCache;
  // The driver's memory economy: buildOm hands each weight's bytes to the .om image and the
  // graph's values drop them (they are no longer constants afterwards).
  bool releaseConstants = false;
  // --sign_key: the .om gets an empty SIGNATURE partition, signed in place by the driver.
  bool reserveSignature = false;
  // Checks compiled into the model (docs/debugging.md): --status_check=1 (inf/NaN in each op's
  // float outputs stops the run) and --op_debug_config oom: every kernel load and store checked
  // against its buffer's bounds (oomBoundsCheck), and red zones of oomRedzone bytes before and
  // after every arena buffer, checked after each op (what the compiled checks cannot see).
  bool statusCheck = false;
  bool oomBoundsCheck = false;
  int64_t oomRedzone = 0;
  // kernel_meta folder (--op_debug_level=2+, op_debug_config dump_cce/dump_loc); "" = none.
  std::string kernelMetaDir;
  // Recorded in the model definition.
  std::string cmdline;
  int framework = 5;
};

}  // namespace atc
