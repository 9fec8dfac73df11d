#include "atc/atc_opt.h"

#include <sstream>
#include <string>
#include <vector>

#include "atc/console.h"
#include "atc/options.h"
#include "ir/printer.h"
#include "kernels/codegen/host_cpu.h"
#include "passes/pass_manager.h"
#include "passes/pass_registry.h"
#include "support/file_io.h"
#include "support/strings.h"

namespace atc {
namespace {

// The words after `key` on the text's first line that starts with it.
std::vector<std::string> headerWords(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!startsWith(line, key)) continue;
    std::istringstream w(line.substr(key.size()));
    std::vector<std::string> r;
    std::string t;
    while (w >> t) r.push_back(t);
    return r;
  }
  return {};
}

bool has(const std::vector<std::string>& args, const std::string& prefix) {
  for (auto& a : args)
    if (startsWith(a, prefix)) return true;
  return false;
}

struct OptArgs {
  std::string file;
  std::vector<std::string> passes;
  std::vector<std::string> atcArgs;
  bool listPasses = false;
};

OptArgs splitArgs(int argc, const char* const* argv) {
  OptArgs a;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    if (s == "--list-passes") a.listPasses = true;
    else if (startsWith(s, "--passes=")) a.passes = splitList(s.substr(9), ",");
    else if (startsWith(s, "-")) a.atcArgs.push_back(s);
    else if (a.file.empty()) a.file = s;
    else invalidValue("atc-opt", s, "more than one input file.", "Give one IR text file.");
  }
  return a;
}

std::string listPasses() {
  std::string r;
  for (auto& p : allPasses())
    r += std::string(p.name) + "  [" + p.group + (p.defaultOn ? "" : ", off by default") + "]  " + p.description + "\n";
  return r;
}

// Parses the atc options (file's "// options:" line first) with atc's own parser.
AtcOptions parseOptions(const OptArgs& a, const std::string& text) {
  std::vector<std::string> args = {"atc-opt"};
  for (auto& w : headerWords(text, "// options:")) args.push_back(w);
  args.insert(args.end(), a.atcArgs.begin(), a.atcArgs.end());
  if (!has(args, "--model")) args.push_back("--model=" + a.file);
  if (!has(args, "--framework")) args.push_back("--framework=5");
  if (!has(args, "--output")) args.push_back("--output=atc-opt-unused");
  bool noTarget = !has(args, "--soc_version");
  if (noTarget) args.push_back("--soc_version=none");
  if (!has(args, "--precision_mode")) args.push_back("--precision_mode=must_keep_origin_dtype");
  std::vector<const char*> argv;
  for (auto& s : args) argv.push_back(s.c_str());
  AtcOptions opts;
  std::ostringstream help;
  parseCommandLine((int)argv.size(), argv.data(), opts, help);
  if (noTarget) opts.socVersion.clear();
  return opts;
}

}  // namespace

int runAtcOptCommandLine(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  try {
    OptArgs a = splitArgs(argc, argv);
    if (a.listPasses) {
      out << listPasses();
      return 0;
    }
    if (a.file.empty()) requiredParam("<file.ir>", "Usage: atc-opt [--passes=a,b] [atc options] FILE.ir");
    std::string text, why = readFileBounded(a.file, 64u << 20, &text);
    if (!why.empty()) invalidValue("atc-opt input", a.file, why + ".", "Give a readable IR text file.");
    std::vector<std::string> passes = a.passes.empty() ? headerWords(text, "// passes:") : a.passes;
    if (passes.empty()) requiredParam("passes", "Name the passes with --passes=a,b or a '// passes:' line in the file.");
    AtcOptions opts = parseOptions(a, text);
    applyPassDebugEnv(opts.passes);
    TargetProfile target;
    if (!opts.socVersion.empty()) target = loadTargetProfile(opts.socVersion, hostCpu());
    std::unique_ptr<Graph> g = parseGraph(text);
    PassManager pm(opts.passes, opts.socVersion.empty() ? nullptr : &target);
    for (auto& p : passes) pm.addPass(p);
    pm.run(*g);
    out << printGraph(*g);
    return 0;
  } catch (const AtcError& e) {
    err << formatErrorBlock(e);
  } catch (const std::exception& e) {
    err << "E19999: Internal error: " << e.what() << "\n";
  }
  return 1;
}

}  // namespace atc
