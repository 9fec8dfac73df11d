// The kernel library ABI. Kernel sources in kernels/lib/*.cpp are compiled twice:
//  - to LLVM bitcode (ATC_BITCODE defined) that the code generator specialises per call:
//    it bakes the params array in as a constant, inlines, optimises for the target CPU
//    and emits machine code into the .om (a shape-range build's generic instances bake only
//    the params every shape agrees on and read the others at run time: never write P);
//  - natively into libatc_kernels_native, used by constant folding and the kernel tests.
// So kernel code must be plain, portable C++ (g++ 12 and clang 19), no libc++/libstdc++
// runtime objects (no std::vector, no exceptions, no new/delete), no global state.
//
// A kernel NAME is two functions:
//   int64_t atck_NAME_ntasks(const int64_t* P);   // number of independent work items
//   void    atck_NAME_task(const int64_t* P, void** bufs, int64_t begin, int64_t end);
// bufs: the node's inputs (absent optional inputs: nullptr), then outputs, then the
// workspace if the lowering asked for one. A kernel writes only its outputs and workspace:
// inputs are read-only (they may be weights, which the runtime maps read-only, constants
// shared by other nodes, or graph inputs); a kernel with a fixed output index (copy: bufs[1])
// is only for nodes with that many inputs. The runtime runs items [0, ntasks) in parallel
// chunks; items must be independent. Concurrent calls get disjoint [begin, end) ranges, so a
// kernel whose workspace has room for ntasks slots may give all the tasks of one call the slot
// of `begin` (conv, matmul, attention: the scratch stays in that thread's cache). Floats in P are stored with atck_f(), read with atck_d().
#pragma once
#include <stdint.h>
#include <string.h>

#ifdef ATC_BITCODE
#define ATCK_INLINE __attribute__((always_inline))
#else
#define ATCK_INLINE
#endif

#define ATCK_RESTRICT __restrict__

// Before a loop over rows whose body works on one 16-float row (fully unrolled by LLVM): keeps
// the loop vectoriser from vectorising across rows with gathers and per-lane scattered stores,
// so the SLP vectoriser turns each row into vector code instead (cube_store_dt: a bfloat16
// conv output ran 3x its float32 time that way).
#if defined(__clang__)
#define ATCK_ROWS_LOOP _Pragma("clang loop vectorize(disable)")
#else
#define ATCK_ROWS_LOOP
#endif

// Before a microkernel's k loop whose accumulators fill the register file: unrolling it needs a
// second set of operand registers and spills accumulators to the stack inside the loop (the 6x64
// tile with float16 broadcasts ran at 40% of its float32 speed that way).
#if defined(__clang__)
#define ATCK_NO_UNROLL _Pragma("clang loop unroll(disable)")
#else
#define ATCK_NO_UNROLL
#endif

// Before a loop converting float16/bfloat16 to or from float32: 16 lanes per step. LLVM's cost
// model prices half-precision vectors high on targets without AVX512-FP16 and picked 4-lane
// conversions (vcvtph2ps xmm), a quarter of what the hardware converts per instruction.
#if defined(__clang__)
#define ATCK_VEC16 _Pragma("clang loop vectorize(enable) vectorize_width(16)")
#else
#define ATCK_VEC16
#endif

// Declares kernel NAME and (in the native build) registers it for constant folding.
#ifdef ATC_BITCODE
#define ATC_KERNEL(NAME)                                                              \
  extern "C" ATCK_INLINE int64_t atck_##NAME##_ntasks(const int64_t* P);              \
  extern "C" ATCK_INLINE void atck_##NAME##_task(const int64_t* P, void** bufs,       \
                                                 int64_t begin, int64_t end);
#else
namespace atc {
struct NativeKernel {
  const char* name;
  int64_t (*ntasks)(const int64_t*);
  void (*task)(const int64_t*, void**, int64_t, int64_t);
};
void registerNativeKernel(const NativeKernel& k);
}  // namespace atc
#define ATC_KERNEL(NAME)                                                              \
  extern "C" int64_t atck_##NAME##_ntasks(const int64_t* P);                          \
  extern "C" void atck_##NAME##_task(const int64_t* P, void** bufs, int64_t begin,    \
                                     int64_t end);                                    \
  namespace {                                                                         \
  struct AtckReg_##NAME {                                                             \
    AtckReg_##NAME() {                                                                \
      ::atc::registerNativeKernel({#NAME, &atck_##NAME##_ntasks, &atck_##NAME##_task}); \
    }                                                                                 \
  } atck_reg_##NAME;                                                                  \
  }
#endif

