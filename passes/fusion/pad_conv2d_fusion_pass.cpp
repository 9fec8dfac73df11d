// PadConv2dFusionPass: Pad(x, constant mode, value 0, spatial pads only) -> Conv(auto_pad
// NOTSET) becomes Conv with the pads added to its own (the conv kernel pads in its loads).
#include "passes/fusion/fusion_util.h"
#include "passes/pass.h"

namespace atc {

bool runPadConv2dFusionPass(Graph& g, PassContext& ctx) {
  bool changed = false;
  std::vector<Node*> pads;
  for (auto& up : g.nodes())
    if (up->type == "Pad") pads.push_back(up.get());
  for (Node* pad : pads) {
    Node* conv = fu::soleUser(g, pad->outputs[0]);
    if (!conv || conv->type != "Conv" || conv->inputs[0] != pad->outputs[0]) continue;
    ctx.stats.matchTimes++;
    auto reject = [&](const std::string& why) { ctx.debug("Pad " + pad->name + " + Conv " + conv->name + " not fused: " + why); };
    std::vector<int64_t> p;
    if (pad->hasAttr("pads")) p = pad->attrInts("pads");
    else if (pad->input(1) && pad->input(1)->isConstant()) p = pad->input(1)->constant->toInts();
    double val = 0.0;
    bool valOk = true;
    if (pad->hasAttr("value")) val = pad->attrFloat("value", 0.0);
    if (pad->input(2)) valOk = fu::scalarConst(pad->input(2), &val);
    const int64_t r = pad->inputs[0]->type.rank();
    if (pad->attrString("mode", "constant") != "constant" || !valOk || val != 0.0 || pad->input(3) ||
        (int64_t)p.size() != 2 * r || r < 3) {
      reject("needs constant-mode zero padding with known pads over all axes");
      continue;
    }
    bool ok = p[0] == 0 && p[1] == 0 && p[r] == 0 && p[r + 1] == 0;
    for (int64_t v : p) ok = ok && v >= 0;
    std::string ap = conv->attrString("auto_pad", "NOTSET");
    if (!ok || ap != "NOTSET") {
      reject("pads the batch/channel axes, is negative, or the Conv uses auto_pad");
      continue;
    }
    const int64_t sp = r - 2;
    std::vector<int64_t> cp = conv->attrInts("pads", std::vector<int64_t>(2 * sp, 0));
    if ((int64_t)cp.size() != 2 * sp) {
      reject("Conv pads have the wrong length");
      continue;
    }
    for (int64_t i = 0; i < sp; ++i) {
      cp[i] += p[2 + i];
      cp[sp + i] += p[r + 2 + i];
    }
    conv->attrs["pads"] = cp;
    conv->inputs[0] = pad->inputs[0];
    std::vector<std::string> names = {pad->name};
    for (auto& n : conv->originalNames.empty() ? std::vector<std::string>{conv->name} : conv->originalNames)
      names.push_back(n);
    conv->originalNames = names;
    g.removeNode(pad);
    ctx.stats.effectTimes++;
    changed = true;
  }
  if (changed) g.pruneValues();
  return changed;
}

}  // namespace atc
