// ImplModeSelection: stores each node's implementation mode ("_impl_mode") and why
// ("_impl_mode_reason"), resolved by implmode_select.cpp. Runs after graph fusion so that fused
// nodes (Gelu, LayerNormalization, Softmax...) are matched by their original names too.
#include "passes/implmode/implmode_select.h"
#include "passes/pass.h"

namespace atc {

bool runImplModeSelection(Graph& g, PassContext& ctx) {
  bool changed = false;
  for (auto& up : g.nodes()) {
    Node* n = up.get();
    std::vector<std::string> names{n->name};
    names.insert(names.end(), n->originalNames.begin(), n->originalNames.end());
    ImplChoice c = resolveImplMode(ctx.opts.implmode, n->type, names);
    if (c.mode.empty()) continue;
    n->attrs["_impl_mode"] = c.mode;
    n->attrs["_impl_mode_reason"] = c.reason;
    if (c.mode != "high_performance" || c.reason != "default")
      ctx.debug(n->name + " (" + n->type + "): " + c.mode + " [" + c.reason + "]");
    ++ctx.stats.effectTimes;
    changed = true;
  }
  return changed;
}

}  // namespace atc
