// What the AMX kernels share (cube_amx.h: bfloat16 MatMul/Gemm tiles; qmatmul8.cpp: int8 ones):
// the tile configuration and, in the native build, the host check. AMX (Advanced Matrix
// Extensions: Sapphire Rapids and newer Xeons) has eight tile registers of up to 16 rows x 64
// bytes; ldtilecfg sets each one's rows and bytes per row, tileloadd / tilestored move them with
// any row stride, tdpbf16ps / tdpbusd multiply two of them into a third (float32 / int32).
//
// Linux hands out AMX state only after arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA): the
// runtime asks when it checks a model's CPU features (runtime/cpu_check.cpp), the native build
// (constant folding, tests) in atck_amx_host.
#pragma once
#include <stdint.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define ATCK_HAVE_AMX 1
#if !defined(ATC_BITCODE)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#else
#define ATCK_HAVE_AMX 0
#endif

// ldtilecfg's 64-byte operand (palette 1).
struct AtckAmxCfg {
  uint8_t palette, startRow;
  uint8_t reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
};

static inline void atck_amx_cfg_init(struct AtckAmxCfg* c) {
  __builtin_memset(c, 0, sizeof *c);
  c->palette = 1;
}

static inline void atck_amx_cfg_tile(struct AtckAmxCfg* c, int t, int64_t rows, int64_t colsb) {
  c->rows[t] = (uint8_t)rows;
  c->colsb[t] = (uint16_t)colsb;
}

// GCC's tile macros are asm statements that name only the first 8 bytes of the configuration and
// none of the memory the tiles read or write: the AMX functions put this barrier before
// ldtilecfg and after their last tile store.
#define ATCK_AMX_BARRIER(p) __asm__ volatile("" : : "r"(p) : "memory")

#if ATCK_HAVE_AMX && !defined(ATC_BITCODE)
// The host has AMX-TILE and the AMX unit of CPUID.(7,0).EDX bit `bit` (22 AMX-BF16, 25
// AMX-INT8), and Linux lets this process use the tile data (asked once, for every thread).
static inline int atck_amx_host(int bit) {
  static int granted = -1;
  unsigned a, b, c, d;
  __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(7), "c"(0));
  if (!(d >> 24 & 1) || !(d >> bit & 1)) return 0;
  if (granted < 0) granted = syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XTILEDATA */) == 0;
  return granted;
}
#endif
