// STFT (opset 17): kernel stft (kernels/lib/stft.cpp). signal [batch, length, 1 or 2] (real or
// complex) of float32 / float64; frame_step and frame_length are scalars whose values decide the
// output's shape [batch, frames, bins, 2]: fed at run time, the output is run-sized
// (docs/dynamic-shapes.md).
#include <algorithm>

#include "ir/op_registry.h"
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

bool runTime(const Node& n) {
  return !n.inputs[1]->isConstant() || (dm::hasInput(n, 3) && !n.inputs[3]->isConstant());
}

void inferStft(Graph&, Node& n) {
  const Shape& x = dm::staticShape(n, 0);
  const DType dt = n.inputs[0]->type.dtype;
  if (dt != DType::F32 && dt != DType::F64) opError(n, std::string("unsupported dtype ") + dtypeName(dt));
  if (x.size() != 3 || (x[2] != 1 && x[2] != 2)) opError(n, "signal must be [batch, length, 1 or 2]");
  for (size_t i : {size_t(1), size_t(3)}) {
    if (!dm::hasInput(n, i)) continue;
    const Value* v = n.inputs[i];
    if ((v->type.dtype != DType::I64 && v->type.dtype != DType::I32) || !v->type.isStatic() || v->type.numel() != 1)
      opError(n, "frame_step and frame_length must be int32 / int64 scalars");
  }
  if (dm::hasInput(n, 2) && (dm::staticShape(n, 2).size() != 1 || n.inputs[2]->type.dtype != dt))
    opError(n, "window must be 1-D of the signal's dtype");
  if (runTime(n)) {
    dm::setRunSized(n, 0, dt, {x[0], -1, -1, 2});
    return;
  }
  const int64_t step = dm::constInts(n, 1, "frame_step")[0];
  const int64_t wlen = dm::hasInput(n, 2) ? n.inputs[2]->type.shape[0] : 0;
  const int64_t fl = dm::hasInput(n, 3) ? dm::constInts(n, 3, "frame_length")[0] : (wlen ? wlen : x[1]);
  if (step < 1 || fl < 1 || fl > x[1] || fl > 16384) opError(n, "frame_step or frame_length out of range");
  const bool onesided = n.attrInt("onesided", 1) != 0;
  const int64_t frames = 1 + (x[1] - fl) / step, bins = onesided ? fl / 2 + 1 : fl;
  if ((double)x[0] * (double)frames * (double)bins * (double)std::min(wlen ? wlen : fl, fl) > 4294967296.0)
    opError(n, "the frames need more than 2^32 multiply-adds, more than the direct DFT kernel takes");
  n.outputs[0]->type = TensorType(dt, {x[0], frames, bins, 2});
}

KernelCall lowerStft(LowerCtx& c) {
  const Node& n = c.node;
  const Shape& x = n.inputs[0]->type.shape;
  const bool rt = isRunSized(n.outputs[0]);
  KernelCall k{"stft", {(int64_t)n.inputs[0]->type.dtype, x[0], x[1], x[2], n.attrInt("onesided", 1) != 0 ? 1 : 0,
                        dm::hasInput(n, 2) ? n.inputs[2]->type.shape[0] : 0, (int64_t)n.inputs.size(), rt ? 1 : 0,
                        (int64_t)n.inputs[1]->type.dtype, dm::hasInput(n, 3) ? (int64_t)n.inputs[3]->type.dtype : 0}};
  k.sizesOutputs = rt;
  return k;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "STFT";
  d.category = OpCategory::Misc;
  d.minInputs = 2;
  d.maxInputs = 4;
  d.infer = inferStft;
  d.lower = lowerStft;
  return d;
}());

}  // namespace
}  // namespace atc
