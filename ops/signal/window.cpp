// HannWindow, HammingWindow, BlackmanWindow (opset 17): kernel "window" (kernels/lib/window.cpp).
// size is a scalar int32 / int64; fed at run time it makes the output run-sized
// (docs/dynamic-shapes.md). output_datatype (default float32) names the output's dtype.
#include "ir/dtype.h"
#include "ir/op_registry.h"
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

int64_t kindOf(const Node& n) { return n.type == "HannWindow" ? 0 : n.type == "HammingWindow" ? 1 : 2; }

DType outType(const Node& n) {
  DType t = dtypeFromOnnxCode(n.attrInt("output_datatype", 1));
  if (t != DType::F32 && t != DType::F64 && t != DType::F16 && t != DType::BF16 && t != DType::I64 &&
      t != DType::I32 && t != DType::I16 && t != DType::I8 && t != DType::U8)
    opError(n, "unsupported output_datatype " + std::to_string(n.attrInt("output_datatype", 1)));
  return t;
}

void inferWindow(Graph&, Node& n) {
  int64_t len = 0;
  if (dm::runTimeShapeInput(n, 0, "size", {DType::I64, DType::I32}, &len)) {
    if (len != 1) opError(n, "size must be a scalar");
    dm::setRunSized(n, 0, outType(n), {-1});
    return;
  }
  auto s = dm::constInts(n, 0, "size");
  if (s.size() != 1 || s[0] < 0) opError(n, "size must be a non-negative scalar");
  n.outputs[0]->type = TensorType(outType(n), {s[0]});
}

KernelCall lowerWindow(LowerCtx& c) {
  const Node& n = c.node;
  const bool rt = isRunSized(n.outputs[0]);
  KernelCall k{"window", {kindOf(n), n.attrInt("periodic", 1) != 0 ? 1 : 0, (int64_t)outType(n),
                          (int64_t)n.inputs[0]->type.dtype, rt ? -1 : dm::constInts(n, 0, "size")[0]}};
  k.sizesOutputs = rt;
  return k;
}

OpDef def(const char* type) {
  OpDef d;
  d.type = type;
  d.category = OpCategory::Misc;
  d.minInputs = d.maxInputs = 1;
  d.infer = inferWindow;
  d.lower = lowerWindow;
  return d;
}

ATC_REGISTER_OP(def("HannWindow"));
ATC_REGISTER_OP(def("HammingWindow"));
ATC_REGISTER_OP(def("BlackmanWindow"));

}  // namespace
}  // namespace atc

namespace atc {
namespace {

// MelWeightMatrix (opset 17): kernel mel_weight (kernels/lib/mel_weight.cpp); scalars fed at run
// time make the output run-sized.
bool melRunTime(const Node& n) {
  for (size_t i = 0; i < 5; ++i)
    if (!n.inputs[i]->isConstant()) return true;
  return false;
}

void inferMel(Graph&, Node& n) {
  for (size_t i = 0; i < 5; ++i)
    if (!n.inputs[i]->type.isStatic() || n.inputs[i]->type.numel() != 1) opError(n, "every input must be a scalar");
  const DType t = outType(n);
  if (melRunTime(n)) {
    dm::setRunSized(n, 0, t, {-1, -1});
    return;
  }
  const int64_t nmb = dm::constInts(n, 0, "num_mel_bins")[0], dft = dm::constInts(n, 1, "dft_length")[0];
  if (nmb < 1 || dft < 1 || dm::constInts(n, 2, "sample_rate")[0] < 1)
    opError(n, "num_mel_bins, dft_length and sample_rate must be positive");
  n.outputs[0]->type = TensorType(t, {dft / 2 + 1, nmb});
}

KernelCall lowerMel(LowerCtx& c) {
  const Node& n = c.node;
  const bool rt = isRunSized(n.outputs[0]);
  KernelCall k{"mel_weight", {(int64_t)outType(n), rt ? 1 : 0}};
  for (size_t i = 0; i < 5; ++i) k.params.push_back((int64_t)n.inputs[i]->type.dtype);
  k.sizesOutputs = rt;
  return k;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "MelWeightMatrix";
  d.category = OpCategory::Misc;
  d.minInputs = d.maxInputs = 5;
  d.infer = inferMel;
  d.lower = lowerMel;
  return d;
}());

}  // namespace
}  // namespace atc
