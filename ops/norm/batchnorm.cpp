// BatchNormalization, inference form: Y = (X - mean) / sqrt(var + epsilon) * scale + B per
// channel (dim 1). Training mode (training_mode=1, or any of the extra running-mean/var
// and saved-statistics outputs) is refused.
#include "support/diagnostics.h"
#include "kernels/lib/math_norm_codes.h"
#include "ops/elementwise/eltwise_common.h"

namespace atc {
namespace {

const bool kReg0 = [] {
  OpRegistry::instance().add([] {
  OpDef d;
  d.type = "BatchNormalization";
  d.category = OpCategory::Reduce;
  // X and Y may be float16/bfloat16 (computed in float32); the statistics keep their dtype.
  d.storesF16AndBf16(1);
  d.minInputs = d.maxInputs = 5;
  d.maxOutputs = 5;  // more than 1: training outputs, refused with a clear error
  d.infer = [](Graph&, Node& n) {
    if (n.attrInt("training_mode", 0) != 0)
      throw AtcError("E10052", "BatchNormalization node [" + n.name + "] uses training_mode=1.",
                     "Export the model in inference mode (model.eval()).");
    if (n.outputs.size() > 1)
      throw AtcError("E10052", "BatchNormalization node [" + n.name +
                     "] requests training outputs (running mean/var, saved statistics).",
                     "Export the model in inference mode (model.eval()).");
    const TensorType& x = n.inputs[0]->type;
    if (x.shapeKnown && x.rank() < 2) opError(n, "X must have rank >= 2");
    for (int i = 1; i < 5; ++i) {
      const TensorType& t = n.inputs[i]->type;
      if (x.isStatic() && t.isStatic() && t.numel() != x.shape[1])
        opError(n, "scale/B/mean/var must have C = " + std::to_string(x.shape[1]) + " elements");
    }
    n.outputs[0]->type = x;
  };
  d.lower = [](LowerCtx& c) {
    const Node& n = c.node;
    const TensorType& x = n.inputs[0]->type;
    int64_t N = x.shape[0], C = x.shape[1], S = 1;
    for (int64_t i = 2; i < x.rank(); ++i) S *= x.shape[i];
    KernelCall k;
    k.kernel = "batchnorm";
    k.params = {(int64_t)x.dtype, N, C, S, paramFromDouble(n.attrFloat("epsilon", 1e-5)),
                (int64_t)n.inputs[1]->type.dtype, (int64_t)n.inputs[2]->type.dtype,
                (int64_t)n.inputs[3]->type.dtype, (int64_t)n.inputs[4]->type.dtype,
                (int64_t)n.inputs.size(),
                n.hasAttr("_epi_act") ? n.attrInt("_epi_act", 0) + 1 : 0,
                paramFromDouble(n.attrFloat("_epi_alpha", 0.0)), paramFromDouble(n.attrFloat("_epi_beta", 0.0))};
    return k;
  };
  return d;
}());
  return true;
}();

}  // namespace
}  // namespace atc
