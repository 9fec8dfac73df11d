// A target profile (--soc_version), stored as data: kernels/targets/*.json (embedded into
// the binary), user profiles from $ATC_TARGETS_PATH, and "native" resolved from the host
// CPU. Loaded once by the driver and handed to the passes (PassContext) and the backend.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace atc {

// What "native" resolves to (kernels/codegen/host_cpu.h asks LLVM; no LLVM here).
struct HostCpu {
  std::string triple;    // normalised LLVM triple
  std::string cpu;       // LLVM CPU name
  std::string features;  // "+avx2,-avx512f,..." sorted
};

struct TargetProfile {
  std::string name;       // --soc_version value
  std::string triple;     // LLVM triple
  std::string cpu;        // LLVM CPU name (resolved to the host's for "native")
  std::string features;   // LLVM feature string "+avx2,+fma,..."
  nlohmann::json opInfo;  // per-op dtype support etc. (see docs/targets.md)
  // Widest vector register the kernels use: "vector_bits" in the profile, else 512 when the
  // features enable AVX-512F (and not -evex512), else 256. Selects the microkernel family.
  int vectorBits = 256;
  // Rows of the cube microkernel (kernels/lib/cube_gemm.h): 16 with 512-bit vectors, else 6.
  int cubeRows() const { return vectorBits >= 512 ? 16 : 6; }
  // The int8 path of QDQ models (QuantizedConv / QuantizedMatMul kernels, docs/quantization.md):
  // "vnni512" when the features enable AVX512-VNNI (vpdpbusd) with 512-bit vectors, else
  // "vnni256" when they enable AVX-VNNI (256-bit vpdpbusd: x86-64-v3 class CPUs such as Alder
  // Lake), else "avx2" when they enable AVX2 (u8 and s8 widened to int16, vpmaddwd: Haswell to
  // Zen 3), else "none" (quantized convs and matrix products then run in float32 with their
  // weights dequantized at compile time). The profile's "int8_path" may set "none" to turn it
  // off, or "avx2" on any target with AVX2. Depthwise convs take the int8 path with vnni512 only.
  // "amx" (vnni512 features with AMX-TILE and AMX-INT8 besides): int8 matrix products on AMX tiles
  // (tdpbusd, kernels/lib/qmatmul8.cpp), everything else as vnni512.
  std::string int8Path = "none";
  bool int8Vnni() const { return int8Path == "vnni512" || int8Path == "amx"; }
  bool int8Amx() const { return int8Path == "amx"; }
  bool hasInt8Path() const { return int8Path != "none"; }
  // LowerCtx::int8Path: 0 none, 1 vnni512 (and amx), 2 vnni256, 4 avx2 (3: qmatmul8's AMX tiles).
  int int8PathCode() const { return int8Vnni() ? 1 : int8Path == "vnni256" ? 2 : int8Path == "avx2" ? 4 : 0; }
  // The bfloat16 dot-product path of the cube kernels (kernels/lib/cube_ukbf.h): "dpbf16" when
  // the features enable AVX512-BF16 (vdpbf16ps) with 512-bit vectors, else "none". MatMul/Gemm
  // and Conv whose activations and weights are both bfloat16 (allow_fp32_to_bf16 builds) then
  // multiply pairs of bfloat16 values per instruction (twice the float32 FMA rate) instead of
  // converting them to float32. The profile's "bf16_path" may set "none" to turn it off.
  // "amx" (features with AMX-TILE and AMX-BF16 besides): the wide MatMul/Gemm tiles on tdpbf16ps
  // (kernels/lib/cube_amx.h), the rest as dpbf16.
  std::string bf16Path = "none";
  bool bf16Dot() const { return bf16Path == "dpbf16" || bf16Path == "amx"; }
  bool bf16Amx() const { return bf16Path == "amx"; }
};

// "amx" when an LLVM feature string enables avx512vnni, amx-tile and amx-int8 with 512-bit
// vectors, "vnni512" when it enables avx512vnni and 512-bit vectors, else "vnni256" when it
// enables avxvnni, else "avx2" when it enables avx2, else "none".
std::string int8PathOfFeatures(const std::string& features);

// "amx" when an LLVM feature string enables avx512bf16, amx-tile and amx-bf16 with 512-bit
// vectors, "dpbf16" when it enables avx512bf16 and 512-bit vectors, else "none".
std::string bf16PathOfFeatures(const std::string& features);

// 512 when an LLVM feature string enables avx512f (and does not disable evex512), else 256.
int vectorBitsOfFeatures(const std::string& features);

// Throws AtcError E10001 listing the known names when the name is unknown, E10003 when the
// profile file is malformed.
TargetProfile loadTargetProfile(const std::string& socVersion, const HostCpu& host);
std::vector<std::string> knownTargetNames();

}  // namespace atc
