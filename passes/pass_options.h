// What the pass pipeline is told, as typed values: every option file has been read and
// validated once, at the command line (atc/precision_options.cpp, atc/implmode_options.cpp,
// atc/fusion_switch.cpp), before the model is read.
#pragma once
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/dtype.h"

namespace atc {

// The global precision mode, both option spellings folded into one (docs/precision.md).
enum class PrecMode {
  Origin,            // must_keep_origin_dtype / origin (also: no option, programmatic use)
  ForceFp16,         // force_fp16 / fp16
  AllowFp32ToFp16,   // allow_fp32_to_fp16
  CubeFp16InFp32Out, // force_fp32 / cube_fp16in_fp32out
  MixFp16,           // allow_mix_precision(_fp16) / mixed_float16
  MixBf16,           // allow_mix_precision_bf16 / mixed_bfloat16
  AllowFp32ToBf16,   // allow_fp32_to_bf16
};
const char* precModeName(PrecMode m);
inline bool isMixedMode(PrecMode m) { return m == PrecMode::MixFp16 || m == PrecMode::MixBf16; }

// --modify_mixlist JSON: {"black-list": {"to-add": [...], "to-remove": [...]}, "white-list": {...}}
struct MixlistMods {
  std::set<std::string> blackAdd, blackRemove, whiteAdd, whiteRemove;
};

// A line of --keep_dtype / --customize_dtypes: an op name or OpType::X.
struct PrecLine {
  std::string name;     // op name, or op type when isType
  bool isType = false;
  int line = 0;         // 1-based line in the file
  std::vector<DType> in, out;  // customize_dtypes only
};

// --output_type: one dtype for every output, or per "node:idx:FP16;..." entries.
struct OutputTypeSpec {
  DType global = DType::Undefined;
  std::map<std::pair<std::string, int>, DType> perOutput;
};

struct PrecisionOptions {
  PrecMode mode = PrecMode::Origin;
  MixlistMods mixlist;                        // --modify_mixlist (empty sets: not given)
  std::vector<PrecLine> keepDtype;            // --keep_dtype
  std::vector<PrecLine> customizeDtypes;      // --customize_dtypes
  std::vector<std::string> inputFp16Nodes;    // --input_fp16_nodes
  OutputTypeSpec outputType;                  // --output_type (global Undefined, no entries: not given)
};

// --op_select_implmode, --optypelist_for_implmode, --op_precision_mode (docs/implmode.md).
struct ImplModeOptions {
  std::string selectImplmode;                    // "" = high_performance
  std::vector<std::string> optypelist;           // --optypelist_for_implmode
  std::string iniFile;                           // --op_precision_mode ("" = not given)
  std::map<std::string, std::pair<std::string, int>> byOpType, byNodeName;  // ini: mode, line
};

// Pass-manager debug switches (ATC_PRINT_IR_AFTER etc.; docs/passes.md).
struct PassDebugOptions {
  bool printIrAfterAll = false;
  std::vector<std::string> printIrAfter;
  bool verifyEach = true;
  int stopAfterPasses = -1;  // >= 0: skip switchable passes after this many have run
};

struct PassOptions {
  PrecisionOptions precision;
  ImplModeOptions implmode;
  // Default-off passes switched on (--fusion_switch_file, --enable_scope_fusion_passes, the
  // TF frontend's layout pass) and passes switched off (switch file, ATC_DISABLE_PASSES).
  std::vector<std::string> enabledPasses, disabledPasses;
  PassDebugOptions debug;
};

}  // namespace atc
