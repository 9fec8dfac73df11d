// BitCast (opset 26): input 0's bytes as another element type of the same bit width, same
// shape. Like Reshape it aliases its input (dm::copyInput0; constant folding re-types the
// bytes). Sub-byte types are held one per byte (ir/dtype.h): int4 / int2 sign-extended, the
// others zero-extended, so a BitCast between int4 / int2 and a zero-extended type of their width
// would need the high bits changed: refused.
#include "ops/datamove/datamove_util.h"

namespace atc {
namespace {

void inferBitCast(Graph&, Node& n) {
  if (!n.hasAttr("to")) opError(n, "attribute 'to' is required");
  const DType from = n.inputs[0]->type.dtype;
  const DType to = dtypeFromOnnxCode(n.attrInt("to", 0));
  if (to == DType::Undefined) opError(n, "unsupported target type " + std::to_string(n.attrInt("to", 0)));
  if (dtypeBits(from) != dtypeBits(to))
    opError(n, std::string("BitCast needs types of one bit width: ") + dtypeName(from) + " has " +
                   std::to_string(dtypeBits(from)) + " bits, " + dtypeName(to) + " " + std::to_string(dtypeBits(to)));
  const bool sext = from == DType::I4 || from == DType::I2;
  const bool sextTo = to == DType::I4 || to == DType::I2;
  if (dtypeBits(from) < 8 && sext != sextTo)
    opError(n, std::string("BitCast between ") + dtypeName(from) + " and " + dtypeName(to) +
                   " is not supported (atc holds them in different byte forms)");
  n.outputs[0]->type = n.inputs[0]->type;
  n.outputs[0]->type.dtype = to;
}

ATC_REGISTER_OP([] {
  OpDef d;
  d.type = "BitCast";
  d.category = OpCategory::DataMove;
  d.infer = inferBitCast;
  d.lower = [](LowerCtx& c) { return dm::copyInput0(c.node); };
  d.aliasesInput0 = true;
  d.storesF16AndBf16(1);  // bytes moved as they are
  return d;
}());

}  // namespace
}  // namespace atc
