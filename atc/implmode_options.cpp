#include "atc/implmode_options.h"

#include <fstream>
#include <sstream>
#include <vector>

#include "support/diagnostics.h"
#include "support/file_io.h"
#include "support/strings.h"

namespace atc {

namespace {

[[noreturn]] void bad(const std::string& value, const std::string& param, const std::string& reason,
                      const std::string& solution, const char* code = "E10001") {
  invalidParamCode(code, param, value, reason, solution);
}

const std::vector<std::string> kSelectModes = {"high_performance", "high_precision", "high_performance_for_all",
                                               "high_precision_for_all"};
const std::vector<std::string> kIniModes = {"high_precision", "high_performance", "keep_fp16",
                                            "super_performance", "support_out_of_bound_index"};

bool oneOf(const std::string& v, const std::vector<std::string>& l) {
  for (auto& x : l)
    if (x == v) return true;
  return false;
}

}  // namespace

void parseOpPrecisionIni(const std::string& text, const std::string& file, ImplModeOptions& opts) {
  const std::string sol = "Write the file as [ByOpType] / [ByNodeName] sections of name=mode lines, mode one of "
                          "high_precision, high_performance, keep_fp16, super_performance, "
                          "support_out_of_bound_index.";
  opts.byOpType.clear();
  opts.byNodeName.clear();
  std::istringstream in(text);
  std::string raw;
  int lineNo = 0;
  std::map<std::string, std::pair<std::string, int>>* sec = nullptr;
  while (std::getline(in, raw)) {
    ++lineNo;
    std::string line = trim(raw);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    const std::string where = file + " line " + std::to_string(lineNo);
    if (line.front() == '[') {
      if (line.back() != ']') bad(file, "op_precision_mode", where + ": unterminated section [" + line + ".", sol);
      std::string name = trim(line.substr(1, line.size() - 2));
      if (name == "ByOpType") sec = &opts.byOpType;
      else if (name == "ByNodeName") sec = &opts.byNodeName;
      else bad(file, "op_precision_mode", where + ": unknown section [" + name + "] (ByOpType or ByNodeName).", sol);
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string::npos)
      bad(file, "op_precision_mode", where + ": [" + line + "] is not a name=mode line.", sol);
    std::string key = trim(line.substr(0, eq)), mode = trim(line.substr(eq + 1));
    if (!sec) bad(file, "op_precision_mode", where + ": [" + key + "] comes before any [ByOpType] / [ByNodeName] section.", sol);
    if (key.empty()) bad(file, "op_precision_mode", where + ": the name before '=' is empty.", sol);
    if (!oneOf(mode, kIniModes))
      bad(file, "op_precision_mode", where + ": mode [" + mode + "] of [" + key + "] is not one of high_precision, "
                                     "high_performance, keep_fp16, super_performance, support_out_of_bound_index.", sol);
    auto it = sec->find(key);
    if (it != sec->end())
      bad(file, "op_precision_mode", where + ": [" + key + "] is already set on line " +
                                     std::to_string(it->second.second) + ".", sol);
    (*sec)[key] = {mode, lineNo};
  }
}

void parseImplModeOptions(const std::function<bool(const std::string&)>& isGiven,
                          const std::function<std::string(const std::string&)>& val, ImplModeOptions& opts) {
  if (isGiven("op_select_implmode")) {
    std::string v = trim(val("op_select_implmode"));
    if (!oneOf(v, kSelectModes))
      bad(v, "op_select_implmode", "the value must be one of high_performance, high_precision, "
                                   "high_performance_for_all, high_precision_for_all.",
          "Use --op_select_implmode=high_performance (default) or high_precision.");
    opts.selectImplmode = v;
  }
  if (isGiven("optypelist_for_implmode")) {
    std::string v = val("optypelist_for_implmode");
    if (opts.selectImplmode != "high_precision" && opts.selectImplmode != "high_performance")
      bad(v, "optypelist_for_implmode",
          "--optypelist_for_implmode needs --op_select_implmode set to high_precision or high_performance" +
              (opts.selectImplmode.empty() ? std::string(" (it is not set).")
                                              : " (it is " + opts.selectImplmode + ")."),
          "Add --op_select_implmode=high_precision (or high_performance), or remove --optypelist_for_implmode.");
    std::stringstream ss(v);
    std::string t;
    while (std::getline(ss, t, ',')) {
      t = trim(t);
      if (t.empty())
        bad(v, "optypelist_for_implmode", "an op type in the comma list is empty.",
            "Give op types separated by commas, e.g. --optypelist_for_implmode=Softmax,Gelu.");
      opts.optypelist.push_back(t);
    }
  }
  if (isGiven("op_precision_mode")) {
    std::string f = trim(val("op_precision_mode"));
    if (f.empty())
      bad(f, "op_precision_mode", "the value is empty.", "Set --op_precision_mode to the path of an op_precision.ini.",
          "E10004");
    std::string text, err = readOptionFile(f, 16u << 20, &text);
    if (!err.empty())
      bad(f, "op_precision_mode", err + ".", "Set --op_precision_mode to the path of a readable op_precision.ini.",
          "E10003");
    parseOpPrecisionIni(text, f, opts);
    opts.iniFile = f;
  }
}

}  // namespace atc
