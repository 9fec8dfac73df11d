// See tf_tensor_array.h.
#include "frontends/tf/tf_tensor_array.h"

#include <set>

#include "frontends/tf/tf_common.h"

namespace atc {
namespace tffe {
namespace {

// "TensorArrayReadV3" -> "Read"; "TensorArrayV3" -> "".
std::string kindOf(const std::string& op) {
  std::string k = op.substr(std::string("TensorArray").size());
  if (k.size() >= 2 && k[k.size() - 2] == 'V' && (k.back() == '2' || k.back() == '3')) k.resize(k.size() - 2);
  return k;
}

}  // namespace

bool TensorArrays::isTensorArrayOp(const std::string& op) {
  static const std::set<std::string> kinds = {"", "Scatter", "Read", "Write", "Gather", "Size", "Close", "Concat", "Split"};
  if (op.rfind("TensorArray", 0) != 0) return false;
  if (op.size() < 2 || op[op.size() - 2] != 'V' || (op.back() != '2' && op.back() != '3')) return false;
  return kinds.count(kindOf(op)) != 0;
}

std::vector<Value*> TensorArrays::convert(TfCtx& ctx, frontend::ImportEval& ev) {
  const std::string kind = kindOf(ctx.def.op());
  if (kind.empty()) return create(ctx, ev);
  if (kind == "Scatter" || kind == "Split") return scatter(ctx, ev, kind);
  if (kind == "Write") return write(ctx, ev);
  if (kind == "Read") return read(ctx, ev);
  if (kind == "Gather" || kind == "Concat") return gather(ctx, ev, kind);
  if (kind == "Size") {
    arrayOf(ctx, 0);
    auto d = dense_.find(ctx.in.at(1));
    int64_t size = d != dense_.end() ? d->second.size : (int64_t)elemsOf(ctx, 1).size();
    return {ctx.constScalar((double)size, DType::I32)};
  }
  arrayOf(ctx, 0);  // Close
  return {};
}

std::vector<int64_t> TensorArrays::foldInts(TfCtx& ctx, frontend::ImportEval& ev, size_t input,
                                            const std::string& what) {
  TensorPtr t = ev.constantOf(ctx.in.at(input));
  if (!t)
    ctx.unsupported("the TensorArray " + what + " is not known at compile time (tensor arrays are resolved when "
                    "loops are unrolled)");
  return t->toInts();
}

const TensorArrays::Array& TensorArrays::arrayOf(TfCtx& ctx, size_t input) {
  auto it = handles_.find(ctx.in.at(input));
  if (it == handles_.end())
    ctx.unsupported("input " + std::to_string(input) + " is not the handle of a TensorArray created in this graph "
                    "outside run-time branches");
  return arrays_[it->second];
}

const TensorArrays::Elems& TensorArrays::elemsOf(TfCtx& ctx, size_t input) {
  auto it = flows_.find(ctx.in.at(input));
  if (it == flows_.end())
    ctx.unsupported("input " + std::to_string(input) + " is not the flow of a TensorArray created in this graph "
                    "outside run-time branches");
  return it->second;
}

TensorType TensorArrays::elementType(TfCtx& ctx, const Elems& e, const Elems* probe) {
  TensorType t;
  bool found = false;
  auto scan = [&](const Elems& l) {
    for (Value* v : l) {
      if (!v) continue;
      if (!v->type.isStatic() || v->shapeFromData)
        ctx.unsupported("an element of the TensorArray has no static shape, which a loop running at run time needs");
      if (found && !(v->type == t))
        ctx.unsupported("the TensorArray's elements differ in type (" + t.str() + ", " + v->type.str() +
                        "), which a loop running at run time cannot hold in one tensor");
      t = v->type;
      found = true;
    }
  };
  scan(e);
  if (probe) scan(*probe);
  if (!found)
    ctx.unsupported("no element of the TensorArray is written before the loop or by its first iteration, so its "
                    "element shape is not known");
  return t;
}

// The elements stacked on a new first axis, zeros where unwritten.
Value* TensorArrays::stacked(TfCtx& ctx, const Elems& e, const TensorType& elem) {
  if (e.empty()) ctx.unsupported("the TensorArray is empty");
  Shape all = {(int64_t)e.size()};
  all.insert(all.end(), elem.shape.begin(), elem.shape.end());
  bool none = true;
  for (Value* v : e) none = none && !v;
  if (none)
    return ctx.g.newConstant(ctx.def.name() + "/dense_zeros", std::make_shared<Tensor>(TensorType(elem.dtype, all)));
  Value* zeros = nullptr;
  std::vector<Value*> parts;
  for (size_t i = 0; i < e.size(); ++i) {
    Value* v = e[i];
    if (!v && !zeros) zeros = ctx.g.newConstant(ctx.def.name() + "/zero_element", std::make_shared<Tensor>(elem));
    parts.push_back(
        ctx.op("Unsqueeze", {v ? v : zeros}, {{"axes", std::vector<int64_t>{0}}}, "dense" + std::to_string(i)));
  }
  if (parts.size() == 1) return ctx.op("Identity", parts, {}, "dense");
  return ctx.op("Concat", parts, {{"axis", int64_t(0)}}, "dense");
}

Value* TensorArrays::denseFlow(TfCtx& ctx, Value* flow, Value* probe) {
  if (dense_.count(flow)) return flow;
  auto it = flows_.find(flow);
  if (it == flows_.end()) ctx.unsupported("a loop variable is not the flow of a TensorArray created in this graph");
  auto p = probe ? flows_.find(probe) : flows_.end();
  TensorType elem = elementType(ctx, it->second, p != flows_.end() ? &p->second : nullptr);
  Value* d = stacked(ctx, it->second, elem);
  dense_[d] = Dense{(int64_t)it->second.size(), elem};
  return d;
}

Value* TensorArrays::newFlow(TfCtx& ctx, Elems elems) {
  Value* f = ctx.g.newConstant(ctx.def.name() + "/flow", makeScalar(0, DType::F32));
  flows_[f] = std::move(elems);
  return f;
}

Value* TensorArrays::element(TfCtx& ctx, const Elems& e, int64_t i) {
  if (i < 0 || i >= (int64_t)e.size() || !e[(size_t)i])
    ctx.unsupported("it reads element " + std::to_string(i) + " of a TensorArray of " + std::to_string(e.size()) +
                    " element(s) that was never written");
  return e[(size_t)i];
}

std::vector<Value*> TensorArrays::create(TfCtx& ctx, frontend::ImportEval& ev) {
  std::vector<int64_t> size = foldInts(ctx, ev, 0, "size");
  if (size.size() != 1 || size[0] < 0 || size[0] > 1000000) ctx.invalid("TensorArray size must be one value in [0, 1e6]");
  Array a;
  a.name = ctx.def.name();
  a.dynamicSize = ctx.b("dynamic_size", false);
  Value* handle = ctx.g.newConstant(ctx.def.name() + "/handle", makeScalar((double)arrays_.size(), DType::I32));
  handles_[handle] = arrays_.size();
  arrays_.push_back(a);
  return {handle, newFlow(ctx, Elems((size_t)size[0], nullptr))};
}

// Scatter(handle, indices, value, flow): value[k] -> element indices[k].
// Split(handle, value, lengths, flow): consecutive pieces of value's first axis.
std::vector<Value*> TensorArrays::scatter(TfCtx& ctx, frontend::ImportEval& ev, const std::string& kind) {
  const Array& a = arrayOf(ctx, 0);
  if (dense_.count(ctx.in.at(3)))
    ctx.unsupported("it scatters into a TensorArray that a loop running at run time carries");
  Elems e = elemsOf(ctx, 3);
  bool split = kind == "Split";
  Value* value = ctx.in.at(split ? 1 : 2);
  std::vector<int64_t> list = foldInts(ctx, ev, split ? 2 : 1, split ? "lengths" : "indices");
  if (split) e.assign(list.size(), nullptr);
  int64_t start = 0;
  for (size_t k = 0; k < list.size(); ++k) {
    int64_t at = split ? (int64_t)k : list[k];
    if (at < 0 || (at >= (int64_t)e.size() && !a.dynamicSize) || at > 1000000)
      ctx.invalid("index " + std::to_string(at) + " is outside the TensorArray of size " + std::to_string(e.size()));
    if (at >= (int64_t)e.size()) e.resize((size_t)at + 1, nullptr);
    std::string sfx = "elem" + std::to_string(k);
    if (split) {
      e[(size_t)at] = ctx.op("Slice", {value, ctx.constI64({start}), ctx.constI64({start + list[k]}), ctx.constI64({0})},
                             {}, sfx);
      start += list[k];
    } else {
      e[(size_t)at] = ctx.op("Gather", {value, ctx.constI64({(int64_t)k}, true)}, {{"axis", int64_t(0)}}, sfx);
    }
  }
  return {newFlow(ctx, std::move(e))};
}

std::vector<Value*> TensorArrays::write(TfCtx& ctx, frontend::ImportEval& ev) {
  const Array& a = arrayOf(ctx, 0);
  auto d = dense_.find(ctx.in.at(3));
  if (d != dense_.end()) {  // element index of the dense tensor a run-time loop carries
    if (a.dynamicSize)
      ctx.unsupported("a loop running at run time writes a TensorArray of dynamic size (its size would change)");
    Value* index = ctx.op("Cast", {ctx.in.at(1)}, {{"to", onnxTypeOf(DType::I64)}}, "index");
    Value* indices = ctx.op("Reshape", {index, ctx.constI64({1, 1})}, {}, "indices");
    Value* update = ctx.op("Unsqueeze", {ctx.in.at(2)}, {{"axes", std::vector<int64_t>{0}}}, "update");
    Dense info = d->second;
    Value* out = ctx.op("ScatterND", {ctx.in.at(3), indices, update}, {}, "write");
    dense_[out] = info;
    return {out};
  }
  std::vector<int64_t> idx = foldInts(ctx, ev, 1, "index");
  Elems e = elemsOf(ctx, 3);
  if (idx.size() != 1 || idx[0] < 0 || (idx[0] >= (int64_t)e.size() && !a.dynamicSize) || idx[0] > 1000000)
    ctx.invalid("the write index is outside the TensorArray of size " + std::to_string(e.size()));
  if (idx[0] >= (int64_t)e.size()) e.resize((size_t)idx[0] + 1, nullptr);
  e[(size_t)idx[0]] = ctx.in.at(2);
  return {newFlow(ctx, std::move(e))};
}

std::vector<Value*> TensorArrays::read(TfCtx& ctx, frontend::ImportEval& ev) {
  arrayOf(ctx, 0);
  Value* flow = ctx.in.at(2);
  if (!dense_.count(flow) && !ev.constantOf(ctx.in.at(1))) {  // a run-time index: the elements stacked once
    auto s = stackedOf_.find(flow);
    if (s == stackedOf_.end()) {
      const Elems& e = elemsOf(ctx, 2);
      s = stackedOf_.emplace(flow, stacked(ctx, e, elementType(ctx, e, nullptr))).first;
    }
    flow = s->second;
  }
  if (flow != ctx.in.at(2) || dense_.count(flow))
    return {ctx.op("Gather", {flow, ctx.in.at(1)}, {{"axis", int64_t(0)}}, "read")};
  std::vector<int64_t> idx = foldInts(ctx, ev, 1, "index");
  if (idx.size() != 1) ctx.invalid("the read index must be a scalar");
  return {element(ctx, elemsOf(ctx, 2), idx[0])};
}

// Gather(handle, indices, flow): elements stacked on a new first axis. Concat(handle, flow):
// all elements joined on their first axis, and their lengths.
std::vector<Value*> TensorArrays::gather(TfCtx& ctx, frontend::ImportEval& ev, const std::string& kind) {
  arrayOf(ctx, 0);
  bool concat = kind == "Concat";
  auto d = dense_.find(ctx.in.at(concat ? 1 : 2));
  if (d != dense_.end()) {  // the dense tensor a run-time loop gave
    if (!concat) return {ctx.op("Gather", {ctx.in.at(2), ctx.in.at(1)}, {{"axis", int64_t(0)}}, "gather")};
    const Dense& info = d->second;
    if (info.elem.rank() < 1) ctx.unsupported("TensorArrayConcat needs elements of static rank >= 1");
    Shape joined = info.elem.shape;
    joined[0] *= info.size;
    return {ctx.op("Reshape", {ctx.in.at(1), ctx.constI64(joined)}, {}, "concat"),
            ctx.constI64(std::vector<int64_t>((size_t)info.size, info.elem.shape[0]))};
  }
  const Elems& e = elemsOf(ctx, concat ? 1 : 2);
  std::vector<int64_t> idx;
  if (concat)
    for (size_t k = 0; k < e.size(); ++k) idx.push_back((int64_t)k);
  else
    idx = foldInts(ctx, ev, 1, "indices");
  if (idx.empty()) ctx.unsupported("it reads no element (an empty TensorArray result has no static shape here)");
  std::vector<Value*> parts;
  std::vector<int64_t> lengths;
  for (int64_t i : idx) {
    Value* v = element(ctx, e, i);
    if (concat) {
      if (!v->type.shapeKnown || v->type.rank() < 1 || v->type.shape[0] < 0)
        ctx.unsupported("TensorArrayConcat needs elements of static rank >= 1");
      lengths.push_back(v->type.shape[0]);
      parts.push_back(v);
    } else {
      parts.push_back(ctx.op("Unsqueeze", {v}, {{"axes", std::vector<int64_t>{0}}}, "stack" + std::to_string(i)));
    }
  }
  Value* out = parts.size() == 1 ? parts[0] : ctx.op("Concat", parts, {{"axis", int64_t(0)}});
  if (parts.size() == 1) out = ctx.op("Identity", {out});
  if (!concat) return {out};
  return {out, ctx.constI64(lengths)};
}

}  // namespace tffe
}  // namespace atc
