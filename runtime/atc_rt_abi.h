/* ABI between the runtime and the generated kernel entries in an .om's shared object. */
#ifndef ATC_RT_ABI_H
#define ATC_RT_ABI_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*AtcTaskFn)(void* ctx, int64_t begin, int64_t end);

typedef struct AtcRt {
  void* pool;
  /* Runs fn(ctx, b, e) over chunks covering [0, n), in parallel; returns when all done. */
  void (*parallel_for)(void* pool, int64_t n, AtcTaskFn fn, void* ctx);
} AtcRt;

/* Each generated kernel entry: bufs = inputs, outputs, workspace (as in the kernel ABI). */
typedef void (*AtcKernelEntry)(void** bufs, const AtcRt* rt);

#ifdef __cplusplus
}
#endif
#endif
