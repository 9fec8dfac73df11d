// The recognised options of atc. To implement one: handle it in atc/options.cpp (fill
// AtcOptions), switch its status to Implemented here, and test it in
// tests/scripts/atc_cli.sh.
#include "atc/options.h"

namespace atc {

namespace {
constexpr auto I = OptionStatus::Implemented;
constexpr auto N = OptionStatus::NotImplemented;
}  // namespace

const std::vector<OptionSpec>& atcOptionTable() {
  static const std::vector<OptionSpec> table = {
      // ---- basic
      {"mode", "basic", I, {}, "0 (default): build an .om; 1: .om -> JSON (--om, --json); 6: display an .om's info (--om); 3: not implemented yet"},
      {"model", "basic", I, {}, "source model file (ONNX .onnx)"},
      {"weight", "basic", N, {}, "Caffe weight file (Caffe is not supported)"},
      {"framework", "basic", I, {}, "3: TensorFlow frozen GraphDef (.pb/.pbtxt), 5: ONNX (0 Caffe, 1 MindSpore: not supported)"},
      {"output", "basic", I, {}, "output path prefix; .om is appended"},
      {"soc_version", "basic", I, {}, "target profile name"},
      {"om", "basic", I, {}, "input .om of --mode=1/6"},
      {"json", "basic", I, {}, "output JSON of --mode=1"},
      {"input_shape", "basic", I, {}, "\"name:n,c,h,w;name2:...\"; scalar \"name:\"; a range lo~hi (\"ids:1,1~512\")"},
      {"input_shape_range", "basic", I, {},
       "\"name:[1~16,3,224,224];name2:[1,1~512]\": shape ranges (one plan per shape)"},
      {"input_format", "basic", I, {}, "layout of the inputs (TF: NHWC default, NCHW, ND, NCDHW, NDHWC; ONNX: NCHW, ND, NCDHW)"},
      {"out_nodes", "basic", I, {}, "\"node:0;node2:1\" or ONNX output names"},
      {"output_type", "basic", I, {}, "FP32, FP16, BF16, UINT8, INT8 or per output \"node:idx:FP16;...\""},
      {"input_fp16_nodes", "basic", I, {}, "\"in1;in2\": inputs fed as fp16"},
      {"dynamic_batch_size", "basic", I, {}, "\"1,2,4,8\": batch sizes (2..100 gears) for the -1 batch dim of --input_shape"},
      {"dynamic_image_size", "basic", I, {}, "\"h1,w1;h2,w2\": image sizes for the -1 H and W dims of --input_shape"},
      {"dynamic_dims", "basic", I, {}, "\"d1,d2;d3,d4\": one value per -1 of --input_shape per gear (--input_format=ND)"},
      {"log", "basic", I, {}, "debug, info, warning, error, null (default)"},
      {"sign_key", "basic", I, {}, "Ed25519 private key (PEM): sign the .om; omrun --verify_key and atc_model_load_verified check it (an extension of this atc)"},
      {"external_weight", "basic", N, {"0"}, "0 (default): weights in the .om"},
      {"disable_reuse_memory", "basic", I, {}, "0 (default): buffers share memory; 1: every buffer its own memory"},
      {"buffer_optimize", "basic", N, {}, "l2_optimize, off_optimize"},
      {"enable_small_channel", "basic", N, {"0"}, "0 (default) / 1"},
      {"display_model_info", "basic", I, {}, "0 (default) / 1: print the --mode=6 summary after a build"},
      {"deterministic", "basic", N, {"0"}, "0 (default) / 1"},
      {"status_check", "basic", I, {}, "0 (default) / 1: the runtime checks each op's float outputs for inf/NaN and stops at the first op that makes one (docs/debugging.md)"},
      {"insert_op_conf", "basic", N, {}, "AIPP configuration file"},
      {"is_input_adjust_hw_layout", "basic", N, {}, "input layout adjustment"},
      {"is_output_adjust_hw_layout", "basic", N, {}, "output layout adjustment"},
      {"op_name_map", "basic", N, {}, "op name mapping file"},
      {"singleop", "basic", N, {}, "single-op description JSON"},
      {"check_report", "basic", N, {}, "pre-check report path"},
      {"dump_mode", "basic", N, {"0"}, "0 (default) / 1"},
      {"enable_compress_weight", "basic", N, {"false"}, "weight compression"},
      {"compress_weight_conf", "basic", N, {}, "weight compression configuration"},
      {"sparsity", "basic", N, {"0"}, "0 (default) / 1"},
      {"host_env_os", "basic", N, {}, "host OS of the model"},
      {"host_env_cpu", "basic", N, {}, "host CPU of the model"},
      {"virtual_type", "basic", N, {"0"}, "0 (default) / 1"},
      {"atomic_clean_policy", "basic", N, {"0"}, "0 (default) / 1"},
      {"shape_generalized_build_mode", "basic", N, {}, "shape generalisation"},
      {"compression_optimize_conf", "basic", N, {}, "compression configuration"},
      {"enable_single_stream", "basic", N, {"false"}, "single-stream execution"},
      {"ac_parallel_enable", "basic", N, {"0"}, "AI CPU / AI Core parallel execution"},
      {"compile_dynamic_mode", "basic", N, {}, "generalise all input shapes"},
      // ---- precision
      {"precision_mode", "precision", I, {}, "force_fp16 (default), allow_fp32_to_fp16, force_fp32, cube_fp16in_fp32out, must_keep_origin_dtype, allow_mix_precision(_fp16), allow_mix_precision_bf16, allow_fp32_to_bf16"},
      {"precision_mode_v2", "precision", I, {}, "fp16, origin, cube_fp16in_fp32out, mixed_float16, mixed_bfloat16"},
      {"modify_mixlist", "precision", I, {}, "mixed-precision list changes (JSON)"},
      {"keep_dtype", "precision", I, {}, "ops that keep their original dtype (.cfg)"},
      {"customize_dtypes", "precision", I, {}, "per-op dtypes (.cfg)"},
      {"op_precision_mode", "precision", I, {}, "per-op implementation mode .ini ([ByOpType] / [ByNodeName] name=mode)"},
      {"op_select_implmode", "precision", I, {}, "high_performance (default), high_precision, high_performance_for_all, high_precision_for_all"},
      {"optypelist_for_implmode", "precision", I, {}, "\"OpType1,OpType2\": op types for --op_select_implmode high_precision/high_performance"},
      {"allow_hf32", "precision", N, {}, "HF32 for cube ops"},
      // ---- fusion
      {"fusion_switch_file", "fusion", I, {}, "fusion pass switches (JSON or Name:off lines)"},
      {"enable_scope_fusion_passes", "fusion", I, {}, "TF scope fusion passes to enable (comma list)"},
      {"export_compile_stat", "fusion", I, {}, "0: no fusion_result.json; 1 (default): written at normal exit; 2: right after graph compilation"},
      // ---- operator compilation and debug
      {"op_compiler_cache_mode", "debug", I, {}, "enable (default), disable, force (wipe this target's kernel cache, then fill it)"},
      {"op_compiler_cache_dir", "debug", I, {}, "kernel cache folder (default $ASCEND_CACHE_PATH, else $HOME/atc_data)"},
      {"op_debug_level", "debug", I, {}, "0 (default); 1..4 bypass the kernel cache; 2..4 also write kernel_meta/ under --debug_dir"},
      {"debug_dir", "debug", I, {}, "where kernel_meta/ goes (default: the current folder) with --op_debug_level=2+ or op_debug_config dump_cce/dump_loc: per kernel its LLVM IR, assembly, object and a JSON of params and source line"},
      {"op_debug_config", "debug", I, {}, "op debug .cfg file: oom (red zones around every buffer, checked after each op), dump_cce/dump_loc (kernel_meta under --debug_dir); without op_debug_list: no kernel cache; with it: the listed ops are recompiled"},
      {"graph_compiler_cache_dir", "debug", I, {}, "existing folder: whole-model build cache"},
      {"op_bank_path", "debug", N, {}, "tuning repository path"},
      {"mdl_bank_path", "debug", N, {}, "model tuning repository path"},
      {"auto_tune_mode", "debug", N, {}, "auto tuning"},
      {"aoe_mode", "debug", N, {}, "AOE tuning mode"},
      {"aoe_config_file", "debug", N, {}, "AOE configuration file"},
      {"dump_config", "debug", N, {}, "data dump configuration"},
      {"quant_dumpable", "debug", N, {"0"}, "0 (default) / 1"},
  };
  return table;
}

const OptionSpec* findOptionSpec(const std::string& name) {
  for (auto& s : atcOptionTable())
    if (name == s.name) return &s;
  return nullptr;
}

}  // namespace atc
