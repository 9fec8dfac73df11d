// Cast (attribute "to": an ONNX TensorProto data type) and CastLike (type of input 1).
// Every pair of numeric/bool dtypes: the conversion is the eltwise kernel's load/store; pairs
// with a cast-only format (ir/dtype.h) take kernel cast_lp.
// float -> integer saturates (NaN -> 0); float -> bool is x != 0; fp16/bf16 round to
// nearest even.
#include "kernels/lib/math_dtype.h"
#include "ops/datamove/datamove_util.h"
#include "ops/elementwise/eltwise_common.h"

namespace atc {
namespace {

// Compute type that converts `from` to `to` exactly where the target can hold the value.
int64_t castComputeType(DType from, DType to) {
  if (from == DType::F64 || to == DType::F64) return ATCK_CT_F64;
  if (isFloat(from) || isFloat(to)) return ATCK_CT_F32;
  if (from == DType::U64 || to == DType::U64) return ATCK_CT_U64;
  return ATCK_CT_I64;
}

// Cast and CastLike: equal dtypes are a byte copy of input 0. CastLike's second input (the
// dtype donor) is in bufs too, so its output is bufs[2]: dm::copyInput0 names it (the plain
// "copy" kernel writes bufs[1], which overwrote the donor and left the output unwritten).
// A cast-only format on either side (float8, float4, int4, uint4, int2, uint2): kernel cast_lp
// (kernels/lib/cast_lp.cpp) with Cast's saturate (float8 targets) and round_mode (E8M0 targets).
KernelCall lowerCastLowPrecision(const Node& n, DType from, DType to) {
  const std::string rm = n.attrString("round_mode", "up");
  if (rm != "up" && rm != "down" && rm != "nearest")
    opError(n, "round_mode must be \"up\", \"down\" or \"nearest\", not \"" + rm + "\"");
  KernelCall k;
  k.kernel = "cast_lp";
  k.params = {n.inputs[0]->type.numel(), (int64_t)from, (int64_t)to, n.attrInt("saturate", 1) ? 1 : 0,
              rm == "up" ? 0 : rm == "down" ? 1 : 2, (int64_t)n.inputs.size()};
  return k;
}

KernelCall lowerCast(LowerCtx& c) {
  const Node& n = c.node;
  DType from = n.inputs[0]->type.dtype, to = n.outputs[0]->type.dtype;
  if (from == to && !n.inputs[0]->shapeFromData) return dm::copyInput0(n);  // else eltwise_ds copies the dims
  if (isCastOnly(from) || isCastOnly(to)) return lowerCastLowPrecision(n, from, to);
  return makeEltwiseCall(c.node, ATCK_E_COPY, {n.inputs[0]}, n.outputs[0]->type, castComputeType(from, to));
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "Cast";
  d.category = OpCategory::Elementwise;
  d.infer = [](Graph&, Node& n) {
    if (!n.hasAttr("to")) opError(n, "attribute 'to' is required");
    DType to = dtypeFromOnnxCode(n.attrInt("to", 0));
    if (to == DType::Undefined)
      opError(n, "unsupported target type " + std::to_string(n.attrInt("to", 0)));
    n.outputs[0]->type = n.inputs[0]->type;
    n.outputs[0]->type.dtype = to;
  };
  d.lower = lowerCast;
  return d;
}());

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "CastLike";
  d.category = OpCategory::Elementwise;
  d.minInputs = d.maxInputs = 2;
  d.infer = [](Graph&, Node& n) {
    n.outputs[0]->type = n.inputs[0]->type;
    n.outputs[0]->type.dtype = n.inputs[1]->type.dtype;
  };
  d.lower = lowerCast;
  return d;
}());

}  // namespace
}  // namespace atc
