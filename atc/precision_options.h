// Precision options: --precision_mode(_v2), --modify_mixlist, --keep_dtype, --customize_dtypes,
// --input_fp16_nodes, --output_type. Command-line checks and the file formats; the
// decisions themselves are made by passes/precision (docs/precision.md).
#pragma once
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "atc/compile_options.h"
#include "ir/dtype.h"

namespace atc {

// The global mode, both option spellings folded into one.
enum class PrecMode {
  Origin,            // must_keep_origin_dtype / origin (also: no option, programmatic use)
  ForceFp16,         // force_fp16 / fp16
  AllowFp32ToFp16,   // allow_fp32_to_fp16
  CubeFp16InFp32Out, // force_fp32 / cube_fp16in_fp32out
  MixFp16,           // allow_mix_precision(_fp16) / mixed_float16
  MixBf16,           // allow_mix_precision_bf16 / mixed_bfloat16
  AllowFp32ToBf16,   // allow_fp32_to_bf16
};
PrecMode precisionModeOf(const CompileOptions& o);
const char* precModeName(PrecMode m);
inline bool isMixedMode(PrecMode m) { return m == PrecMode::MixFp16 || m == PrecMode::MixBf16; }

// Called by parseCommandLine after --precision_mode(_v2): checks and stores the others.
void parsePrecisionCliOptions(const std::function<bool(const std::string&)>& isGiven,
                              const std::function<std::string(const std::string&)>& val, CompileOptions& opts);

// --modify_mixlist JSON: {"black-list": {"to-add": [...], "to-remove": [...]}, "white-list": {...}}
struct MixlistMods {
  std::set<std::string> blackAdd, blackRemove, whiteAdd, whiteRemove;
};
MixlistMods parseMixlistText(const std::string& text, const std::string& where);
MixlistMods loadMixlist(const std::string& path);

// A line of --keep_dtype / --customize_dtypes: an op name or OpType::X.
struct PrecLine {
  std::string name;     // op name, or op type when isType
  bool isType = false;
  int line = 0;         // 1-based line in the file
  std::vector<DType> in, out;  // customize_dtypes only
};
std::vector<PrecLine> parseKeepDtypeText(const std::string& text, const std::string& where);
std::vector<PrecLine> parseCustomizeDtypesText(const std::string& text, const std::string& where);
std::vector<PrecLine> loadKeepDtype(const std::string& path);
std::vector<PrecLine> loadCustomizeDtypes(const std::string& path);

// --output_type: one dtype for every output, or per "node:idx:FP16;..." entries.
struct OutputTypeSpec {
  DType global = DType::Undefined;
  std::map<std::pair<std::string, int>, DType> perOutput;
};
OutputTypeSpec parseOutputType(const std::string& text);
std::vector<std::string> parseInputFp16Nodes(const std::string& text);

}  // namespace atc
