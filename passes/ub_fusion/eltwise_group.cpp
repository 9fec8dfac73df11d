#include "passes/ub_fusion/eltwise_group.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "ir/op_registry.h"
#include "ops/elementwise/unary_table.h"
#include "ops/impl_variant.h"

namespace atc {

int64_t appendGelu(FeProgram& p, int64_t x, bool tanhForm);  // ops/fused/gelu.cpp

namespace {

// The unary ops a fused group takes (codes and params: ops/elementwise/unary_table.h; Clip
// and Gelu are special-cased).
const std::set<std::string>& unaryOps() {
  static const std::set<std::string> s = {"Relu",       "Sigmoid", "Tanh",      "Erf",        "Exp",       "Log",
                                          "Sqrt",       "Reciprocal", "Neg",   "Abs",        "LeakyRelu", "Elu",
                                          "HardSigmoid", "HardSwish", "Clip",  "Gelu"};
  return s;
}
const std::map<std::string, int64_t>& binaryCodes() {
  static const std::map<std::string, int64_t> m = {
      {"Add", ATCK_E_ADD}, {"Sub", ATCK_E_SUB}, {"Mul", ATCK_E_MUL}, {"Div", ATCK_E_DIV},
      {"Pow", ATCK_E_POW}, {"Max", ATCK_E_MAX}, {"Min", ATCK_E_MIN}};
  return m;
}

bool isScalarConst(const Value* v) {
  return v && v->isConstant() && v->type.isStatic() && v->type.numel() == 1 && isFloat(v->type.dtype);
}

bool clipBounds(const Node& n, double* lo, double* hi) {
  *lo = -std::numeric_limits<double>::infinity();
  *hi = std::numeric_limits<double>::infinity();
  if (n.hasAttr("min")) *lo = n.attrFloat("min", *lo);
  if (n.hasAttr("max")) *hi = n.attrFloat("max", *hi);
  for (size_t i = 1; i < 3; ++i) {
    Value* v = n.input(i);
    if (!v) continue;
    if (!isScalarConst(v)) return false;
    (i == 1 ? *lo : *hi) = v->constant->floatAt(0);
  }
  return true;
}

}  // namespace

bool eltwiseFusible(const Node& n) {
  if (n.type == "FusedEltwise") return true;
  if (implKeepsOwnKernel(n)) return false;  // docs/implmode.md
  bool un = unaryOps().count(n.type), bin = binaryCodes().count(n.type);
  if (!un && !bin) return false;
  if (n.outputs.size() != 1 || n.outputs[0]->type.dtype != DType::F32 || !n.outputs[0]->type.isStatic())
    return false;
  // A value whose shape depends on data: its readers run as "eltwise_ds" steps (backend/lowering.cpp).
  if (n.outputs[0]->shapeFromData) return false;
  if (bin && n.inputs.size() != 2) return false;
  if (un && n.type != "Clip" && n.inputs.size() != 1) return false;
  for (auto* v : n.inputs) {
    if (!v) continue;
    if (!v->type.isStatic() || (v->type.dtype != DType::F32 && !isScalarConst(v))) return false;
  }
  if (n.type == "Clip") {
    double lo, hi;
    if (!clipBounds(n, &lo, &hi)) return false;
  }
  return true;
}

int64_t eltwiseOpCost(const Node& n) {
  if (n.type == "FusedEltwise") return (int64_t)n.attrInts("program").size() / 4;
  if (n.type == "Gelu") return 12;
  int64_t c = 1;
  for (auto* v : n.inputs)
    if (isScalarConst(v)) ++c;
  return c;
}

bool emitEltwiseNode(const Node& n, FeProgram& p, std::map<const Value*, int64_t>& regOf) {
  auto reg = [&](const Value* v) -> int64_t {
    auto it = regOf.find(v);
    if (it != regOf.end()) return it->second;
    if (isScalarConst(v)) return p.constant(v->constant->floatAt(0));
    return -1;
  };
  int64_t r = -1;
  if (n.type == "FusedEltwise") {
    FeProgram sub = loadFeProgram(n);
    std::vector<int64_t> map((size_t)sub.nextReg(), -1);
    for (int64_t k = 0; k < sub.nin; ++k)
      if ((map[k] = reg(n.inputs[k])) < 0) return false;
    for (auto& o : sub.ops)
      map[o.dst] = p.add(o.code, map[o.a], o.b < 0 ? -1 : map[o.b], o.alpha, o.beta);
    r = map[sub.outReg];
  } else if (n.type == "Gelu") {
    int64_t x = reg(n.inputs[0]);
    if (x < 0) return false;
    r = appendGelu(p, x, n.attrString("approximate", "none") == "tanh");
  } else if (n.type == "Clip") {
    double lo, hi;
    int64_t x = reg(n.inputs[0]);
    if (x < 0 || !clipBounds(n, &lo, &hi)) return false;
    r = p.add(ATCK_E_CLIP, x, -1, lo, hi);
  } else if (unaryOps().count(n.type)) {
    const UnaryOpRow* row = findUnaryOp(n.type);
    int64_t x = reg(n.inputs[0]);
    if (x < 0 || !row) return false;
    double a = 0, b = 0;
    unaryAlphaBeta(*row, n, &a, &b);
    r = p.add(row->code, x, -1, a, b);
  } else if (binaryCodes().count(n.type)) {
    int64_t code = binaryCodes().at(n.type);
    if (code == ATCK_E_POW && isScalarConst(n.inputs[1])) {
      double e = n.inputs[1]->constant->floatAt(0);
      int64_t x = reg(n.inputs[0]);
      if (x < 0) return false;
      if (e == 2.0) r = p.add(ATCK_E_MUL, x, x);
      else if (e == 1.0) r = p.add(ATCK_E_COPY, x);
      else if (e == 0.5) r = p.add(ATCK_E_SQRT, x);
      else r = p.add(ATCK_E_POW, x, p.constant(e));
    } else {
      int64_t a = reg(n.inputs[0]), b = reg(n.inputs[1]);
      if (a < 0 || b < 0) return false;
      r = p.add(code, a, b);
    }
  } else {
    return false;
  }
  regOf[n.outputs[0]] = r;
  p.outReg = r;
  return true;
}

// The fused node's inputs: every value read from outside the group, except one-element
// constants, which become program constants. The fused node's output shape is the broadcast
// of its inputs, so a one-element constant of a higher rank than every other input (c[1,1]
// in Neg(x[]) - c) stays an input: embedding it would lose the rank it adds.
std::vector<Value*> groupInputs(const std::vector<Node*>& members) {
  std::set<const Value*> inside;
  for (auto* m : members) inside.insert(m->outputs[0]);
  std::vector<Value*> ins, scalars;
  for (auto* m : members)
    for (auto* v : m->inputs) {
      if (!v || inside.count(v)) continue;
      auto& list = isScalarConst(v) ? scalars : ins;
      if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
    }
  int64_t maxRank = 0;
  for (auto* v : ins) maxRank = std::max<int64_t>(maxRank, v->type.rank());
  for (auto* v : scalars)
    if (v->type.rank() > maxRank) ins.push_back(v);
  return ins;
}

// Adds the FusedEltwise node that replaces `members` (which the caller removes, all groups
// at once: one removal per member would make the pass quadratic in the graph size).
Node* buildFusedEltwise(Graph& g, const std::vector<Node*>& members) {
  std::vector<Value*> ins = groupInputs(members);
  for (auto* v : ins)  // the kernel reads float32 inputs (a kept one-element constant may be another dtype)
    if (v->type.dtype != DType::F32) return nullptr;
  FeProgram p;
  p.nin = (int64_t)ins.size();
  std::map<const Value*, int64_t> regOf;
  for (size_t k = 0; k < ins.size(); ++k) regOf[ins[k]] = (int64_t)k;
  std::vector<std::string> types, names;
  for (auto* m : members) {
    if (!emitEltwiseNode(*m, p, regOf)) return nullptr;
    if (m->type == "FusedEltwise") {
      auto t = m->attrs.count("fused_ops") ? std::get<std::vector<std::string>>(m->attrs.at("fused_ops"))
                                           : std::vector<std::string>{};
      types.insert(types.end(), t.begin(), t.end());
    } else {
      types.push_back(m->type);
    }
    if (m->originalNames.empty()) names.push_back(m->name);
    else names.insert(names.end(), m->originalNames.begin(), m->originalNames.end());
  }
  Node* root = members.back();
  Value* out = root->outputs[0];
  std::string name = root->name;
  Node* f = g.addNode("FusedEltwise", g.uniqueNodeName(name), ins, {out});
  storeFeProgram(*f, p);
  f->attrs["fused_ops"] = types;
  f->originalNames = names;
  return f;
}

bool runEltwiseGrouping(Graph& g, PassContext& ctx, bool chainsOnly) {
  // Group id per node; members in topological order; the group's root is its last member.
  std::map<Node*, int> groupOf;
  std::vector<std::vector<Node*>> groups;
  std::vector<int> mergedProducers;
  const std::map<const Value*, int> userCount = g.userCounts();  // the graph is not changed until the end
  for (auto& up : g.nodes()) {
    Node* x = up.get();
    if (!eltwiseFusible(*x)) continue;
    int gid = (int)groups.size();
    groups.push_back({});
    mergedProducers.push_back(0);
    groupOf[x] = gid;
    std::vector<Node*> members;
    for (auto* v : x->inputs) {
      if (!v || !v->producer || !groupOf.count(v->producer)) continue;
      Node* p = v->producer;
      int pg = groupOf[p];
      if (pg == gid || groups[pg].empty() || groups[pg].back() != p) continue;
      auto uc = userCount.find(v);  // x reads v, so one user means x alone
      bool onlyX = !g.isGraphOutput(v) && uc != userCount.end() && uc->second == 1;
      if (!onlyX) {
        ctx.debug("node " + p->name + " not fused into " + x->name + ": its output has other users");
        continue;
      }
      if (chainsOnly && mergedProducers[gid] > 0) {
        ctx.debug("node " + p->name + " not fused into " + x->name + ": not a chain (left to AutomaticUbFusion)");
        continue;
      }
      // Size limits of the fused kernel.
      std::vector<Node*> trial = groups[pg];
      trial.insert(trial.end(), members.begin(), members.end());
      trial.push_back(x);
      int64_t cost = 0;
      for (auto* m : trial) cost += eltwiseOpCost(*m);
      int64_t nin = (int64_t)groupInputs(trial).size();
      if (nin > FE_MAX_IN || nin + cost > FE_MAX_REG) {
        ctx.debug("node " + p->name + " not fused into " + x->name + ": the fused kernel would exceed its size limits");
        continue;
      }
      members.insert(members.end(), groups[pg].begin(), groups[pg].end());
      for (auto* m : groups[pg]) groupOf[m] = gid;
      groups[pg].clear();
      mergedProducers[gid]++;
    }
    members.push_back(x);
    // Keep topological order of the merged members (their relative node-list order).
    groups[gid] = members;
  }
  bool changed = false;
  std::vector<std::vector<Node*>> todo;
  for (auto& grp : groups)
    if (grp.size() >= 2) todo.push_back(grp);
  // Members sorted by node-list position.
  std::map<Node*, size_t> pos;
  size_t i = 0;
  for (auto& up : g.nodes()) pos[up.get()] = i++;
  std::set<Node*> fusedAway;
  for (auto& grp : todo) {
    std::sort(grp.begin(), grp.end(), [&](Node* a, Node* b) { return pos[a] < pos[b]; });
    ctx.stats.matchTimes++;
    Node* f = buildFusedEltwise(g, grp);
    if (!f) {
      ctx.debug("group at " + grp.back()->name + " not fused: a member cannot be expressed");
      continue;
    }
    fusedAway.insert(grp.begin(), grp.end());
    f->attrs["_ub_pass"] = ctx.passName;  // repository_hit_times (atc/fusion_result.h)
    ctx.stats.effectTimes++;
    changed = true;
  }
  g.removeNodes(fusedAway);
  if (changed) g.topoSort();
  return changed;
}

}  // namespace atc
