#include "passes/implmode/implmode_select.h"

#include <map>


namespace atc {

namespace {

const std::vector<std::string> kMath = {"high_performance", "high_precision", "super_performance",
                                        "keep_fp16"};
const std::vector<std::string> kReduce = {"high_performance", "high_precision"};
const std::vector<std::string> kIndex = {"high_performance", "support_out_of_bound_index"};

const std::map<std::string, const std::vector<std::string>*>& table() {
  static const std::map<std::string, const std::vector<std::string>*> t = {
      {"Exp", &kMath},         {"Log", &kMath},
      {"Tanh", &kMath},        {"Sigmoid", &kMath},
      {"Erf", &kMath},         {"Gelu", &kMath},
      {"Softmax", &kReduce},    {"LogSoftmax", &kReduce},
      {"LayerNormalization", &kReduce}, {"InstanceNormalization", &kReduce},
      {"MeanVarianceNormalization", &kReduce}, {"LpNormalization", &kReduce},
      {"ReduceSum", &kReduce}, {"ReduceMean", &kReduce},
      {"ReduceL1", &kReduce},  {"ReduceL2", &kReduce},
      {"ReduceLogSum", &kReduce}, {"ReduceLogSumExp", &kReduce},
      {"ReduceSumSquare", &kReduce}, {"ReduceProd", &kReduce},
      {"Gather", &kIndex},     {"GatherElements", &kIndex},
      {"GatherND", &kIndex},   {"ScatterND", &kIndex},
      {"ScatterElements", &kIndex},
      {"Conv", &kReduce},  // high_performance: Winograd where it pays (ConvWinogradPass)
  };
  return t;
}

bool supports(const std::string& opType, const std::string& mode) {
  for (auto& m : implModesOf(opType))
    if (m == mode) return true;
  return false;
}

const std::string* lookup(const std::map<std::string, std::pair<std::string, int>>& m,
                          const std::string& key, int* line) {
  auto it = m.find(key);
  if (it == m.end()) return nullptr;
  *line = it->second.second;
  return &it->second.first;
}

}  // namespace

const std::vector<std::string>& implModesOf(const std::string& opType) {
  static const std::vector<std::string> none;
  auto it = table().find(opType);
  return it == table().end() ? none : *it->second;
}

const std::vector<std::string>& builtinImplList(const std::string& mode) {
  // Like the reference's high_precision.ini / high_performance.ini: a fixed subset, so
  // that networks built with the plain modes keep their behaviour when ops gain modes.
  static const std::vector<std::string> prec = {"Softmax", "LogSoftmax", "LayerNormalization", "Gelu",
                                                "Erf", "ReduceMean", "ReduceSum", "Conv"};
  static const std::vector<std::string> perf = {"Softmax", "LogSoftmax", "LayerNormalization", "Gelu", "Erf",
                                                "ReduceMean", "ReduceSum", "Exp", "Tanh", "Sigmoid", "Conv"};
  static const std::vector<std::string> none;
  if (mode == "high_precision") return prec;
  if (mode == "high_performance") return perf;
  return none;
}

ImplChoice resolveImplMode(const ImplModeOptions& o, const std::string& opType,
                           const std::vector<std::string>& names) {
  ImplChoice c;
  if (implModesOf(opType).empty()) return c;  // one implementation: nothing to choose
  std::string asked, why;
  // 1. --op_precision_mode: [ByNodeName] (node or original names) > [ByOpType].
  if (!o.iniFile.empty()) {
    int line = 0;
    for (auto& nm : names) {
      if (const std::string* v = lookup(o.byNodeName, nm, &line)) {
        asked = *v;
        why = "op_precision_mode [ByNodeName] line " + std::to_string(line);
        break;
      }
    }
    if (asked.empty())
      if (const std::string* v = lookup(o.byOpType, opType, &line)) {
        asked = *v;
        why = "op_precision_mode [ByOpType] line " + std::to_string(line);
      }
  } else {
    // 2. --op_select_implmode (+ --optypelist_for_implmode).
    const std::string sel = o.selectImplmode.empty() ? "high_performance" : o.selectImplmode;
    if (sel == "high_precision_for_all" || sel == "high_performance_for_all") {
      asked = sel.substr(0, sel.size() - 8);
      why = "op_select_implmode=" + sel;
    } else {
      const std::vector<std::string>& list =
          o.optypelist.empty() ? builtinImplList(sel) : o.optypelist;
      for (auto& t : list)
        if (t == opType) {
          asked = sel;
          why = "op_select_implmode=" + sel +
                (o.optypelist.empty() ? " (built-in list)" : ", optypelist_for_implmode");
        }
    }
  }
  if (asked.empty()) {
    c.mode = "high_performance";
    c.reason = "default";
  } else if (supports(opType, asked)) {
    c.mode = asked;
    c.reason = why;
  } else {
    c.mode = "high_performance";
    c.reason = why + ": " + asked + " not implemented by " + opType + ", its default is used";
  }
  return c;
}

}  // namespace atc
