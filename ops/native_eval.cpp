#include "ops/native_eval.h"

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

std::vector<TensorPtr> evalNodeNative(Graph& g, Node& n) {
  const OpDef* d = OpRegistry::instance().find(n.type);
  if (!d || !d->lower) internalError("no lowering for op " + n.type);
  LowerCtx ctx(g, n);
  KernelCall call = d->lower(ctx);
  const NativeKernel* k = findNativeKernel(call.kernel.c_str());
  if (!k) internalError("kernel " + call.kernel + " is not in the native library");
  std::vector<void*> bufs;
  for (auto* in : n.inputs)
    bufs.push_back(in ? const_cast<uint8_t*>(in->constant->data.data()) : nullptr);
  std::vector<std::shared_ptr<Tensor>> outs;
  for (auto* o : n.outputs) {
    if (!o->type.isStatic()) internalError("output of " + n.name + " has no static shape");
    auto t = std::make_shared<Tensor>(o->type);
    outs.push_back(t);
    bufs.push_back(t->data.empty() ? nullptr : t->data.data());
  }
  std::vector<uint8_t> ws((size_t)call.workspaceBytes + 64);
  if (call.workspaceBytes > 0) bufs.push_back(ws.data());
  runNativeKernel(*k, call.params.data(), bufs.data());
  return std::vector<TensorPtr>(outs.begin(), outs.end());
}

}  // namespace atc
