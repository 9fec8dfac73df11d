#include "ops/native_eval.h"

#include <cstring>
#include <memory>

#include "support/diagnostics.h"
#include "ir/op_registry.h"
#include "kernels/lib/native_registry.h"

namespace atc {

bool canEvalNative(const Node& n) {
  const OpDef* d = OpRegistry::instance().find(n.type);
  if (!d || !d->lower) return false;
  for (auto* in : n.inputs)
    if (in && !in->isConstant()) return false;
  for (auto* o : n.outputs)
    if (!o->type.isStatic()) return false;
  return true;
}

namespace {

// Inputs of up to this many bytes in all are checked to be unchanged by the kernel.
constexpr size_t kMaxCheckedInputBytes = size_t(16) << 20;

// Copies of the inputs' bytes before the kernel runs (empty when they are too large to
// copy cheaply): a kernel that writes an input (a wrong output index, such as "copy" on a
// two-input node) would otherwise silently change a constant other nodes share.
std::vector<std::vector<uint8_t>> snapshotInputs(const Node& n) {
  size_t total = 0;
  for (auto* in : n.inputs)
    if (in) total += in->constant->data.size();
  std::vector<std::vector<uint8_t>> r;
  if (total > kMaxCheckedInputBytes) return r;
  for (auto* in : n.inputs) r.push_back(in ? in->constant->data : std::vector<uint8_t>());
  return r;
}

// Throws (after restoring the bytes) when the kernel changed one of its inputs.
void checkInputsUnchanged(const Node& n, const std::string& kernel, const std::vector<std::vector<uint8_t>>& before) {
  if (before.empty()) return;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    Value* in = n.inputs[i];
    if (!in || in->constant->data == before[i]) continue;
    const_cast<std::vector<uint8_t>&>(in->constant->data) = before[i];
    internalError("kernel " + kernel + " of node " + n.name + " (" + n.type + ") wrote its input " + std::to_string(i) +
                  " (" + in->name + "); kernels write only their outputs");
  }
}

// A shapeFromData output as a tensor of the actual shape its kernel wrote after the data.
std::shared_ptr<Tensor> dataShapedResult(const Node& n, const Value& o, const std::vector<uint8_t>& buf) {
  const int64_t at = dataShapeOffset(o.type);
  Shape dims((size_t)o.type.rank());
  for (size_t d = 0; d < dims.size(); ++d) {
    std::memcpy(&dims[d], buf.data() + at + 8 * d, 8);
    if (dims[d] < 0 || dims[d] > o.type.shape[d])
      internalError("kernel of " + n.name + " wrote dim " + std::to_string(dims[d]) + " beyond the bound " +
                    o.type.str());
  }
  auto t = std::make_shared<Tensor>(TensorType(o.type.dtype, dims));
  if (!t->data.empty()) std::memcpy(t->data.data(), buf.data(), t->data.size());
  return t;
}

}  // namespace

std::vector<TensorPtr> evalNodeNative(Graph& g, Node& n, int cubeRows, int int8Path, bool bf16Dot, bool int8Amx) {
  const OpDef* d = OpRegistry::instance().find(n.type);
  if (!d || !d->lower) internalError("no lowering for op " + n.type);
  LowerCtx ctx(g, n);
  ctx.cubeRows = cubeRows;
  ctx.int8Path = int8Path;
  ctx.bf16Dot = bf16Dot;
  ctx.int8Amx = int8Amx;
  KernelCall call = d->lower(ctx);
  const NativeKernel* k = findNativeKernel(call.kernel.c_str());
  if (!k) internalError("kernel " + call.kernel + " is not in the native library");
  std::vector<void*> bufs;
  for (auto* in : n.inputs)
    bufs.push_back(in ? const_cast<uint8_t*>(in->constant->data.data()) : nullptr);
  std::vector<std::shared_ptr<Tensor>> outs;
  std::vector<std::vector<uint8_t>> bounded(n.outputs.size());  // shapeFromData outputs: bound + dims
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    const Value* o = n.outputs[i];
    if (!o->type.isStatic()) internalError("output of " + n.name + " has no static shape");
    auto t = std::make_shared<Tensor>(o->type);
    outs.push_back(t);
    if (o->shapeFromData) {
      bounded[i].assign((size_t)dataShapeBufferBytes(o->type), 0);
      bufs.push_back(bounded[i].data());
    } else {
      bufs.push_back(t->data.empty() ? nullptr : t->data.data());
    }
  }
  std::vector<uint8_t> ws((size_t)call.workspaceBytes + 64);
  if (call.workspaceBytes > 0) bufs.push_back(ws.data());
  std::vector<std::vector<uint8_t>> before = snapshotInputs(n);
  runNativeKernel(*k, call.params.data(), bufs.data());
  checkInputsUnchanged(n, call.kernel, before);
  for (size_t i = 0; i < n.outputs.size(); ++i)
    if (n.outputs[i]->shapeFromData) outs[i] = dataShapedResult(n, *n.outputs[i], bounded[i]);
  return std::vector<TensorPtr>(outs.begin(), outs.end());
}

}  // namespace atc
