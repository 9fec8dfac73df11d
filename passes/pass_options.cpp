#include "passes/pass_options.h"

namespace atc {

const char* precModeName(PrecMode m) {
  switch (m) {
    case PrecMode::Origin: return "must_keep_origin_dtype";
    case PrecMode::ForceFp16: return "force_fp16";
    case PrecMode::AllowFp32ToFp16: return "allow_fp32_to_fp16";
    case PrecMode::CubeFp16InFp32Out: return "cube_fp16in_fp32out";
    case PrecMode::MixFp16: return "allow_mix_precision_fp16";
    case PrecMode::MixBf16: return "allow_mix_precision_bf16";
    case PrecMode::AllowFp32ToBf16: return "allow_fp32_to_bf16";
  }
  return "?";
}

}  // namespace atc
