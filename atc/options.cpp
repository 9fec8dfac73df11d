#include "atc/options.h"

#include <CLI/CLI.hpp>
#include <sys/stat.h>

#include <cctype>
#include <map>
#include <sstream>

#include "atc/precision_options.h"
#include "atc/implmode_options.h"
#include "cache/kernel_cache.h"
#include "ir/error.h"

namespace atc {

namespace {

[[noreturn]] void invalid(const std::string& value, const std::string& param, const std::string& reason,
                          const std::string& solution, const std::string& code = "E10001") {
  throw AtcError(code, "Value [" + value + "] for parameter [--" + param + "] is invalid. Reason: " + reason,
                 solution);
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> r;
  std::string cur;
  for (char c : s) {
    if (c == sep) { r.push_back(cur); cur.clear(); }
    else cur += c;
  }
  r.push_back(cur);
  return r;
}

bool parseInt64(const std::string& s, int64_t* out) {
  std::string t = trim(s);
  if (t.empty()) return false;
  size_t i = (t[0] == '-' || t[0] == '+') ? 1 : 0;
  if (i == t.size()) return false;
  for (size_t j = i; j < t.size(); ++j)
    if (!std::isdigit((unsigned char)t[j])) return false;
  if (t.size() - i > 18) return false;
  *out = std::stoll(t);
  return true;
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

void parseInputShape(const std::string& text, CompileOptions& opts) {
  const char* sol = "Use the form \"name1:n,c,h,w;name2:d0,d1\" (a scalar input: \"name:\"), "
                    "with non-negative integer dims.";
  opts.inputShapes.clear();
  opts.inputShapeOrder.clear();
  std::string t = trim(text);
  if (t.empty()) invalid(text, "input_shape", "the value is empty.", sol, "E10002");
  std::vector<std::string> items = split(t, ';');
  if (items.size() > 1 && trim(items.back()).empty()) items.pop_back();  // trailing ';'
  for (std::string item : items) {
    item = trim(item);
    if (item.empty()) invalid(text, "input_shape", "an entry between ';' is empty.", sol, "E10002");
    size_t colon = item.rfind(':');
    if (colon == std::string::npos)
      invalid(text, "input_shape", "entry [" + item + "] has no ':' between the name and the dims.", sol, "E10002");
    std::string name = trim(item.substr(0, colon));
    std::string dims = trim(item.substr(colon + 1));
    if (name.empty()) invalid(text, "input_shape", "entry [" + item + "] has no input name.", sol, "E10002");
    if (opts.inputShapes.count(name))
      invalid(text, "input_shape", "input [" + name + "] is given twice.", sol, "E10002");
    std::vector<int64_t> shape;
    if (!dims.empty()) {
      for (auto& d : split(dims, ',')) {
        std::string dt = trim(d);
        int64_t v = 0;
        if (dt.find('~') != std::string::npos)
          invalid(text, "input_shape", "shape ranges (" + dt + ") are dynamic shapes, not supported in this version.",
                  "Give every dim as a fixed non-negative integer.", "E10002");
        if (!parseInt64(dt, &v))
          invalid(text, "input_shape", "dim [" + dt + "] of input [" + name + "] is not an integer.", sol, "E10002");
        if (v == -1)
          invalid(text, "input_shape", "dim -1 of input [" + name + "] asks for a dynamic shape, not supported in this version.",
                  "Give every dim as a fixed non-negative integer.", "E10002");
        if (v < 0)
          invalid(text, "input_shape", "dim [" + dt + "] of input [" + name + "] is negative.", sol, "E10002");
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

// --op_compiler_cache_mode/_dir, --op_debug_level, --op_debug_config, --graph_compiler_cache_dir.
template <class IsGiven, class Val>
static void parseCacheOptions(CompileOptions& opts, IsGiven isGiven, Val val) {
  if (isGiven("op_compiler_cache_mode")) {
    std::string v = trim(val("op_compiler_cache_mode"));
    if (v != "enable" && v != "disable" && v != "force")
      invalid(v, "op_compiler_cache_mode", "the value must be enable, disable or force.",
              "Use --op_compiler_cache_mode=enable (default), disable or force.");
    opts.opCompilerCacheMode = v;
  }
  if (isGiven("op_compiler_cache_dir")) {
    std::string v = trim(val("op_compiler_cache_dir"));
    bool ok = !v.empty();
    for (char c : v) ok = ok && (std::isalnum((unsigned char)c) || std::string("_-./~").find(c) != std::string::npos);
    if (!ok)
      invalid(v, "op_compiler_cache_dir", "a folder path of letters, digits, '_', '-', '.' and '/' is expected.",
              "Give a folder path such as /home/me/atc_data (it is created when missing).");
    opts.opCompilerCacheDir = v;
  }
  if (isGiven("op_debug_level")) {
    std::string v = trim(val("op_debug_level"));
    int64_t l = -1;
    if (!parseInt64(v, &l) || l < 0 || l > 4)
      invalid(v, "op_debug_level", "the value must be 0, 1, 2, 3 or 4.", "Use --op_debug_level=0 (default).");
    opts.opDebugLevel = (int)l;
  }
  if (isGiven("op_debug_config")) {
    std::string v = trim(val("op_debug_config"));
    if (v.empty()) invalid(v, "op_debug_config", "the value is empty.", "Give the path of a .cfg file.");
    cache::parseOpDebugConfig(v);  // checked early: E10001 when missing or malformed
    opts.opDebugConfig = v;
  }
  if (isGiven("graph_compiler_cache_dir")) {
    std::string v = trim(val("graph_compiler_cache_dir"));
    struct stat st;
    if (v.empty() || ::stat(v.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      invalid(v, "graph_compiler_cache_dir", "the folder does not exist.",
              "Create the folder first, or remove --graph_compiler_cache_dir.");
    opts.graphCompilerCacheDir = v;
  }
}

bool parseCommandLine(int argc, const char* const* argv, CompileOptions& opts, std::ostream& helpOut) {
  // The whole command line, stored in the model.
  std::string cmdline = "atc";
  for (int i = 1; i < argc; ++i) cmdline += " " + quoteArg(argv[i]);
  opts.cmdline = cmdline;

  std::vector<std::string> args;
  args.push_back(argc > 0 ? argv[0] : "atc");
  // "--name=" (empty value): CLI11 reads it as a missing value; keep it as given-but-empty
  // so that the option's own check reports it (E10054 for --soc_version, ...).
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
  std::map<std::string, std::string> values;
  std::map<std::string, CLI::Option*> given;
  for (auto& s : atcOptionTable()) {
    CLI::Option* o = app.add_option(std::string("--") + s.name, values[s.name], s.help);
    o->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    o->allow_extra_args(false);
    given[s.name] = o;
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
    std::string what = e.what();
    std::string name = "command line";
    for (size_t i = 1; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a.rfind("-", 0) == 0) {
        std::string n = a.substr(a.find_first_not_of('-'));
        n = n.substr(0, n.find('='));
        if (!findOptionSpec(n) && n != "help" && n != "h") {
          throw AtcError("E10001", "Parameter [" + a.substr(0, a.find('=')) + "] is not an option of atc.",
                         "Try 'atc --help' for the list of options.");
        }
      }
    }
    throw AtcError("E10001", "The command line is invalid. Reason: " + what,
                   "Write options as --name=value; try 'atc --help' for the list of options.");
  }
  for (auto& kv : givenEmpty)
    if (given.at(kv.first)->count() == 0) values[kv.first].clear();
    else givenEmpty[kv.first] = false;  // a later non-empty value wins
  auto isGiven = [&](const std::string& n) {
    auto e = givenEmpty.find(n);
    return given.at(n)->count() > 0 || (e != givenEmpty.end() && e->second);
  };
  auto val = [&](const std::string& n) { return values.at(n); };

  // --log first, so that its level applies to the rest.
  if (isGiven("log")) opts.log = parseLogLevel(val("log"));

  // --mode
  if (isGiven("mode")) {
    int64_t m = -1;
    if (!parseInt64(val("mode"), &m) || (m != 0 && m != 1 && m != 3 && m != 6))
      invalid(val("mode"), "mode", "the value must be 0, 1, 3 or 6.", "Use --mode=0 to build an .om.");
    if (m != 0 && m != 1)
      invalid(val("mode"), "mode", "mode " + std::to_string(m) + " is recognised but not implemented yet in this version.",
              "Use --mode=0 (build an .om).");
    opts.mode = (int)m;
  }

  // Recognised options this version does not implement: refused by name.
  for (auto& s : atcOptionTable()) {
    if (s.status != OptionStatus::NotImplemented || !isGiven(s.name)) continue;
    const std::string v = val(s.name);
    bool accepted = false;
    for (auto& a : s.acceptedValues) accepted = accepted || a == trim(v);
    if (accepted) continue;
    invalid(v, s.name, std::string("option --") + s.name + " is recognised but not implemented yet in this version.",
            std::string("Remove --") + s.name + " from the command line" +
                (s.acceptedValues.empty() ? std::string(".")
                                          : " or set it to " + s.acceptedValues.front() + "."));
  }

  // --mode=1: --om (an .om) and --json only (atc/mode_json.h).
  if (opts.mode == 1) {
    if (!isGiven("om") || trim(val("om")).empty())
      throw AtcError("E10007", "Argument [--om] is required with --mode=1.", "Set --om to the .om to convert.");
    if (!isGiven("json") || trim(val("json")).empty())
      throw AtcError("E10007", "Argument [--json] is required with --mode=1.", "Set --json to the JSON file to write.");
    opts.om = trim(val("om"));
    opts.json = trim(val("json"));
    return true;
  }

  // Required options.
  if (!isGiven("model") || trim(val("model")).empty())
    throw AtcError("E10007", "Argument [--model] is required.",
                   "Set --model to the path of the source model file.");
  if (!isGiven("framework") || trim(val("framework")).empty())
    throw AtcError("E10007", "Argument [--framework] is required.", "Set --framework=5 for an ONNX model.");
  if (!isGiven("output") || trim(val("output")).empty())
    throw AtcError("E10007", "Argument [--output] is required.",
                   "Set --output to the path prefix of the .om to write.");
  if (!isGiven("soc_version") || trim(val("soc_version")).empty())
    throw AtcError("E10054", "The required parameter [--soc_version] for ATC is empty.",
                   "Set --soc_version to a target profile name.");

  // --framework
  {
    std::string f = trim(val("framework"));
    int64_t fw = -1;
    if (!parseInt64(f, &fw)) invalid(f, "framework", "the value must be an integer: 5 (ONNX).", "Use --framework=5.");
    if (fw == 0) invalid(f, "framework", "Caffe models are not supported by this compiler.",
                         "Convert the model to ONNX and use --framework=5.");
    if (fw == 1) invalid(f, "framework", "MindSpore models are not supported by this compiler.",
                         "Export the model to ONNX and use --framework=5.");
    if (fw != 5 && fw != 3)
      invalid(f, "framework", "the value must be 3 (TensorFlow) or 5 (ONNX).", "Use --framework=3 or --framework=5.");
    opts.framework = (int)fw;
  }
  opts.model = trim(val("model"));
  opts.output = val("output");
  opts.socVersion = trim(val("soc_version"));

  // Precision.
  if (isGiven("precision_mode") && isGiven("precision_mode_v2"))
    throw AtcError("E10056",
                   "Parameters [--precision_mode] and [--precision_mode_v2] cannot be set at the same time.",
                   "Keep only one of them (--precision_mode_v2 is recommended).");
  if (isGiven("precision_mode")) {
    static const std::vector<std::string> known = {
        "force_fp16", "allow_fp32_to_fp16", "force_fp32", "cube_fp16in_fp32out", "must_keep_origin_dtype",
        "allow_mix_precision", "allow_mix_precision_fp16", "allow_mix_precision_bf16", "allow_fp32_to_bf16"};
    std::string v = trim(val("precision_mode"));
    bool isKnown = false;
    for (auto& k : known) isKnown = isKnown || k == v;
    if (!isKnown)
      invalid(v, "precision_mode", "the value must be one of force_fp16, allow_fp32_to_fp16, force_fp32, "
                                   "cube_fp16in_fp32out, must_keep_origin_dtype, allow_mix_precision, "
                                   "allow_mix_precision_fp16, allow_mix_precision_bf16, allow_fp32_to_bf16.",
              "Use --precision_mode=must_keep_origin_dtype.");
    opts.precisionMode = v;
  }
  if (isGiven("precision_mode_v2")) {
    std::string v = trim(val("precision_mode_v2"));
    static const std::vector<std::string> known = {"fp16", "origin", "cube_fp16in_fp32out", "mixed_float16",
                                                   "mixed_bfloat16"};
    bool isKnown = false;
    for (auto& k : known) isKnown = isKnown || k == v;
    if (v == "cube_hif8" || v == "mixed_hif8")
      invalid(v, "precision_mode_v2", "HiFloat8 modes are not supported on this target.",
              "Use --precision_mode_v2=origin.");
    if (!isKnown)
      invalid(v, "precision_mode_v2", "the value must be one of fp16, origin, cube_fp16in_fp32out, mixed_float16, "
                                      "mixed_bfloat16.",
              "Use --precision_mode_v2=origin.");
    opts.precisionModeV2 = v;
  }
  // Neither given: ATC's offline-inference default (docs/precision.md).
  if (!isGiven("precision_mode") && !isGiven("precision_mode_v2")) opts.precisionMode = "force_fp16";
  parsePrecisionCliOptions(isGiven, val, opts);  // atc/precision_options.cpp

  if (isGiven("input_shape")) {
    opts.inputShape = val("input_shape");
    parseInputShape(opts.inputShape, opts);
  }
  if (isGiven("input_format")) {
    opts.inputFormat = trim(val("input_format"));
    std::vector<std::string> ok = opts.framework == 3 ? std::vector<std::string>{"NHWC", "NCHW", "ND", "NCDHW", "NDHWC"}
                                                      : std::vector<std::string>{"NCHW", "ND", "NCDHW"};
    bool known = false;
    std::string list;
    for (auto& k : ok) {
      known = known || k == opts.inputFormat;
      list += (list.empty() ? "" : ", ") + k;
    }
    if (!known)
      invalid(opts.inputFormat, "input_format", "the value must be one of " + list + " for this framework.",
              "Use --input_format=" + ok.front() + ".");
  }
  if (isGiven("enable_scope_fusion_passes")) {
    if (opts.framework != 3)
      invalid(val("enable_scope_fusion_passes"), "enable_scope_fusion_passes",
              "scope fusion passes apply to TensorFlow models (--framework=3) only.",
              "Remove --enable_scope_fusion_passes.");
    for (auto& p : split(val("enable_scope_fusion_passes"), ',')) {
      std::string t = trim(p);
      if (!t.empty()) opts.scopeFusionPasses.push_back(t);
    }
  }
  parseCacheOptions(opts, [&](const std::string& n) { return isGiven(n); }, val);
  parseImplModeOptions(isGiven, val, opts);  // atc/implmode_options.cpp
  if (isGiven("fusion_switch_file")) {
    opts.fusionSwitchFile = trim(val("fusion_switch_file"));
    if (opts.fusionSwitchFile.empty())
      invalid(val("fusion_switch_file"), "fusion_switch_file", "the value is empty.",
              "Set --fusion_switch_file to the path of a fusion switch file.", "E10004");
  }
  if (isGiven("export_compile_stat")) {
    int64_t v = -1;
    if (!parseInt64(val("export_compile_stat"), &v) || v < 0 || v > 2)
      invalid(val("export_compile_stat"), "export_compile_stat", "the value must be 0, 1 or 2.",
              "Use --export_compile_stat=0 (no fusion_result.json), 1 (default) or 2.");
    opts.exportCompileStat = (int)v;
  }
  if (isGiven("out_nodes")) {
    opts.outNodes = val("out_nodes");
    opts.outNodeList = parseOutNodes(opts.outNodes);
  }
  return true;
}

}  // namespace atc
