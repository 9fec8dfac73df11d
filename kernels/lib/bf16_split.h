// Float16 values as the exact sum of two bfloat16 parts, for the AMX split form of the conv
// (conv_amx_split.h): x0 = x rounded to nearest bfloat16, x1 = x - x0 (at most 3 significant bits
// left of float16's 11: exact). See docs/kernels-cube.md "AMX conv".
#pragma once
#include "kernels/lib/kernel_abi.h"

// The NP bfloat16 parts of a and b (the low and high halves of a pair) as pair words d[q * ps].
template <int NP>
static inline ATCK_INLINE void atck_bf16_split_word(uint32_t* d, int64_t ps, float a, float b) {
  for (int q = 0; q < NP; ++q) {
    const uint16_t pa = atck_f2bf(a), pb = atck_f2bf(b);
    d[q * ps] = (uint32_t)pa | (uint32_t)pb << 16;
    a -= atck_bf2f(pa);  // exact: the rest of a below its part
    b -= atck_bf2f(pb);
  }
}
