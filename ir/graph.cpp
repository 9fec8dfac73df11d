#include "ir/graph.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "support/diagnostics.h"

namespace atc {

namespace {
const char* attrTypeName(const AttrValue& v) {
  static const char* names[] = {"INT", "FLOAT", "STRING", "INTS", "FLOATS", "STRINGS", "TENSOR"};
  return names[v.index()];
}
// An attribute of the wrong type is a model error, not a reason to use the default.
[[noreturn]] void attrTypeError(const Node& n, const std::string& k, const AttrValue& v, const char* want) {
  throw AtcError("E19999",
                 "Op [" + n.name + "] of type [" + n.type + "] is invalid: attribute [" + k + "] is " +
                     attrTypeName(v) + ", expected " + want + ".",
                 "Fix the attribute's type in the model (see the operator's definition).");
}
}  // namespace

int64_t Node::attrInt(const std::string& k, int64_t def) const {
  auto it = attrs.find(k);
  if (it == attrs.end()) return def;
  if (auto p = std::get_if<int64_t>(&it->second)) return *p;
  if (auto p = std::get_if<double>(&it->second)) return (int64_t)*p;
  attrTypeError(*this, k, it->second, "INT");
}
double Node::attrFloat(const std::string& k, double def) const {
  auto it = attrs.find(k);
  if (it == attrs.end()) return def;
  if (auto p = std::get_if<double>(&it->second)) return *p;
  if (auto p = std::get_if<int64_t>(&it->second)) return (double)*p;
  attrTypeError(*this, k, it->second, "FLOAT");
}
std::string Node::attrString(const std::string& k, const std::string& def) const {
  auto it = attrs.find(k);
  if (it == attrs.end()) return def;
  if (auto p = std::get_if<std::string>(&it->second)) return *p;
  attrTypeError(*this, k, it->second, "STRING");
}
std::vector<int64_t> Node::attrInts(const std::string& k, const std::vector<int64_t>& def) const {
  auto it = attrs.find(k);
  if (it == attrs.end()) return def;
  if (auto p = std::get_if<std::vector<int64_t>>(&it->second)) return *p;
  if (auto p = std::get_if<int64_t>(&it->second)) return {*p};
  attrTypeError(*this, k, it->second, "INTS");
}
std::vector<double> Node::attrFloats(const std::string& k, const std::vector<double>& def) const {
  auto it = attrs.find(k);
  if (it == attrs.end()) return def;
  if (auto p = std::get_if<std::vector<double>>(&it->second)) return *p;
  if (auto p = std::get_if<double>(&it->second)) return {*p};
  if (auto p = std::get_if<std::vector<int64_t>>(&it->second))
    if (p->empty()) return {};  // an empty list with no type reads as INTS
  attrTypeError(*this, k, it->second, "FLOATS");
}
TensorPtr Node::attrTensor(const std::string& k) const {
  auto it = attrs.find(k);
  if (it == attrs.end()) return nullptr;
  if (auto p = std::get_if<TensorPtr>(&it->second)) return *p;
  return nullptr;
}

int64_t dataShapeOffset(const TensorType& t) { return (std::max<int64_t>(t.byteSize(), 0) + 7) / 8 * 8; }
int64_t dataShapeBufferBytes(const TensorType& t) { return dataShapeOffset(t) + 8 * std::max<int64_t>(t.rank(), 1); }

Value* Graph::newValue(const std::string& name, const TensorType& type) {
  std::string n = name.empty() ? "v" : name;
  if (valueByName_.count(n)) {
    int& next = valueSuffix_[n];
    int i = std::max(next, 1);
    while (valueByName_.count(n + "_" + std::to_string(i))) ++i;
    next = i + 1;
    n = n + "_" + std::to_string(i);
  }
  auto v = std::make_unique<Value>();
  v->name = n;
  v->type = type;
  Value* raw = v.get();
  values_.push_back(std::move(v));
  valueByName_[n] = raw;
  return raw;
}

void Graph::swapNames(Value* a, Value* b) {
  std::swap(a->name, b->name);
  valueByName_[a->name] = a;
  valueByName_[b->name] = b;
}

Value* Graph::newConstant(const std::string& name, TensorPtr data) {
  Value* v = newValue(name, data->type);
  v->constant = std::move(data);
  return v;
}

std::string Graph::uniqueNodeName(const std::string& base) {
  std::string b = base.empty() ? "node" : base;
  auto it = nodeNames_.find(b);
  if (it == nodeNames_.end()) {
    nodeNames_[b] = 0;
    return b;
  }
  for (;;) {
    std::string n = b + "_" + std::to_string(++it->second);
    if (!nodeNames_.count(n)) {
      nodeNames_[n] = 0;
      return n;
    }
  }
}

Node* Graph::addNode(const std::string& type, const std::string& name,
                     const std::vector<Value*>& ins, const std::vector<Value*>& outs) {
  auto n = std::make_unique<Node>();
  n->type = type;
  n->name = uniqueNodeName(name.empty() ? type : name);
  n->inputs = ins;
  n->outputs = outs;
  for (size_t i = 0; i < outs.size(); ++i) {
    outs[i]->producer = n.get();
    outs[i]->producerIndex = (int)i;
  }
  Node* raw = n.get();
  nodes_.push_back(std::move(n));
  return raw;
}

void Graph::removeNode(Node* n) {
  for (auto* o : n->outputs)
    if (o && o->producer == n) o->producer = nullptr;
  nodes_.remove_if([n](const std::unique_ptr<Node>& p) { return p.get() == n; });
}

void Graph::removeNodes(const std::set<Node*>& ns) {
  for (Node* n : ns)
    for (auto* o : n->outputs)
      if (o && o->producer == n) o->producer = nullptr;
  nodes_.remove_if([&ns](const std::unique_ptr<Node>& p) { return ns.count(p.get()) != 0; });
}

std::map<const Value*, int> Graph::userCounts() const {
  std::map<const Value*, int> r;
  for (auto& n : nodes_)
    for (size_t i = 0; i < n->inputs.size(); ++i) {
      const Value* in = n->inputs[i];
      if (!in || std::find(n->inputs.begin(), n->inputs.begin() + (long)i, in) != n->inputs.begin() + (long)i) continue;
      ++r[in];
    }
  return r;
}

void Graph::replaceAllUses(Value* from, Value* to) {
  for (auto& n : nodes_)
    for (auto& in : n->inputs)
      if (in == from) in = to;
  for (auto& o : outputs)
    if (o == from) o = to;
}

std::vector<Node*> Graph::users(const Value* v) const {
  std::vector<Node*> r;
  for (auto& n : nodes_)
    for (auto* in : n->inputs)
      if (in == v) { r.push_back(n.get()); break; }
  return r;
}

bool Graph::isGraphOutput(const Value* v) const {
  return std::find(outputs.begin(), outputs.end(), v) != outputs.end();
}

void Graph::topoSort() {
  // Kahn's algorithm; ready nodes are taken in their current order (stable).
  std::vector<Node*> order;
  std::unordered_map<Node*, size_t> pos;
  std::vector<Node*> all;
  for (auto& n : nodes_) { pos[n.get()] = all.size(); all.push_back(n.get()); }
  std::unordered_map<Node*, int> pending;
  std::unordered_map<const Value*, std::vector<Node*>> consumers;
  for (Node* n : all) {
    std::unordered_set<Node*> preds;
    for (auto* in : n->inputs)
      if (in && in->producer && pos.count(in->producer)) preds.insert(in->producer);
    pending[n] = (int)preds.size();
    for (auto* in : n->inputs)
      if (in && in->producer && pos.count(in->producer)) {
        auto& c = consumers[in];
        if (std::find(c.begin(), c.end(), n) == c.end()) c.push_back(n);
      }
  }
  std::set<size_t> ready;
  for (Node* n : all)
    if (pending[n] == 0) ready.insert(pos[n]);
  std::unordered_map<Node*, std::unordered_set<Node*>> released;
  while (!ready.empty()) {
    Node* n = all[*ready.begin()];
    ready.erase(ready.begin());
    order.push_back(n);
    for (auto* o : n->outputs) {
      auto it = consumers.find(o);
      if (it == consumers.end()) continue;
      for (Node* c : it->second) {
        if (released[c].insert(n).second && --pending[c] == 0) ready.insert(pos[c]);
      }
    }
  }
  if (order.size() != all.size())
    throw AtcError("E19999", "The graph has a cycle; it cannot be ordered.",
                   "Check the model: every node's inputs must be produced before it.");
  std::unordered_map<Node*, std::unique_ptr<Node>> owned;
  for (auto& n : nodes_) owned[n.get()] = std::move(n);
  nodes_.clear();
  for (Node* n : order) nodes_.push_back(std::move(owned[n]));
}

void Graph::setNodeOrder(const std::vector<Node*>& order) {
  std::unordered_map<Node*, std::unique_ptr<Node>> owned;
  for (auto& n : nodes_) owned[n.get()] = std::move(n);
  if (order.size() != owned.size()) internalError("setNodeOrder: the order does not hold every node once");
  nodes_.clear();
  for (Node* n : order) {
    auto it = owned.find(n);
    if (it == owned.end() || !it->second) internalError("setNodeOrder: the order does not hold every node once");
    nodes_.push_back(std::move(it->second));
  }
}

void Graph::pruneValues() {
  std::unordered_set<const Value*> live;
  for (auto* v : inputs) live.insert(v);
  for (auto* v : outputs) live.insert(v);
  for (auto& n : nodes_) {
    for (auto* v : n->inputs) if (v) live.insert(v);
    for (auto* v : n->outputs) live.insert(v);
  }
  std::vector<std::unique_ptr<Value>> kept;
  for (auto& v : values_) {
    if (live.count(v.get())) kept.push_back(std::move(v));
    else valueByName_.erase(v->name);
  }
  values_ = std::move(kept);
}

Value* Graph::findValue(const std::string& name) const {
  auto it = valueByName_.find(name);
  return it == valueByName_.end() ? nullptr : it->second;
}

Node* Graph::findNode(const std::string& name) const {
  for (auto& n : nodes_)
    if (n->name == name) return n.get();
  return nullptr;
}

}  // namespace atc
