#include "backend/range_kernels.h"

#include <map>
#include <set>
#include <string>
#include <tuple>

#include "support/diagnostics.h"

namespace atc {

using json = nlohmann::json;

namespace {

// The steps of one node across the shapes: its kernel and params length, and the instances it calls.
using StepKey = std::tuple<std::string, std::string, size_t>;  // node, kernel, params length

// A generic instance: what is baked in (the params every instance of the group agrees on).
using Signature = std::tuple<std::string, std::vector<int64_t>, std::vector<uint8_t>>;

}  // namespace

std::vector<KernelInstance> shareKernelsAcrossRange(std::vector<json>& plans, std::vector<KernelInstance> instances,
                                                    RangeKernelStats* stats) {
  std::map<std::string, size_t> index;  // symbol -> instance
  for (size_t i = 0; i < instances.size(); ++i) index[instances[i].symbol] = i;
  std::vector<size_t> usedBy(instances.size(), 0);  // plans that call the instance
  for (auto& p : plans) {
    std::set<size_t> used;
    for (auto& s : p.at("steps"))
      if (s.contains("symbol")) used.insert(index.at(s.at("symbol").get<std::string>()));
    for (size_t i : used) ++usedBy[i];
  }
  auto specialised = [&](size_t i) { return usedBy[i] == plans.size() || instances[i].boundsCheck; };
  // Per node: the instances its steps call across the shapes. The params that differ between
  // them come from the shape; the ones that agree (data types, modes, the target's code paths)
  // are baked into the node's generic instance, which nodes of equal baked params share.
  std::map<StepKey, std::set<size_t>> groups;
  auto keyOf = [&](const json& s, size_t i) {
    return StepKey{s.at("node").get<std::string>(), instances[i].kernel, instances[i].params.size()};
  };
  for (auto& p : plans)
    for (auto& s : p.at("steps"))
      if (s.contains("symbol")) {
        size_t i = index.at(s.at("symbol").get<std::string>());
        if (!specialised(i)) groups[keyOf(s, i)].insert(i);
      }
  std::vector<KernelInstance> out;
  RangeKernelStats st;
  std::vector<bool> replaced(instances.size(), false);
  std::map<Signature, std::string> genericSym;
  std::map<StepKey, std::string> groupSym;
  for (auto& [key, members] : groups) {
    const size_t n = std::get<2>(key);
    std::vector<int64_t> baked = instances[*members.begin()].params;
    std::vector<uint8_t> runtime(n, 0);
    for (size_t i : members) {
      replaced[i] = true;
      for (size_t k = 0; k < n; ++k)
        if (instances[i].params[k] != baked[k]) runtime[k] = 1;
    }
    for (size_t k = 0; k < n; ++k)
      if (runtime[k]) baked[k] = 0;
    Signature sig{std::get<1>(key), baked, runtime};
    auto it = genericSym.find(sig);
    if (it == genericSym.end()) {
      KernelInstance g;
      g.kernel = std::get<1>(key);
      g.params = baked;
      g.runtimeParams = runtime;
      g.generic = true;
      g.symbol = "g" + std::to_string(genericSym.size());
      it = genericSym.emplace(sig, g.symbol).first;
      out.push_back(std::move(g));
      ++st.generic;
    }
    groupSym[key] = it->second;
    for (KernelInstance& o : out)  // the nodes the generic instance serves (cache hit report)
      if (o.symbol == it->second) {
        o.nodes.push_back(std::get<0>(key));
        o.opTypes.push_back(instances[*members.begin()].opTypes.empty() ? std::string()
                                                                         : instances[*members.begin()].opTypes[0]);
      }
  }
  for (auto& p : plans)
    for (auto& s : p.at("steps")) {
      if (!s.contains("symbol")) continue;
      size_t i = index.at(s.at("symbol").get<std::string>());
      if (specialised(i)) {
        s.erase("params");
        continue;
      }
      s["symbol"] = groupSym.at(keyOf(s, i));
      if (!s.contains("params")) internalError("a step of a range build has no params");
    }
  for (size_t i = 0; i < instances.size(); ++i) {
    if (replaced[i]) ++st.replaced;
    if (usedBy[i] && specialised(i)) {
      out.push_back(std::move(instances[i]));
      ++st.specialised;
    }
  }
  if (stats) *stats = st;
  return out;
}

}  // namespace atc
