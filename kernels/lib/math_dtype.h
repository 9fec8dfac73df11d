// Loads/stores of any element type converted to/from a compute type C (float, double,
// int64_t or uint64_t). The dtype code is a kernel parameter: once the code generator bakes
// the params in, the switch folds to a single load + convert. fp16/bf16 are storage types:
// converted to float on load, rounded (nearest even) on store.
#pragma once
#include "kernels/lib/kernel_abi.h"

// Compute-type codes used in kernel params.
enum AtckComputeType { ATCK_CT_F32 = 0, ATCK_CT_F64 = 1, ATCK_CT_I64 = 2, ATCK_CT_U64 = 3 };

template <class C>
static inline ATCK_INLINE C atck_ld(const void* p, int64_t dt, int64_t i) {
  switch (dt) {
    case ATCK_F32: return (C)((const float*)p)[i];
    case ATCK_F16: return (C)atck_h2f(((const uint16_t*)p)[i]);
    case ATCK_BF16: return (C)atck_bf2f(((const uint16_t*)p)[i]);
    case ATCK_F64: return (C)((const double*)p)[i];
    case ATCK_I64: return (C)((const int64_t*)p)[i];
    case ATCK_I32: return (C)((const int32_t*)p)[i];
    case ATCK_I16: return (C)((const int16_t*)p)[i];
    case ATCK_I8: return (C)((const int8_t*)p)[i];
    case ATCK_U8: return (C)((const uint8_t*)p)[i];
    case ATCK_U16: return (C)((const uint16_t*)p)[i];
    case ATCK_U32: return (C)((const uint32_t*)p)[i];
    case ATCK_U64: return (C)((const uint64_t*)p)[i];
    case ATCK_BOOL: return (C)(((const uint8_t*)p)[i] != 0);
    default: return (C)0;
  }
}

// Float -> integer conversion that is defined for every input (NaN -> 0, saturating), so
// that the optimiser never sees an undefined conversion.
template <class I, class C>
static inline ATCK_INLINE I atck_to_int(C v, double lo, double hi) {
  if (!(v == v)) return (I)0;
  if ((double)v <= lo) return (I)lo;
  if ((double)v >= hi) return (I)hi;
  return (I)v;
}

template <class C>
static inline ATCK_INLINE void atck_st(void* p, int64_t dt, int64_t i, C v) {
  switch (dt) {
    case ATCK_F32: ((float*)p)[i] = (float)v; break;
    case ATCK_F16: ((uint16_t*)p)[i] = atck_f2h((float)v); break;
    case ATCK_BF16: ((uint16_t*)p)[i] = atck_f2bf((float)v); break;
    case ATCK_F64: ((double*)p)[i] = (double)v; break;
    case ATCK_BOOL: ((uint8_t*)p)[i] = (uint8_t)(v != (C)0); break;
    default:
      if ((C)0.5 != (C)0) {  // floating compute type: saturating conversion
        switch (dt) {
          case ATCK_I64: ((int64_t*)p)[i] = atck_to_int<int64_t>(v, -9223372036854775808.0, 9223372036854774784.0); break;
          case ATCK_I32: ((int32_t*)p)[i] = atck_to_int<int32_t>(v, -2147483648.0, 2147483647.0); break;
          case ATCK_I16: ((int16_t*)p)[i] = atck_to_int<int16_t>(v, -32768.0, 32767.0); break;
          case ATCK_I8: ((int8_t*)p)[i] = atck_to_int<int8_t>(v, -128.0, 127.0); break;
          case ATCK_U8: ((uint8_t*)p)[i] = atck_to_int<uint8_t>(v, 0.0, 255.0); break;
          case ATCK_U16: ((uint16_t*)p)[i] = atck_to_int<uint16_t>(v, 0.0, 65535.0); break;
          case ATCK_U32: ((uint32_t*)p)[i] = atck_to_int<uint32_t>(v, 0.0, 4294967295.0); break;
          case ATCK_U64: ((uint64_t*)p)[i] = atck_to_int<uint64_t>(v, 0.0, 18446744073709549568.0); break;
          default: break;
        }
      } else {  // integer compute type: wrap-around (two's complement truncation)
        switch (dt) {
          case ATCK_I64: ((int64_t*)p)[i] = (int64_t)v; break;
          case ATCK_I32: ((int32_t*)p)[i] = (int32_t)v; break;
          case ATCK_I16: ((int16_t*)p)[i] = (int16_t)v; break;
          case ATCK_I8: ((int8_t*)p)[i] = (int8_t)v; break;
          case ATCK_U8: ((uint8_t*)p)[i] = (uint8_t)v; break;
          case ATCK_U16: ((uint16_t*)p)[i] = (uint16_t)v; break;
          case ATCK_U32: ((uint32_t*)p)[i] = (uint32_t)v; break;
          case ATCK_U64: ((uint64_t*)p)[i] = (uint64_t)v; break;
          default: break;
        }
      }
      break;
  }
}

// m values of `in` (dtype dt) as float32 from element o with innermost stride s: 0 (one value
// repeated, a broadcast operand) or 1 (contiguous; the lowerings' broadcast collapse leaves no
// other innermost stride), converted 16 lanes at a time. A loop over i * s with s unknown stayed
// scalar (EfficientNet-B0's float16 squeeze-excite Mul ran 4x its float32 time). Used for
// float16 / bfloat16 operands by kernels "eltwise" and "fused_eltwise".
static inline ATCK_INLINE void atck_ld_run_f32(float* x, const void* in, int64_t dt, int64_t o, int64_t s, int64_t m) {
  if (s == 0) {
    const float v = atck_ld<float>(in, dt, o);
    for (int64_t i = 0; i < m; ++i) x[i] = v;
  } else {
    ATCK_VEC16
    for (int64_t i = 0; i < m; ++i) x[i] = atck_ld<float>(in, dt, o + i);
  }
}
