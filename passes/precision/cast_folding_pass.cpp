// CastFoldingPass (after PrecisionPass): folds Casts into the loads and stores of the cube
// kernels (Conv, MatMul, Gemm), which read float32/float16/bfloat16 operands (converted in
// the im2col / pack load) and write float32/float16/bfloat16 results (fp32 accumulation and
// epilogue, then round to nearest even on the store, atck_f2h / atck_f2bf), and into the
// stores of float32 element-wise ops (the eltwise kernel computes in float32 and rounds on its
// store the same way):
//   cube op / float32 element-wise op -> Cast(to float16/bfloat16)  => the op writes the Cast's
//        dtype (_out_dtype) when the Cast is the only reader of the float32 result (a
//        pre-activation network's BatchNorm -> Relu -> Cast -> Conv: one pass over the maps
//        instead of two);
//   Cast(float16/bfloat16 -> float32) -> cube op input (Conv X; MatMul/Gemm A and B)
//        => the cube op reads the Cast's source (the Cast stays while it has other readers).
// (A Cast(f32 -> f16/bf16) feeding only a Relu first moves after it: exact, see step 0.)
// Both rewrites give bit-identical results (the kernel rounds exactly like the Cast kernel;
// widening to float32 is exact). A dtype the target's op-info does not list for the slot is
// not folded. docs/precision.md.
#include <algorithm>
#include <set>

#include "ir/op_registry.h"
#include "ops/elementwise/unary_table.h"
#include "passes/pass.h"

