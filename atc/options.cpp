#include "atc/options.h"

#include <CLI/CLI.hpp>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>

#include "atc/dynamic_options.h"
#include "atc/precision_options.h"
#include "atc/implmode_options.h"
#include "cache/kernel_cache.h"
#include "atc/fusion_switch.h"
#include "passes/pass_registry.h"
#include "runtime/om_signature.h"
#include "support/diagnostics.h"
#include "support/file_io.h"
#include "support/strings.h"

namespace atc {

namespace {

[[noreturn]] void invalid(const std::string& value, const std::string& param, const std::string& reason,
                          const std::string& solution, const char* code = "E10001") {
  invalidParamCode(code, param, value, reason, solution);
}

std::string quoteArg(const std::string& a) {
  bool plain = !a.empty();
  for (char c : a)
    plain = plain && (std::isalnum((unsigned char)c) || std::string("-_=./:,+@%").find(c) != std::string::npos);
  if (plain) return a;
  std::string r = "'";
  for (char c : a) r += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return r + "'";
}

// gflags also accepts -name=value; CLI11 reads a single dash as short options.
std::string normaliseArg(const std::string& a) {
  if (a.size() > 2 && a[0] == '-' && a[1] != '-' && std::isalpha((unsigned char)a[1])) {
    size_t eq = a.find('=');
    std::string name = a.substr(1, eq == std::string::npos ? std::string::npos : eq - 1);
    if (name.size() > 1) return "-" + a;
  }
  if (a == "--h" || a == "-help") return "--help";
  return a;
}


}  // namespace

LogLevel parseLogLevel(const std::string& text) {
  static const std::map<std::string, LogLevel> kLevels = {
      {"debug", LogLevel::Debug}, {"info", LogLevel::Info}, {"warning", LogLevel::Warning},
      {"error", LogLevel::Error}, {"null", LogLevel::Null}};
  auto it = kLevels.find(text);
  if (it == kLevels.end())
    invalid(text, "log", "the value must be one of debug, info, warning, error, null.",
            "Set --log to debug, info, warning, error or null.", "E10010");
  return it->second;
}

// "lo~hi" of --input_shape (docs/dynamic-shapes.md, "Ranges"): both ends integers, 1 <= lo <= hi.
std::pair<int64_t, int64_t> parseDimRange(const std::string& text, const std::string& option, const std::string& name,
                                          const std::string& dt) {
  const char* sol = "Write a range as \"lo~hi\" with 1 <= lo <= hi, e.g. --input_shape=\"input_ids:1,1~512\".";
  size_t t = dt.find('~');
  int64_t lo = 0, hi = 0;
  std::string a = trim(dt.substr(0, t)), b = trim(dt.substr(t + 1));
  if (!parseInt64(a, &lo) || !parseInt64(b, &hi))
    invalid(text, option, "range [" + dt + "] of input [" + name + "] is not two integers around '~'.", sol, "E10002");
  if (hi == -1 || lo == -1)
    invalid(text, option, "range [" + dt + "] of input [" + name + "] is unbounded; a range build needs both ends.",
            "Give the largest value the dim takes, e.g. 1~512: each shape of the range gets its own plan.", "E10002");
  if (lo < 1 || hi < lo)
    invalid(text, option, "range [" + dt + "] of input [" + name + "] is not 1 <= lo <= hi.", sol, "E10002");
  return {lo, hi};
}

void parseInputShape(const std::string& text, ImportOptions& opts, const std::string& dynamicOption,
                     ShapeRanges* ranges, const std::string& option) {
  const char* sol = "Use the form \"name1:n,c,h,w;name2:d0,d1\" (a scalar input: \"name:\"), "
                    "with non-negative integer dims.";
  opts.inputShapes.clear();
  opts.inputShapeOrder.clear();
  std::string t = trim(text);
  if (t.empty()) invalid(text, option, "the value is empty.", sol, "E10002");
  std::vector<std::string> items = split(t, ';');
  if (items.size() > 1 && trim(items.back()).empty()) items.pop_back();  // trailing ';'
  for (std::string item : items) {
    item = trim(item);
    if (item.empty()) invalid(text, option, "an entry between ';' is empty.", sol, "E10002");
    size_t colon = item.rfind(':');
    if (colon == std::string::npos)
      invalid(text, option, "entry [" + item + "] has no ':' between the name and the dims.", sol, "E10002");
    std::string name = trim(item.substr(0, colon));
    std::string dims = trim(item.substr(colon + 1));
    if (option == "input_shape_range") {  // ATC's "name:[1~16,3,224,224]"
      if (dims.size() < 2 || dims.front() != '[' || dims.back() != ']')
        invalid(text, option, "entry [" + item + "] does not give its dims in brackets.",
                "Use the form \"name:[1~16,3,224,224];name2:[1,1~512]\".", "E10002");
      dims = trim(dims.substr(1, dims.size() - 2));
    }
    if (name.empty()) invalid(text, option, "entry [" + item + "] has no input name.", sol, "E10002");
    if (opts.inputShapes.count(name))
      invalid(text, option, "input [" + name + "] is given twice.", sol, "E10002");
    std::vector<int64_t> shape;
    if (!dims.empty()) {
      for (auto& d : split(dims, ',')) {
        std::string dt = trim(d);
        int64_t v = 0;
        if (dt.find('~') != std::string::npos && !dynamicOption.empty())
          throw AtcError("E10009",
                         "Parameter [--" + option + "] has the shape range [" + dt + "], and ranges and [--" +
                             dynamicOption + "] are mutually exclusive.",
                         "Mark the dynamic dims with -1 for --" + dynamicOption + ", or drop --" + dynamicOption + ".");
        if (dt.find('~') != std::string::npos) {
          auto [lo, hi] = parseDimRange(text, option, name, dt);
          if (ranges) ranges->dims.push_back({name, shape.size(), lo, hi});
          shape.push_back(lo == hi ? lo : -1);
          if (lo == hi && ranges) ranges->dims.pop_back();  // a range of one value is a fixed dim
          continue;
        }
        if (!parseInt64(dt, &v))
          invalid(text, option, "dim [" + dt + "] of input [" + name + "] is not an integer.", sol, "E10002");
        if (v == -1 && dynamicOption.empty())
          invalid(text, option, "dim -1 of input [" + name + "] asks for a dynamic dim, but no profiles are given.",
                  "Give the values the dim takes with --dynamic_batch_size, --dynamic_image_size or --dynamic_dims, "
                  "or a range with both ends (\"1~512\").", "E10002");
        if (v < -1)
          invalid(text, option, "dim [" + dt + "] of input [" + name + "] is negative.", sol, "E10002");
        shape.push_back(v);
      }
    }
    opts.inputShapes[name] = shape;
    opts.inputShapeOrder.push_back(name);
  }
}

std::vector<std::pair<std::string, int>> parseOutNodes(const std::string& text) {
  const char* sol = "Use \"node1:0;node2:1\" (node name and output index) or ONNX output names \"out1;out2\".";
  std::vector<std::pair<std::string, int>> r;
  std::string t = trim(text);
  if (t.empty()) invalid(text, "out_nodes", "the value is empty.", sol);
  for (std::string item : split(t, ';')) {
    item = trim(item);
    if (item.empty()) invalid(text, "out_nodes", "an entry between ';' is empty.", sol);
    size_t colon = item.rfind(':');
    int64_t idx = 0;
    if (colon != std::string::npos && parseInt64(item.substr(colon + 1), &idx)) {
      std::string name = trim(item.substr(0, colon));
      if (name.empty()) invalid(text, "out_nodes", "entry [" + item + "] has no node name.", sol);
      if (idx < 0 || idx > 1000000) invalid(text, "out_nodes", "output index of [" + item + "] is out of range.", sol);
      r.push_back({name, (int)idx});
    } else {
      r.push_back({item, -1});
    }
  }
  return r;
}

std::string atcHelpText() {
  std::ostringstream os;
  os << "usage: atc <args>\n"
        "example: atc --model=net.onnx --framework=5 --output=net --soc_version=native\n"
        "         atc --model=net.onnx --framework=5 --output=out/net --soc_version=x86-64-v4 "
        "--input_shape=\"input:1,3,224,224\"\n"
        "Options are written --name=value or --name value. Options marked [not implemented] "
        "are recognised but refused in this version.\n";
  std::string group;
  for (auto& s : atcOptionTable()) {
    if (group != s.group) {
      group = s.group;
      os << "\n===== " << group << " options =====\n";
    }
    std::string line = std::string("  --") + s.name;
    if (line.size() < 34) line += std::string(34 - line.size(), ' ');
    else line += " ";
    os << line << s.help;
    if (s.status == OptionStatus::NotImplemented) {
      os << " [not implemented";
      if (!s.acceptedValues.empty()) {
        os << "; accepted:";
        for (auto& v : s.acceptedValues) os << " " << v;
      }
      os << "]";
    }
    os << "\n";
  }
  os << "  --help, --h                       show this help\n";
  return os.str();
}

namespace {

// The parsed command line: each option's last value, and which options were given.
class CliValues {
 public:
  bool given(const std::string& n) const {
    auto it = given_.find(n);
    return it != given_.end() && it->second;
  }
  std::string val(const std::string& n) const {
    auto it = values_.find(n);
    return it == values_.end() ? std::string() : it->second;
  }
  std::function<bool(const std::string&)> givenFn() const {
    return [this](const std::string& n) { return given(n); };
  }
  std::function<std::string(const std::string&)> valFn() const {
    return [this](const std::string& n) { return val(n); };
  }
  std::map<std::string, std::string> values_;
  std::map<std::string, bool> given_;
};

// Parses argv with CLI11 into v. Returns false when --help was asked for. "--name=" (empty
// value) counts as given-but-empty, so that the option's own check reports it.
bool readArgs(int argc, const char* const* argv, CliValues& v, std::ostream& helpOut) {
  std::vector<std::string> args;
  args.push_back(argc > 0 ? argv[0] : "atc");
  std::map<std::string, bool> givenEmpty;
  for (int i = 1; i < argc; ++i) {
    std::string a = normaliseArg(argv[i]);
    if (a.size() > 3 && a.compare(0, 2, "--") == 0 && a.back() == '=' && a.find('=') == a.size() - 1 &&
        findOptionSpec(a.substr(2, a.size() - 3))) {
      givenEmpty[a.substr(2, a.size() - 3)] = true;
      continue;
    }
    args.push_back(a);
  }
  CLI::App app{"atc"};
  app.set_help_flag();  // help handled below, so that "--help" wins over other errors
  bool help = false;
  app.add_flag("-h,--help", help, "show this help");
  std::map<std::string, CLI::Option*> opt;
  for (auto& s : atcOptionTable()) {
    CLI::Option* o = app.add_option(std::string("--") + s.name, v.values_[s.name], s.help);
    o->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    o->allow_extra_args(false);
    opt[s.name] = o;
  }
  for (auto& a : args)
    if (a == "--help") {
      helpOut << atcHelpText();
      return false;
    }
  std::vector<std::string> rev(args.rbegin(), args.rend() - 1);
  try {
    app.parse(rev);
  } catch (const CLI::ParseError& e) {
    for (size_t i = 1; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a.rfind("-", 0) != 0) continue;
      std::string n = a.substr(a.find_first_not_of('-'));
      n = n.substr(0, n.find('='));
      if (!findOptionSpec(n) && n != "help" && n != "h")
        throw AtcError("E10001", "Parameter [" + a.substr(0, a.find('=')) + "] is not an option of atc.",
                       "Try 'atc --help' for the list of options.");
    }
    throw AtcError("E10001", std::string("The command line is invalid. Reason: ") + e.what(),
                   "Write options as --name=value; try 'atc --help' for the list of options.");
  }
  for (auto& [name, o] : opt) {
    auto e = givenEmpty.find(name);
    bool empty = e != givenEmpty.end() && o->count() == 0;  // a later non-empty value wins
    if (empty) v.values_[name].clear();
    v.given_[name] = o->count() > 0 || empty;
  }
  return true;
}

// --mode, and the recognised options this version does not implement (refused by name).
void parseModeAndUnimplemented(const CliValues& v, AtcOptions& opts) {
  if (v.given("mode")) {
    int64_t m = -1;
    if (!parseInt64(v.val("mode"), &m) || (m != 0 && m != 1 && m != 3 && m != 6))
      invalid(v.val("mode"), "mode", "the value must be 0, 1, 3 or 6.", "Use --mode=0 to build an .om.");
    if (m == 3)
      invalid(v.val("mode"), "mode", "mode 3 is recognised but not implemented yet in this version.",
              "Use --mode=0 (build an .om).");
    opts.mode = (int)m;
  }
  for (auto& s : atcOptionTable()) {
    if (s.status != OptionStatus::NotImplemented || !v.given(s.name)) continue;
    const std::string val = v.val(s.name);
    bool accepted = false;
    for (auto& a : s.acceptedValues) accepted = accepted || a == trim(val);
    if (accepted) continue;
    invalid(val, s.name, std::string("option --") + s.name + " is recognised but not implemented yet in this version.",
            std::string("Remove --") + s.name + " from the command line" +
                (s.acceptedValues.empty() ? std::string(".") : " or set it to " + s.acceptedValues.front() + "."));
  }
}

// --model, --framework, --output, --soc_version.
void parseRequired(const CliValues& v, AtcOptions& opts) {
  auto require = [&](const char* name, const char* solution) {
    if (!v.given(name) || trim(v.val(name)).empty()) requiredParam(name, solution);
  };
  require("model", "Set --model to the path of the source model file.");
  require("framework", "Set --framework=5 for an ONNX model.");
  require("output", "Set --output to the path prefix of the .om to write.");
  if (!v.given("soc_version") || trim(v.val("soc_version")).empty())
    throw AtcError("E10054", "The required parameter [--soc_version] for ATC is empty.",
                   "Set --soc_version to a target profile name.");
  std::string f = trim(v.val("framework"));
  int64_t fw = -1;
  if (!parseInt64(f, &fw)) invalid(f, "framework", "the value must be an integer: 5 (ONNX).", "Use --framework=5.");
  if (fw == 0) invalid(f, "framework", "Caffe models are not supported by this compiler.",
                       "Convert the model to ONNX and use --framework=5.");
  if (fw == 1) invalid(f, "framework", "MindSpore models are not supported by this compiler.",
                       "Export the model to ONNX and use --framework=5.");
  if (fw != 5 && fw != 3)
    invalid(f, "framework", "the value must be 3 (TensorFlow) or 5 (ONNX).", "Use --framework=3 or --framework=5.");
  opts.import.framework = opts.backend.framework = (int)fw;
  opts.import.model = trim(v.val("model"));
  opts.output.output = v.val("output");
  opts.socVersion = trim(v.val("soc_version"));
}

std::string checkedValue(const CliValues& v, const char* name, const std::vector<std::string>& known,
                         const std::string& solution) {
  std::string val = trim(v.val(name));
  for (auto& k : known)
    if (k == val) return val;
  invalid(val, name, "the value must be one of " + join(known) + ".", solution);
}

// --precision_mode / --precision_mode_v2 (default force_fp16, as ATC), then the precision files.
void parsePrecision(const CliValues& v, AtcOptions& opts) {
  if (v.given("precision_mode") && v.given("precision_mode_v2"))
    throw AtcError("E10056",
                   "Parameters [--precision_mode] and [--precision_mode_v2] cannot be set at the same time.",
                   "Keep only one of them (--precision_mode_v2 is recommended).");
  std::string mode, modeV2;
  if (v.given("precision_mode"))
    mode = checkedValue(v, "precision_mode",
                        {"force_fp16", "allow_fp32_to_fp16", "force_fp32", "cube_fp16in_fp32out",
                         "must_keep_origin_dtype", "allow_mix_precision", "allow_mix_precision_fp16",
                         "allow_mix_precision_bf16", "allow_fp32_to_bf16"},
                        "Use --precision_mode=must_keep_origin_dtype.");
  if (v.given("precision_mode_v2")) {
    std::string t = trim(v.val("precision_mode_v2"));
    if (t == "cube_hif8" || t == "mixed_hif8")
      invalid(t, "precision_mode_v2", "HiFloat8 modes are not supported on this target.", "Use --precision_mode_v2=origin.");
    modeV2 = checkedValue(v, "precision_mode_v2", {"fp16", "origin", "cube_fp16in_fp32out", "mixed_float16", "mixed_bfloat16"},
                          "Use --precision_mode_v2=origin.");
  }
  // Neither given: ATC's offline-inference default (docs/precision.md).
  if (!v.given("precision_mode") && !v.given("precision_mode_v2")) mode = "force_fp16";
  opts.passes.precision.mode = precisionModeFromNames(mode, modeV2);
  parsePrecisionCliOptions(v.givenFn(), v.valFn(), opts.passes.precision);  // atc/precision_options.cpp
}

// --input_shape, --input_format, --out_nodes, --enable_scope_fusion_passes.
void parseImport(const CliValues& v, AtcOptions& opts) {
  ImportOptions& im = opts.import;
  std::string dynamicOption;
  for (const char* d : {"dynamic_batch_size", "dynamic_image_size", "dynamic_dims"})
    if (v.given(d) && dynamicOption.empty()) dynamicOption = d;
  if (v.given("input_shape") && v.given("input_shape_range"))
    throw AtcError("E10009",
                   "Parameters [--input_shape] and [--input_shape_range] are mutually exclusive; both were given.",
                   "Give the shapes and their ranges in one of them, e.g. --input_shape=\"input_ids:1,1~512\".");
  ShapeRanges ranges;
  if (v.given("input_shape")) parseInputShape(v.val("input_shape"), im, dynamicOption, &ranges);
  if (v.given("input_shape_range"))
    parseInputShape(v.val("input_shape_range"), im, dynamicOption, &ranges, "input_shape_range");
  if (v.given("input_format")) {
    std::vector<std::string> ok = im.framework == 3 ? std::vector<std::string>{"NHWC", "NCHW", "ND", "NCDHW", "NDHWC"}
                                                    : std::vector<std::string>{"NCHW", "ND", "NCDHW"};
    std::string f = trim(v.val("input_format"));
    if (std::find(ok.begin(), ok.end(), f) == ok.end())
      invalid(f, "input_format", "the value must be one of " + join(ok) + " for this framework.",
              "Use --input_format=" + ok.front() + ".");
    im.inputFormat = f;
  }
  if (v.given("out_nodes")) im.outNodeList = parseOutNodes(v.val("out_nodes"));
  opts.dynamic = parseDynamicGears(v.val("dynamic_batch_size"), v.given("dynamic_batch_size"), v.val("dynamic_image_size"),
                                   v.given("dynamic_image_size"), v.val("dynamic_dims"), v.given("dynamic_dims"), im);
  if (!ranges.dims.empty())
    opts.dynamic = rangeGears(ranges, v.given("input_shape") ? "input_shape" : "input_shape_range",
                              v.val(v.given("input_shape") ? "input_shape" : "input_shape_range"));
  if (im.framework == 3) opts.passes.enabledPasses.push_back("TfLayoutSinkingPass");
  if (!v.given("enable_scope_fusion_passes")) return;
  if (im.framework != 3)
    invalid(v.val("enable_scope_fusion_passes"), "enable_scope_fusion_passes",
            "scope fusion passes apply to TensorFlow models (--framework=3) only.", "Remove --enable_scope_fusion_passes.");
  std::vector<std::string> unknown, known;
  for (auto& p : allPasses())
    if (std::string(p.group) == "scope_fusion") known.push_back(p.name);
  for (auto& name : splitList(v.val("enable_scope_fusion_passes"), ",")) {
    if (std::find(known.begin(), known.end(), name) == known.end()) unknown.push_back(name);
    else opts.passes.enabledPasses.push_back(name);
  }
  if (!unknown.empty())
    std::cerr << "[WARNING] --enable_scope_fusion_passes: unknown scope fusion pass(es) " << join(unknown)
              << " ignored (known: " << join(known) << ").\n";
}

// --op_compiler_cache_mode/_dir, --op_debug_level, --op_debug_config, --graph_compiler_cache_dir.
void parseCache(const CliValues& v, AtcOptions& opts) {
  cache::CacheSettings& cs = opts.backend.kernelCache;
  cs.mode = cache::CacheMode::Enable;
  if (v.given("op_compiler_cache_mode")) {
    std::string m = checkedValue(v, "op_compiler_cache_mode", {"enable", "disable", "force"},
                                 "Use --op_compiler_cache_mode=enable (default), disable or force.");
    cs.mode = m == "disable" ? cache::CacheMode::Disable : m == "force" ? cache::CacheMode::Force : cache::CacheMode::Enable;
  }
  std::string dir;
  bool wantKernelMeta = false;
  if (v.given("op_compiler_cache_dir")) {
    dir = trim(v.val("op_compiler_cache_dir"));
    bool ok = !dir.empty();
    for (char c : dir) ok = ok && (std::isalnum((unsigned char)c) || std::string("_-./~").find(c) != std::string::npos);
    if (!ok)
      invalid(dir, "op_compiler_cache_dir", "a folder path of letters, digits, '_', '-', '.' and '/' is expected.",
              "Give a folder path such as /home/me/atc_data (it is created when missing).");
  }
  cs.dir = cache::resolveCacheDir(dir);
  if (const char* e = std::getenv("ATC_MAX_MODEL_MEMORY_BYTES")) {
    int64_t lim = -1;
    if (!parseInt64(e, &lim) || lim <= 0)
      invalidValue("environment variable [ATC_MAX_MODEL_MEMORY_BYTES]", e, "it must be a positive number of bytes.",
                   "Set it to a byte count such as 17179869184 (16 GiB), or unset it (64 GiB).");
    opts.backend.maxModelMemoryBytes = lim;
  }
  if (v.given("op_debug_level")) {
    std::string t = trim(v.val("op_debug_level"));
    int64_t l = -1;
    if (!parseInt64(t, &l) || l < 0 || l > 4)
      invalid(t, "op_debug_level", "the value must be 0, 1, 2, 3 or 4.", "Use --op_debug_level=0 (default).");
    opts.backend.opDebugLevel = (int)l;
    cs.bypassAll = l != 0;
  }
  if (v.given("op_debug_config")) {
    std::string t = trim(v.val("op_debug_config"));
    if (t.empty()) invalid(t, "op_debug_config", "the value is empty.", "Give the path of a .cfg file.");
    cache::OpDebugConfig c = cache::parseOpDebugConfig(t);  // E10001 when missing or malformed
    if (!c.hasList) cs.bypassAll = true;
    else cs.recompile = c.list;
    auto has = [&c](const char* item) { return std::find(c.options.begin(), c.options.end(), item) != c.options.end(); };
    if (has("oom")) opts.backend.oomRedzone = kOomRedzoneBytes, opts.backend.oomBoundsCheck = true;
    wantKernelMeta = has("dump_cce") || has("dump_loc");
  }
  // kernel_meta (docs/debugging.md): under --debug_dir (default: the current folder), with
  // every kernel compiled (the cache has no IR or assembly to give).
  if (wantKernelMeta || opts.backend.opDebugLevel >= 2) {
    std::string base = v.given("debug_dir") ? trim(v.val("debug_dir")) : ".";
    if (base.empty()) invalid(base, "debug_dir", "the value is empty.", "Give a folder, or remove --debug_dir.");
    std::string err = makeDirs(base + "/kernel_meta");
    if (!err.empty())
      invalid(base, "debug_dir", "cannot create " + base + "/kernel_meta: " + err + ".", "Give a writable folder.");
    opts.backend.kernelMetaDir = base + "/kernel_meta";
    cs.bypassAll = true;
  }
  if (v.given("graph_compiler_cache_dir")) {
    std::string t = trim(v.val("graph_compiler_cache_dir"));
    struct stat st;
    if (t.empty() || ::stat(t.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      invalid(t, "graph_compiler_cache_dir", "the folder does not exist.",
              "Create the folder first, or remove --graph_compiler_cache_dir.");
    opts.output.graphCompilerCacheDir = t;
  }
}

// --sign_key: the key is read and checked before anything is compiled.
void parseSignKey(const std::string& path, OutputOptions& out) {
  const std::string sol = "Give an Ed25519 private key in PEM: openssl genpkey -algorithm ed25519 -out key.pem";
  if (path.empty()) invalid(path, "sign_key", "the value is empty.", sol, "E10004");
  std::string pem, err = readFileBounded(path, 1 << 16, &pem);
  if (!err.empty()) invalid(path, "sign_key", "cannot read the key: " + err + ".", sol);
  if (pem.find("PRIVATE KEY-----") == std::string::npos)
    invalid(path, "sign_key", "the file is not a PEM private key (a public key cannot sign).", sol);
  try {
    om::ed25519Fingerprint(pem, "--sign_key " + path);
  } catch (const om::OmError& e) {
    invalid(path, "sign_key", std::string(e.what()) + ".", sol);
  }
  out.signKeyPath = path;
  out.signKeyPem = pem;
}

// Implementation modes, --fusion_switch_file (read and applied here), --export_compile_stat,
// --disable_reuse_memory.
void parsePassesAndOutput(const CliValues& v, AtcOptions& opts) {
  parseImplModeOptions(v.givenFn(), v.valFn(), opts.passes.implmode);  // atc/implmode_options.cpp
  if (v.given("fusion_switch_file")) {
    std::string f = trim(v.val("fusion_switch_file"));
    if (f.empty())
      invalid(v.val("fusion_switch_file"), "fusion_switch_file", "the value is empty.",
              "Set --fusion_switch_file to the path of a fusion switch file.", "E10004");
    applyFusionSwitches(loadFusionSwitchFile(f), opts.passes);
  }
  if (v.given("export_compile_stat")) {
    int64_t e = -1;
    if (!parseInt64(v.val("export_compile_stat"), &e) || e < 0 || e > 2)
      invalid(v.val("export_compile_stat"), "export_compile_stat", "the value must be 0, 1 or 2.",
              "Use --export_compile_stat=0 (no fusion_result.json), 1 (default) or 2.");
    opts.output.exportCompileStat = (int)e;
  }
  if (v.given("sign_key")) parseSignKey(trim(v.val("sign_key")), opts.output);
  if (v.given("display_model_info"))
    opts.output.displayModelInfo = checkedValue(v, "display_model_info", {"0", "1"},
                                                "Use --display_model_info=0 (default) or 1.") == "1";
  if (v.given("status_check"))
    opts.backend.statusCheck = checkedValue(v, "status_check", {"0", "1"}, "Use --status_check=0 (default) or 1.") == "1";
  if (v.given("disable_reuse_memory")) {
    std::string d = checkedValue(v, "disable_reuse_memory", {"0", "1"},
                                 "Use --disable_reuse_memory=0 (default: buffers reuse memory) or 1.");
    opts.backend.disableReuseMemory = d == "1";
  }
}

}  // namespace

bool parseCommandLine(int argc, const char* const* argv, AtcOptions& opts, std::ostream& helpOut) {
  std::string cmdline = "atc";  // the whole command line, stored in the model
  for (int i = 1; i < argc; ++i) cmdline += " " + quoteArg(argv[i]);
  opts.cmdline = opts.backend.cmdline = cmdline;
  CliValues v;
  if (!readArgs(argc, argv, v, helpOut)) return false;
  if (v.given("log")) opts.log = parseLogLevel(v.val("log"));  // first: its level applies to the rest
  parseModeAndUnimplemented(v, opts);
  if (opts.mode == 6) {  // --om only (atc/mode_json.h)
    if (!v.given("om") || trim(v.val("om")).empty()) requiredParam("om", "Set --om to the .om to display.");
    opts.om = trim(v.val("om"));
    return true;
  }
  if (opts.mode == 1) {  // --om (an .om) and --json only (atc/mode_json.h)
    if (!v.given("om") || trim(v.val("om")).empty()) requiredParam("om", "Set --om to the .om to convert.");
    if (!v.given("json") || trim(v.val("json")).empty()) requiredParam("json", "Set --json to the JSON file to write.");
    opts.om = trim(v.val("om"));
    opts.json = trim(v.val("json"));
    return true;
  }
  parseRequired(v, opts);
  parsePrecision(v, opts);
  parseImport(v, opts);
  parseCache(v, opts);
  parsePassesAndOutput(v, opts);
  return true;
}

}  // namespace atc
