// ConvToFullyConnectionFusionPass: a Conv whose kernel covers the whole unpadded input
// (e.g. 1x1 conv on 1x1 maps; group 1, dilation 1, one output position) is a fully connected
// layer: Reshape(x, [N, C*k]) -> Gemm(transB=1, W as [M, C*k], bias) -> Reshape([N, M, 1..]).
// The gemm kernel's pre-packed weights beat the conv kernel's on a single output position.
#include <cstring>
#include <memory>

#include "passes/fusion/fusion_util.h"
#include "passes/pass.h"

namespace atc {

namespace {
Value* shapeConst(Graph& g, const std::string& name, const Shape& s) {
  auto t = std::make_shared<Tensor>(TensorType(DType::I64, {(int64_t)s.size()}));
  t->data.resize(s.size() * 8);
  for (size_t i = 0; i < s.size(); ++i) std::memcpy(t->data.data() + 8 * i, &s[i], 8);
  return g.newConstant(name, t);
}
}  // namespace

bool runConvToFullyConnectionFusionPass(Graph& g, PassContext& ctx) {
  bool changed = false;
  std::vector<Node*> convs;
  for (auto& up : g.nodes())
    if (up->type == "Conv") convs.push_back(up.get());
  for (Node* conv : convs) {
    const TensorType& xt = conv->inputs[0]->type;
    Value* w = conv->inputs[1];
    if (!xt.isStatic() || !w->isConstant() || xt.rank() < 3 || w->type.rank() != xt.rank()) continue;
    bool whole = true;
    for (int64_t i = 2; i < xt.rank(); ++i) whole = whole && w->type.shape[i] == xt.shape[i];
    if (!whole) continue;
    ctx.stats.matchTimes++;
    bool ok = conv->attrInt("group", 1) == 1 && xt.dtype == DType::F32 && w->type.dtype == DType::F32 &&
              conv->attrString("auto_pad", "NOTSET") != "SAME_UPPER" && conv->attrString("auto_pad", "NOTSET") != "SAME_LOWER" &&
              !conv->hasAttr("_epi_act") && !conv->hasAttr("_epi_res") && conv->outputs[0]->type.isStatic();
    for (int64_t v : conv->attrInts("pads", {})) ok = ok && v == 0;
    for (int64_t v : conv->attrInts("dilations", {})) ok = ok && v == 1;
    if (!ok) {
      ctx.debug("Conv " + conv->name + " not made a fully connected layer: needs group 1, float32, no pads/dilation");
      continue;
    }
    const int64_t N = xt.shape[0], M = w->type.shape[0], CK = w->type.numel() / M;
    Value* y = conv->outputs[0];
    std::string nm = conv->name;
    Value* flatShape = shapeConst(g, nm + "_fc_in_shape", {N, CK});
    Value* flat = g.newValue(nm + "_fc_in", TensorType(DType::F32, {N, CK}));
    auto wt = std::make_shared<Tensor>(TensorType(DType::F32, {M, CK}));
    wt->data = w->constant->data;
    Value* w2 = g.newConstant(nm + "_fc_weight", wt);
    Value* gy = g.newValue(nm + "_fc_out", TensorType(DType::F32, {N, M}));
    Value* outShape = shapeConst(g, nm + "_fc_out_shape", y->type.shape);
    std::vector<Value*> gin = {flat, w2};
    if (conv->input(2)) gin.push_back(conv->inputs[2]);
    std::vector<std::string> orig = conv->originalNames.empty() ? std::vector<std::string>{nm} : conv->originalNames;
    Value* x = conv->inputs[0];
    g.removeNode(conv);
    g.addNode("Reshape", g.uniqueNodeName(nm + "_fc_flatten"), {x, flatShape}, {flat});
    Node* gm = g.addNode("Gemm", g.uniqueNodeName(nm + "_fc"), gin, {gy});
    gm->attrs["transB"] = int64_t(1);
    gm->originalNames = orig;
    g.addNode("Reshape", g.uniqueNodeName(nm + "_fc_unflatten"), {gy, outShape}, {y});
    ctx.stats.effectTimes++;
    changed = true;
  }
  return fu::finishRewrite(g, changed);
}

}  // namespace atc