namespace atc {
namespace {

using json = nlohmann::json;

bool isCube(const Node& n) { return n.type == "Conv" || n.type == "MatMul" || n.type == "Gemm"; }

// Element-wise ops on float32 inputs whose lowering writes _out_dtype (unary.cpp, binary.cpp):
// float-valued unary ops and the arithmetic binary ones.
bool isFloatEltwise(const Node& n) {
  static const std::set<std::string> binary = {"Add", "Sub", "Mul", "Div", "PRelu"};
  const UnaryOpRow* u = findUnaryOp(n.type);
  if (!(u && !u->boolOut) && !binary.count(n.type)) return false;
  for (const Value* v : n.inputs)
    if (!v || v->type.dtype != DType::F32) return false;
  return true;
}

DType castTo(const Node& c) {
  DType d = dtypeFromOnnxCode(c.attrInt("to", 0));
  return d == DType::F32 || d == DType::F16 || d == DType::BF16 ? d : DType::Undefined;
}

// Whether the op-info lists dtype t for input/output slot i of op type `type` (true when the
// profile does not list the op: the kernels accept it).
bool opInfoAllows(const json& info, const std::string& type, const char* key, size_t i, DType t) {
  if (!info.is_object() || !info.contains(type)) return true;
  const json& op = info[type];
  if (!op.contains(key) || !op[key].is_array() || op[key].empty()) return true;
  const json& arr = op[key];
  const json& slot = arr[std::min(i, arr.size() - 1)];
  for (auto& d : slot.value("dtype", json::array()))
    if (d.is_string() && d.get<std::string>() == dtypeName(t)) return true;
  return false;
}

}  // namespace

bool runCastFoldingPass(Graph& g, PassContext& ctx) {
  json info = json::object();
  if (ctx.target) info = ctx.target->opInfo;
  bool changed = false;
  std::vector<Node*> casts;
  for (auto& n : g.nodes())
    if (n->type == "Cast" && !n->inputs.empty() && n->inputs[0] && !n->outputs.empty()) casts.push_back(n.get());
  std::set<Node*> removed;
  // 0. Cast(f32 -> f16/bf16) -> Relu => Relu -> Cast where the Cast's source cannot round on its own
  //    store (an op that stays float32: InstanceNormalization...): rounding is monotonic and keeps signs and
  //    zero, so relu(round(x)) == round(relu(x)) bit for bit; the Cast then folds into the Relu's
  //    store below (InstanceNorm -> Cast -> Relu -> Conv in a float16 build: one pass, not two).
  for (Node* c : casts) {
    Value* src = c->inputs[0];
    Value* h = c->outputs[0];
    const DType to = castTo(*c);
    if (src->type.dtype != DType::F32 || (to != DType::F16 && to != DType::BF16) || g.isGraphOutput(h)) continue;
    // A producer that can round on its own store keeps the Cast (rule 1 below): the Relu then
    // runs on the narrow values.
    if (src->producer && (isCube(*src->producer) || isFloatEltwise(*src->producer))) continue;
    const std::vector<Node*> us = g.users(h);
    if (us.size() != 1 || us[0]->type != "Relu" || us[0]->inputs.size() != 1) continue;
    Node* r = us[0];
    Value* y = r->outputs[0];
    // Relu now reads the float32 value into a new float32 result; the Cast rounds that into y.
    Value* rf = g.newValue(y->name + "_f32", src->type);
    r->inputs[0] = src;
    r->outputs[0] = rf;
    rf->producer = r;
    rf->producerIndex = 0;
    r->attrs.erase("_out_dtype");
    if (r->hasAttr("_dtype_in")) r->attrs["_dtype_in"] = std::string("float32");
    c->inputs[0] = rf;
    c->outputs[0] = y;
    y->producer = c;
    y->producerIndex = 0;
    h->producer = nullptr;
    inferNode(g, *r);
    inferNode(g, *c);
    ctx.debug("Cast " + c->name + " moved after " + r->name);
    changed = true;
  }
  // 1. cube op -> Cast(to f16/bf16): round on the cube op's store.
  for (Node* c : casts) {
    Value* t = c->inputs[0];
    Value* y = c->outputs[0];
    Node* p = t->producer;
    DType to = castTo(*c);
    if (!p || !(isCube(*p) || isFloatEltwise(*p)) || t->type.dtype != DType::F32 || (to != DType::F16 && to != DType::BF16))
      continue;
    if (p->outputs.empty() || p->outputs[0] != t) continue;
    ctx.stats.matchTimes++;
    if (g.isGraphOutput(t) || g.users(t).size() != 1) {
      ctx.debug("Cast " + c->name + " not folded into " + p->name + ": the float32 result has other readers");
      continue;
    }
    if (!opInfoAllows(info, p->type, "outputs", 0, to)) {
      ctx.debug("Cast " + c->name + " not folded into " + p->name + ": the op-info has no " + dtypeName(to) + " output");
      continue;
    }
    const std::string cname = c->name;
    g.removeNode(c);  // c is deleted here
    removed.insert(c);
    p->outputs[0] = y;
    y->producer = p;
    y->producerIndex = 0;
    p->attrs["_out_dtype"] = (int64_t)to;
    p->attrs["_store_rounding"] = std::string(isCube(*p) ? "float32 accumulation" : "float32 result") + " rounded to " + dtypeName(to) + " on store (folded " +
                                  cname + ")";
    inferNode(g, *p);
    ctx.debug("Cast " + cname + " folded into the store of " + p->name);
    ctx.stats.effectTimes++;
    changed = true;
  }
  // 2. Cast(f16/bf16 -> f32) -> cube op: the cube op converts on load.
  for (Node* c : casts) {
    if (removed.count(c)) continue;
    Value* src = c->inputs[0];
    Value* y = c->outputs[0];
    DType sd = src->type.dtype;
    if (castTo(*c) != DType::F32 || (sd != DType::F16 && sd != DType::BF16)) continue;
    for (Node* p : g.users(y)) {
      if (!isCube(*p)) continue;
      for (size_t i = 0; i < p->inputs.size() && i < 2; ++i) {
        if (p->inputs[i] != y) continue;
        if (p->type == "Conv" && i == 1) continue;  // Conv weights: float16/bfloat16 only as constants
        ctx.stats.matchTimes++;
        if (!opInfoAllows(info, p->type, "inputs", i, sd)) {
          ctx.debug("Cast " + c->name + " not folded into " + p->name + ": the op-info has no " + dtypeName(sd) + " input");
          continue;
        }
        p->attrs["_out_dtype"] = (int64_t)p->outputs[0]->type.dtype;  // the output keeps its dtype
        p->inputs[i] = src;
        ctx.debug("Cast " + c->name + " folded into the load of " + p->name + " input " + std::to_string(i));
        ctx.stats.effectTimes++;
        changed = true;
      }
    }
    if (!g.isGraphOutput(y) && g.users(y).empty()) {
      g.removeNode(c);
      removed.insert(c);
    }
  }
  if (changed) g.topoSort();
  return changed;
}

}  // namespace atc
