// Small matching helpers shared by the graph-fusion passes.
#pragma once
#include <algorithm>
#include <cmath>
#include <set>
#include <vector>
#include <string>

#include "ir/graph.h"

namespace atc {
namespace fu {

// The producer of v if it has type `type`.
inline Node* producerOf(const Value* v, const char* type) {
  return v && v->producer && v->producer->type == type ? v->producer : nullptr;
}
// The only user of v (nullptr when v has several users or is a graph output).
inline Node* soleUser(const Graph& g, const Value* v) {
  if (!v || g.isGraphOutput(v)) return nullptr;
  auto us = g.users(v);
  return us.size() == 1 ? us[0] : nullptr;
}
// A Transpose's permutation; ONNX's default (reverse the dims) when "perm" is absent.
inline std::vector<int64_t> transposePerm(const Node* t) {
  std::vector<int64_t> p = t->attrInts("perm");
  if (p.empty()) {
    int64_t r = t->inputs[0]->type.rank();
    for (int64_t i = 0; i < r; ++i) p.push_back(r - 1 - i);
  }
  return p;
}
// The nodes satisfying pred, in node-list order (a stable list to rewrite while iterating).
template <class Pred>
std::vector<Node*> nodesWhere(Graph& g, Pred pred) {
  std::vector<Node*> r;
  for (auto& up : g.nodes())
    if (pred(*up)) r.push_back(up.get());
  return r;
}
// The end of a rewriting pass: after a change, re-sort the nodes and drop dead values.
inline bool finishRewrite(Graph& g, bool changed) {
  if (changed) {
    g.topoSort();
    g.pruneValues();
  }
  return changed;
}
// Replaces `nodes` (removed; each also added to *removed) by one new node of `type` named
// uniquely after `name`, with the sorted, deduplicated original names of the nodes it replaces.
inline Node* replaceWithNode(Graph& g, const std::vector<Node*>& nodes, std::set<Node*>* removed, const char* type,
                             const std::string& name, const std::vector<Value*>& ins, const std::vector<Value*>& outs) {
  std::vector<std::string> orig;
  for (Node* n : nodes)
    for (auto& o : n->originalNames) orig.push_back(o);
  for (Node* n : nodes) {
    removed->insert(n);
    g.removeNode(n);
  }
  Node* r = g.addNode(type, g.uniqueNodeName(name), ins, outs);
  std::sort(orig.begin(), orig.end());
  orig.erase(std::unique(orig.begin(), orig.end()), orig.end());
  r->originalNames = orig;
  return r;
}
// Removes n when none of its outputs is used or a graph output.
inline void dropIfDead(Graph& g, Node* n) {
  for (Value* o : n->outputs)
    if (g.isGraphOutput(o) || !g.users(o).empty()) return;
  g.removeNode(n);
}
inline bool soleUserIs(const Graph& g, const Value* v, const Node* n) { return soleUser(g, v) == n; }
// n now produces `out` (the value of a node it absorbed, keeping graph output names) as its
// output 0; its previous output 0 is left without a producer for pruneValues.
inline void adoptOutput(Node* n, Value* out) {
  Value* old = n->outputs[0];
  n->outputs[0] = out;
  out->producer = n;
  out->producerIndex = 0;
  if (old != out) old->producer = nullptr;
}
// v is a constant with one element; its value in *d.
inline bool scalarConst(const Value* v, double* d) {
  if (!v || !v->isConstant() || !v->type.isStatic() || v->type.numel() != 1) return false;
  *d = v->constant->floatAt(0);
  return true;
}
inline bool near(double a, double b, double tol = 1e-3) { return std::fabs(a - b) <= tol * std::max(1.0, std::fabs(b)); }
// For a binary node: the input that is not `v` (nullptr when neither or both are v).
inline Value* otherInput(const Node* n, const Value* v) {
  if (!n || n->inputs.size() != 2) return nullptr;
  if (n->inputs[0] == v && n->inputs[1] != v) return n->inputs[1];
  if (n->inputs[1] == v && n->inputs[0] != v) return n->inputs[0];
  return nullptr;
}
// Binary node with one scalar-constant input equal to c (within tol); the other input.
inline Value* binWithConst(const Node* n, const char* type, double c, double tol = 1e-3) {
  if (!n || n->type != type || n->inputs.size() != 2) return nullptr;
  double d;
  if (scalarConst(n->inputs[1], &d) && near(d, c, tol)) return n->inputs[0];
  if (scalarConst(n->inputs[0], &d) && near(d, c, tol)) return n->inputs[1];
  return nullptr;
}
// Reduce axes of a ReduceXxx node (attribute or constant input 1); false when unknown.
inline bool reduceAxes(const Node* n, std::vector<int64_t>* axes) {
  if (n->hasAttr("axes")) *axes = n->attrInts("axes");
  else if (n->input(1) && n->input(1)->isConstant()) *axes = n->input(1)->constant->toInts();
  else return false;
  int64_t r = n->inputs[0]->type.rank();
  for (auto& a : *axes) if (a < 0) a += r;
  return true;
}
// Single reduced axis = the last one, keepdims=1.
inline bool reducesLastAxis(const Node* n) {
  std::vector<int64_t> ax;
  if (!reduceAxes(n, &ax) || ax.size() != 1) return false;
  return ax[0] == n->inputs[0]->type.rank() - 1 && n->attrInt("keepdims", 1) == 1;
}

// A scalar compile-time value (TF scope passes): a one-value (or all-equal) constant, or small constant
// arithmetic the converters left unfolded (tf.sqrt(2.0), 1 / sqrt(2), Cast of a constant).
inline bool scalarValue(const Value* v, double* out, int depth = 0) {
  if (!v || depth > 4) return false;
  if (v->isConstant()) {
    const Tensor& t = *v->constant;
    int64_t n = t.type.numel();
    if (n < 1 || !isFloat(t.type.dtype)) return false;
    double a = t.floatAt(0);
    for (int64_t i = 1; i < n; ++i)
      if (t.floatAt(i) != a) return false;
    *out = a;
    return true;
  }
  const Node* p = v->producer;
  if (!p) return false;
  double a, b;
  if ((p->type == "Sqrt" || p->type == "Reciprocal" || p->type == "Cast" || p->type == "Identity") &&
      p->inputs.size() == 1 && scalarValue(p->inputs[0], &a, depth + 1)) {
    if (p->type == "Sqrt") *out = std::sqrt(a);
    else if (p->type == "Reciprocal") *out = 1.0 / a;
    else *out = a;
    return true;
  }
  if ((p->type == "Div" || p->type == "Mul") && p->inputs.size() == 2 && scalarValue(p->inputs[0], &a, depth + 1) &&
      scalarValue(p->inputs[1], &b, depth + 1)) {
    *out = p->type == "Div" ? a / b : a * b;
    return true;
  }
  return false;
}
// n is `type`(v, c) or `type`(c, v) (commutative only for Mul/Add) with scalar c ~= want: returns v.
inline Value* withScalar(const Node* n, const char* type, double want) {
  if (!n || n->type != type || n->inputs.size() != 2) return nullptr;
  double d;
  bool comm = n->type == "Mul" || n->type == "Add";
  if (scalarValue(n->inputs[1], &d) && near(d, want, 1e-4)) return n->inputs[0];
  if (comm && scalarValue(n->inputs[0], &d) && near(d, want, 1e-4)) return n->inputs[1];
  return nullptr;
}

}  // namespace fu
}  // namespace atc
