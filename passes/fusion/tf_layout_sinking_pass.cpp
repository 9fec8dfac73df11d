// TfLayoutSinkingPass: layout transfer sinking on an imported TF graph (on for every TF
// model; the TF frontend converts channels-last ops with a Transpose on each side).
// Channels-last TF ops that map to channels-first IR ops (Conv, pools, BatchNormalization,
// Resize) are converted with a Transpose on each side; between two such layers TF graphs
// put layout-free element-wise ops (BiasAdd, Relu, Relu6, activations, per-channel or scalar
// Add/Mul/Sub...). This moves the channels-last Transposes below those ops (per-channel
// constants become [C,1,..] constants) and cancels the Transpose(to channels-first) of a
// Transpose(to channels-last), so that consecutive layers stay channels-first and the graph
// converts at its boundaries only. Runs after the scope passes (which match TF's
// channels-last arithmetic) and before constant folding.
#include "passes/pass.h"

#include <set>

#include "ir/op_registry.h"

namespace atc {
namespace {

std::vector<int64_t> toLastPerm(int64_t r) {
  std::vector<int64_t> p = {0};
  for (int64_t k = 2; k < r; ++k) p.push_back(k);
  p.push_back(1);
  return p;
}
std::vector<int64_t> toFirstPerm(int64_t r) {
  std::vector<int64_t> p = {0, r - 1};
  for (int64_t k = 1; k < r - 1; ++k) p.push_back(k);
  return p;
}

// v = Transpose(y, channels-first -> channels-last) of rank 4 or 5: returns the rank, else 0.
int64_t toLastRank(const Value* v) {
  const Node* t = v ? v->producer : nullptr;
  if (!t || t->type != "Transpose" || !t->inputs[0]->type.shapeKnown) return 0;
  int64_t r = t->inputs[0]->type.rank();
  if ((r != 4 && r != 5) || t->attrInts("perm") != toLastPerm(r)) return 0;
  return r;
}

// Element-wise ops whose result does not depend on the layout (extra inputs: scalar constants).
bool isLayoutFreeUnary(const std::string& t) {
  static const std::set<std::string> ops = {"Relu",     "Clip",     "Sigmoid", "Tanh",        "Elu",   "Selu",
                                            "LeakyRelu", "Softplus", "Softsign", "Abs",        "Neg",   "Exp",
                                            "Log",      "Sqrt",     "Reciprocal", "Erf",       "Identity", "Cast",
                                            "Gelu",     "HardSigmoid", "Floor",  "Ceil",       "Round", "Sign"};
  return ops.count(t) != 0;
}
bool isLayoutFreeBinary(const std::string& t) {
  return t == "Add" || t == "Sub" || t == "Mul" || t == "Div" || t == "Max" || t == "Min" || t == "Pow";
}

bool isScalarConst(const Value* v) { return v && v->isConstant() && v->constant->type.numel() == 1; }

// A constant that broadcasts against a channels-last tensor of rank r with c channels per
// channel or as one value: its channels-first twin ([c, 1, ...] or itself), else null.
Value* channelsFirstConst(Graph& g, Value* v, int64_t r, int64_t c) {
  if (!v || !v->isConstant() || !v->constant->type.shapeKnown) return nullptr;
  const Shape& s = v->constant->type.shape;
  if ((int64_t)s.size() > r) return nullptr;
  if (v->constant->type.numel() == 1) return v;
  for (size_t k = 0; k + 1 < s.size(); ++k)
    if (s[k] != 1) return nullptr;
  if (s.empty() || s.back() != c) return nullptr;
  auto t = std::make_shared<Tensor>(*v->constant);
  t->type.shape = Shape(r - 1, 1);
  t->type.shape[0] = c;
  return g.newConstant(v->name + "/nchw", t);
}

// Moves the channels-last Transposes feeding node u below it: u then reads channels-first data
// and one Transpose after it gives the old (channels-last) value. Returns true if done.
bool sinkThrough(Graph& g, Node* u) {
  if (u->outputs.size() != 1) return false;
  bool unary = isLayoutFreeUnary(u->type), binary = isLayoutFreeBinary(u->type);
  if (!unary && !binary) return false;
  int64_t r = 0;
  for (Value* in : u->inputs)
    if (int64_t k = toLastRank(in)) r = r ? (r == k ? r : -1) : k;
  if (r <= 0) return false;
  Value* old = u->outputs[0];
  if (!old->type.shapeKnown || old->type.rank() != r) return false;
  int64_t c = old->type.shape[r - 1];
  std::vector<Value*> ins = u->inputs;
  for (size_t i = 0; i < ins.size(); ++i) {
    Value* in = ins[i];
    if (!in) continue;
    if (toLastRank(in) == r) {
      if (in->type.rank() != r) return false;
      ins[i] = in->producer->inputs[0];
    } else if (unary) {
      if (i == 0 || !isScalarConst(in)) return false;
    } else {
      Value* cf = channelsFirstConst(g, in, r, c);
      if (!cf) return false;
      ins[i] = cf;
    }
  }
  Value* nv = g.newValue(old->name + "/nchw");
  u->inputs = ins;
  u->outputs[0] = nv;
  nv->producer = u;
  nv->producerIndex = 0;
  old->producer = nullptr;
  inferNode(g, *u);
  Node* t = g.addNode("Transpose", g.uniqueNodeName(u->name + "/to_nhwc"), {nv}, {old});
  t->attrs["perm"] = toLastPerm(r);
  t->originalNames = u->originalNames;
  inferNode(g, *t);
  return true;
}

// Transpose(to channels-first) of Transpose(to channels-last) y: its users read y.
bool cancelPair(Graph& g, Node* u) {
  if (u->type != "Transpose" || g.isGraphOutput(u->outputs[0])) return false;
  int64_t r = toLastRank(u->inputs[0]);
  if (!r || u->attrInts("perm") != toFirstPerm(r)) return false;
  g.replaceAllUses(u->outputs[0], u->inputs[0]->producer->inputs[0]);
  g.removeNode(u);
  return true;
}

}  // namespace

// Returns the number of rewrites (sunk ops + cancelled pairs).
int sinkLayoutTransposes(Graph& g) {
  int changes = 0;
  for (bool again = true; again;) {
    again = false;
    std::vector<Node*> nodes;
    for (auto& n : g.nodes()) nodes.push_back(n.get());
    std::set<Node*> gone;
    for (Node* n : nodes) {
      if (gone.count(n)) continue;
      if (n->type == "Transpose") {
        if (cancelPair(g, n)) {
          gone.insert(n);
          again = true;
          ++changes;
        }
      } else if (sinkThrough(g, n)) {
        again = true;
        ++changes;
      }
    }
    // Transposes nobody reads any more.
    for (bool dead = true; dead;) {
      dead = false;
      for (auto& n : g.nodes())
        if (n->type == "Transpose" && !g.isGraphOutput(n->outputs[0]) && g.users(n->outputs[0]).empty()) {
          g.removeNode(n.get());
          dead = true;
          break;
        }
    }
    if (again) g.topoSort();
  }
  return changes;
}

bool runTfLayoutSinkingPass(Graph& g, PassContext& ctx) {
  int n = sinkLayoutTransposes(g);
  ctx.stats.matchTimes += n;
  ctx.stats.effectTimes += n;
  if (n) ctx.info(std::to_string(n) + " layout transfer rewrite(s) (Transposes sunk or cancelled)");
  return n > 0;
}

}  // namespace atc