// An `oom` build's bounds check that fails (kernels/codegen/bounds_check.h) executes ud2 with
// r11 = ATCK_OOB_TRAP_MAGIC, rdi = argument slot (low 32 bits, signed; -1: outside every
// buffer, -2: the argument table) | 1 << 32 for a store, rsi = byte offset into that buffer
// (slot -1: the address), rdx = bytes accessed, rcx = the buffer's bytes. The runtime's SIGILL
// handler reads them (runtime/fault_guard.cpp).
#define ATCK_OOB_TRAP_MAGIC 0x41544321304f4f4dULL

static inline double atck_d(int64_t p) {
  double d;
  memcpy(&d, &p, 8);
  return d;
}

// Dtype codes as in ir/dtype.h (DType). Kernels switch on these; the switch folds away
// once P is a constant.
enum AtckDType {
  ATCK_F32 = 1, ATCK_F16 = 2, ATCK_BF16 = 3, ATCK_F64 = 4, ATCK_I64 = 5, ATCK_I32 = 6,
  ATCK_I16 = 7, ATCK_I8 = 8, ATCK_U8 = 9, ATCK_U16 = 10, ATCK_U32 = 11, ATCK_U64 = 12,
  ATCK_BOOL = 13,
  // Cast-only formats, one element per byte (kernels/lib/cast_lp.h).
  ATCK_F8E4M3FN = 14, ATCK_F8E4M3FNUZ = 15, ATCK_F8E5M2 = 16, ATCK_F8E5M2FNUZ = 17, ATCK_F8E8M0 = 18,
  ATCK_F4E2M1 = 19, ATCK_I4 = 20, ATCK_U4 = 21, ATCK_I2 = 22, ATCK_U2 = 23,
};

// fp16 / bf16 storage conversions (vectorisable bit arithmetic; round to nearest even).
static inline float atck_h2f_soft(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t em = h & 0x7fffu;
  uint32_t x;
  if (em >= 0x7c00u) x = sign | 0x7f800000u | ((em & 0x3ffu) << 13);       // inf/nan
  else if (em >= 0x0400u) x = sign | ((em << 13) + 0x38000000u);            // normal
  else {                                                                     // subnormal
    float f = (float)em * (1.0f / 16777216.0f);
    memcpy(&x, &f, 4);
    x |= sign;
  }
  float f;
  memcpy(&f, &x, 4);
  return f;
}
static inline uint16_t atck_f2h_soft(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t a = x & 0x7fffffffu;
  uint32_t r;
  if (a > 0x7f800000u) r = 0x7e00u;
  else if (a >= 0x477ff000u) r = 0x7c00u;
  else if (a < 0x38800000u) {
    float af;
    memcpy(&af, &a, 4);
    af = af + 0.5f;  // aligns the half subnormal unit (2^-24) to float's ulp at 0.5
    uint32_t b;
    memcpy(&b, &af, 4);
    r = b - 0x3f000000u;
  } else {
    uint32_t m = (a >> 13) & 1u;
    r = (a + 0xc8000fffu + m) >> 13;  // rebias exponent and round to nearest even
  }
  return (uint16_t)(sign | r);
}
// float16 <-> float32 (round to nearest even). In the kernel bitcode these are IR conversions
// (fpext / fptrunc half): vcvtph2ps / vcvtps2ph, vectorised, on targets with F16C; for targets
// without it the code generator replaces them by calls to atck_soft_h2f / atck_soft_f2h
// (kernels/lib/f16_soft.cpp), the software versions above. The native build uses those directly.
#ifdef ATC_BITCODE
static inline ATCK_INLINE float atck_h2f(uint16_t h) {
  _Float16 x;
  memcpy(&x, &h, 2);
  return (float)x;
}
static inline ATCK_INLINE uint16_t atck_f2h(float f) {
  _Float16 x = (_Float16)f;
  uint16_t h;
  memcpy(&h, &x, 2);
  return h;
}
#else
static inline float atck_h2f(uint16_t h) { return atck_h2f_soft(h); }
static inline uint16_t atck_f2h(float f) { return atck_f2h_soft(f); }
#endif
static inline float atck_bf2f(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}
// Round to nearest even; NaN stays a (quiet) NaN. Branch-free (a select), so loops over it
// vectorise: with an early return for NaN LLVM kept it scalar (a float16->bfloat16 build's
// depthwise conv ran 2.5x its float16 time in per-lane conversions).
static inline uint16_t atck_f2bf(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  const uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  const uint32_t quiet = (x >> 16) | 0x40u;
  return (uint16_t)((x & 0x7fffffffu) > 0x7f800000u ? quiet : rounded);
}
