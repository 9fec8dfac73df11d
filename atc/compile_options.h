// One struct with every option of a build (no scattered globals). Filled by cli/ from the
// command line; read by the driver, the passes and the code generator.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace atc {

enum class LogLevel { Debug = 0, Info = 1, Warning = 2, Error = 3, Null = 4 };

struct CompileOptions {
  int mode = 0;
  std::string model;
  int framework = -1;
  std::string output;           // path prefix; ".om" appended
  std::string socVersion;
  std::string inputShape;       // raw --input_shape text
  std::string inputFormat;
  std::string outNodes;         // raw --out_nodes text
  LogLevel log = LogLevel::Null;
  std::string precisionMode;    // must_keep_origin_dtype (others: later issue)
  std::string precisionModeV2;  // origin
  // Precision options (atc/precision_options.h, docs/precision.md): raw values / file paths.
  std::string modifyMixlist, keepDtype, customizeDtypes, inputFp16Nodes, outputType;
  std::string om, json;         // modes 1 and 6
  std::string cmdline;          // the whole command line, stored in the model
  int threads = 0;              // codegen workers (0 = default)
  // Parsed --input_shape: name -> dims (-1 dynamic).
  std::map<std::string, std::vector<int64_t>> inputShapes;
  std::vector<std::string> inputShapeOrder;
  // Parsed --out_nodes: (node or output name, index or -1 for an ONNX output name).
  std::vector<std::pair<std::string, int>> outNodeList;
  // --enable_scope_fusion_passes (TF): non-general scope fusion passes to run.
  std::vector<std::string> scopeFusionPasses;
  // Pass-manager debug switches (ATC_PRINT_IR_AFTER etc.; see docs/passes.md).
  std::vector<std::string> disabledPasses;
  bool printIrAfterAll = false;
  std::vector<std::string> printIrAfter;
  bool verifyEach = true;
  int stopAfterPasses = -1;     // >= 0: skip switchable passes after this many have run
  bool disableReuseMemory = false;  // --disable_reuse_memory=1: no buffer reuse in the memory plan
  // Fusion switches (--fusion_switch_file, atc/fusion_switch.h): default-off passes switched on.
  std::vector<std::string> enabledPasses;
  std::string fusionSwitchFile;
  int exportCompileStat = 1;    // --export_compile_stat: 0 none, 1 at normal exit, 2 after graph compile
  // Kernel cache (docs/cache.md).
  std::string opCompilerCacheMode = "enable";  // enable, disable, force
  std::string opCompilerCacheDir;               // --op_compiler_cache_dir (empty: env/default)
  int opDebugLevel = 0;                         // --op_debug_level: != 0 bypasses the cache
  std::string opDebugConfig;                    // --op_debug_config file
  std::string graphCompilerCacheDir;            // --graph_compiler_cache_dir: whole-model cache
  // Implementation modes (atc/implmode_options.h, docs/implmode.md).
  std::string opSelectImplmode;                     // --op_select_implmode ("" = high_performance)
  std::vector<std::string> optypelistForImplmode;   // --optypelist_for_implmode
  std::string opPrecisionModeFile;                  // --op_precision_mode ini ("" = not given)
  std::map<std::string, std::pair<std::string, int>> implByOpType, implByNodeName;  // ini: mode, line
  // Filled by the code generator: per graph node name, whether its kernel was served from the
  // kernel cache (repository_hit_times in fusion_result.json), and the totals.
  struct KernelCacheReport {
    size_t unique = 0, hits = 0;
    std::map<std::string, bool> nodeHit;
  };
  std::shared_ptr<KernelCacheReport> kernelCacheReport = std::make_shared<KernelCacheReport>();
};

}  // namespace atc
