// Software float16 conversions for targets without F16C: the code generator replaces the kernels'
// fpext / fptrunc half instructions by calls to these (kernels/codegen/codegen.cpp) when the
// target profile has no F16C, so such targets need no compiler runtime library.
#include "kernels/lib/kernel_abi.h"

extern "C" __attribute__((used)) float atck_soft_h2f(uint16_t h) { return atck_h2f_soft(h); }
extern "C" __attribute__((used)) uint16_t atck_soft_f2h(float f) { return atck_f2h_soft(f); }
