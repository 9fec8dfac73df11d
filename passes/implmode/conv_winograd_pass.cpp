// ConvWinogradPass: a stride-1 3x3 Conv whose implementation mode is high_performance (the
// default; high_precision keeps the direct convolution) becomes Winograd F(4x4, 3x3):
//   Conv(X, W [, B] [, R]) -> WinogradInput(X) -> WinogradGemm(V, W) -> WinogradOutput(M [, B] [, R])
// (ops/cube/winograd.cpp, kernels/lib/conv_wino.cpp). Runs after UB fusion and the precision
// passes, so the Conv's epilogue (_epi_*), output dtype (_out_dtype) and float16/bfloat16 input
// carry over unchanged. Taken where it pays (docs/kernels-cube.md "Winograd"): 512-bit targets
// (the 6x64 / 8x32 tiles) and 256-bit ones (6 x 16 tiles, 16-channel panels: attribute `panel`),
// group 1, dilation 1, constant weights, C >= 32, OC >= 32 with at most 25% of the last weight
// panel padding, >= 16 tiles per image (a small map reuses the 4x larger transformed weights too
// few times; 48 where the direct conv has bfloat16 dot products), rows of at most WINO_MAX_W.
// ATC_CONV_WINOGRAD=0 / 1 (atc's environment, for measuring) turns it off / on wherever it
// applies, ignoring the size rules.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "kernels/lib/wino_params.h"
#include "ops/cube/conv_amx_lowering.h"
#include "ops/cube/conv_geometry.h"
#include "passes/implmode/conv_winograd.h"
#include "passes/pass.h"
#include "target/target_profile.h"

namespace atc {
namespace {

// Output channels per transformed-weight panel: 64 or 32 on 512-bit targets (the 6x64 and 8x32
// tiles), 16 on 256-bit ones (the 6 x 16 tile of 12 ymm accumulators).
int64_t winoPanel(int64_t OC, const PassContext& ctx) {
  return ctx.target && ctx.target->cubeRows() == 16 ? wino_panel(OC) : 16;
}

// Why n does not take Winograd ("" when it does). operands: also require constant weights
// and a constant float32 bias (off: the rules that read only shapes, dtypes and the target).
std::string winogradRefusal(const Node& n, const PassContext& ctx, bool forced, bool operands = true) {
  if (operands && n.attrString("_impl_mode", "") == "high_precision") return "implementation mode high_precision";
  if (!ctx.target) return "no target";
  const Value* x = n.inputs[0];
  const Value* w = n.inputs[1];
  if (!x->type.isStatic() || x->type.rank() != 4 || (operands && !w->isConstant()) || !w->type.shapeKnown ||
      w->type.rank() != 4)
    return "not 2-D";
  if (w->type.shape[2] != 3 || w->type.shape[3] != 3) return "kernel not 3x3";
  if (n.attrInt("group", 1) != 1) return "grouped";
  const DType xd = x->type.dtype;
  if (xd != DType::F32 && xd != DType::F16 && xd != DType::BF16) return "input dtype";
  if (operands && n.input(2) && (!n.input(2)->isConstant() || n.input(2)->type.dtype != DType::F32)) return "bias";
  WindowGeom g = windowGeometry(n, {x->type.shape[2], x->type.shape[3]}, {3, 3}, false);
  if (g.stride != std::vector<int64_t>{1, 1} || g.dil != std::vector<int64_t>{1, 1}) return "strided or dilated";
  if (g.in[1] > WINO_MAX_W || g.out[1] > WINO_MAX_W) return "rows wider than " + std::to_string(WINO_MAX_W);
  for (int i = 0; i < 2; ++i)
    if (g.padBegin[i] < 0 || g.padEnd[i] < 0) return "negative pads";
  if (forced) return "";
  const int64_t C = x->type.shape[1], OC = w->type.shape[0], NR = winoPanel(OC, ctx), OCP = (OC + NR - 1) / NR * NR;
  if (C < 32) return "fewer than 32 input channels";
  if (OC < 32 || OC * 4 < OCP * 3) return "output channels pad the weight panels";
  const int64_t tiles = ((g.out[0] + 3) / 4) * ((g.out[1] + 3) / 4);
  if (tiles < 16) return "fewer than 16 tiles";
  // bfloat16 X and weights on an AMX target: the direct conv runs on the tiles (conv_amx.h), far
  // above Winograd's float32 product.
  if (ctx.target->bf16Amx() && xd == DType::BF16 && w->type.dtype == DType::BF16 && convAmxForm(OC, C, 9, true))
    return "bfloat16 on AMX tiles (the direct conv is faster)";
  if (ctx.target->bf16Amx() && xd == DType::F16 && w->type.dtype == DType::F16 && convAmxForm(OC, C, 9, true))
    return "float16 on AMX tiles (the direct conv is faster)";
  // bfloat16 X and weights on a target with vdpbf16ps: the direct conv runs at twice the float32
  // rate, and Winograd's float32 product only pays on large maps (ResNet-50, 1 thread, Zen 5:
  // 56x56 0.50 -> 0.43 ms, 28x28 0.49 -> 0.41, 14x14 0.52 -> 0.72).
  if (ctx.target->bf16Dot() && xd == DType::BF16 && w->type.dtype == DType::BF16 && tiles < 48)
    return "fewer than 48 tiles (the bfloat16 dot-product direct conv is faster)";
  return "";
}

}  // namespace

bool convWouldTakeWinograd(const Node& conv, const PassContext& ctx) {
  const char* env = std::getenv("ATC_CONV_WINOGRAD");
  if (env && std::string(env) == "0") return false;
  const auto& off = ctx.opts.disabledPasses;
  if (std::find(off.begin(), off.end(), "ConvWinogradPass") != off.end()) return false;
  return winogradRefusal(conv, ctx, env && std::string(env) == "1", false).empty();
}

bool runConvWinogradPass(Graph& g, PassContext& ctx) {
  const char* env = std::getenv("ATC_CONV_WINOGRAD");
  if (env && std::string(env) == "0") return false;
  const bool forced = env && std::string(env) == "1";
  std::vector<Node*> convs;
  for (auto& up : g.nodes())
    if (up->type == "Conv" && up->inputs.size() >= 2 && up->inputs[0] && up->inputs[1]) convs.push_back(up.get());
  bool changed = false;
  for (Node* n : convs) {
    ctx.stats.matchTimes++;
    const std::string why = winogradRefusal(*n, ctx, forced);
    if (!why.empty()) {
      ctx.debug("Conv " + n->name + " keeps the direct convolution: " + why);
      n->attrs["_conv_algo"] = "direct (Winograd: " + why + ")";
      continue;
    }
    Value* x = n->inputs[0];
    WindowGeom wg = windowGeometry(*n, {x->type.shape[2], x->type.shape[3]}, {3, 3}, false);
    const int64_t N = x->type.shape[0], C = x->type.shape[1], OC = n->inputs[1]->type.shape[0];
    const int64_t T = N * ((wg.out[0] + 3) / 4) * ((wg.out[1] + 3) / 4);
    Value* y = n->outputs[0];
    const std::string base = n->name;
    Value* v = g.newValue(base + "_wino_v");
    Node* in = g.addNode("WinogradInput", g.uniqueNodeName(base + "_wino_in"), {x}, {v});
    in->attrs["pads"] = std::vector<int64_t>{wg.padBegin[0], wg.padBegin[1], wg.padEnd[0], wg.padEnd[1]};
    Value* m = g.newValue(base + "_wino_m");
    Node* mm = g.addNode("WinogradGemm", g.uniqueNodeName(base + "_wino_gemm"), {v, n->inputs[1]}, {m});
    mm->attrs["tiles"] = T;
    const int64_t panel = winoPanel(OC, ctx);
    if (panel != wino_panel(OC)) mm->attrs["panel"] = panel;
    std::vector<Value*> outs = {m, n->input(2)};
    const bool res = n->hasAttr("_epi_res");
    if (res) outs.push_back(n->inputs[n->attrInt("_epi_res", 3)]);
    while (!outs.empty() && !outs.back()) outs.pop_back();
    Node* out = g.addNode("WinogradOutput", g.uniqueNodeName(base + "_wino_out"), outs, {});
    out->attrs["y_shape"] = std::vector<int64_t>{N, OC, wg.out[0], wg.out[1]};
    if (mm->hasAttr("panel")) out->attrs["panel"] = mm->attrs.at("panel");
    for (const char* k : {"_epi_act", "_epi_alpha", "_epi_beta", "_out_dtype", "_store_rounding", "_impl_mode",
                          "_impl_mode_reason", "_dtype_in", "_dtype_out", "_precision_reason", "_quant_decision"})
      if (n->hasAttr(k)) out->attrs[k] = n->attrs.at(k);
    if (res) out->attrs["_epi_res"] = int64_t(2);
    out->attrs["_conv_algo"] = std::string("winograd F(4x4,3x3), ") + std::to_string(T) + " tiles";
    out->originalNames = n->originalNames.empty() ? std::vector<std::string>{n->name} : n->originalNames;
    // The transforms' outputs (V, M) are no framework tensors: dumps and atc-compare map only the
    // output op to the Conv (and what its epilogue absorbed).
    g.removeNode(n);
    out->outputs.push_back(y);
    y->producer = out;
    y->producerIndex = 0;
    inferNode(g, *in);
    inferNode(g, *mm);
    inferNode(g, *out);
    ctx.debug("Conv " + base + " -> Winograd F(4x4, 3x3): " + std::to_string(T) + " tiles, " + std::to_string(C) +
              " -> " + std::to_string(OC) + " channels");
    ctx.stats.effectTimes++;
    changed = true;
  }
  if (changed) {
    g.topoSort();
    g.pruneValues();
  }
  return changed;
}

}  // namespace atc
