// Helpers shared by the folds of QdqConvFoldPass (qdq_fold_util.h).
#include "passes/quant/qdq_fold_util.h"

#include "passes/fusion/fusion_util.h"

namespace atc {

std::string qdqInputBlocker(const Node* dx) {
  if (!dx) return "its input does not come from DequantizeLinear";
  const DType t = dx->inputs[0]->type.dtype;
  if (t != DType::U8 && t != DType::I8) return "its input is not uint8 or int8";
  if (!qdqIsConst(dx->input(1), DType::F32) || dx->inputs[1]->type.numel() != 1)
    return "the input scale is not one float32 constant";
  if (const Value* z = dx->input(2))
    if (!z->isConstant() || z->type.dtype != t || z->type.numel() != 1) return "the input zero point is not one constant";
  return "";
}

bool qdqSameQuantParams(const Node* q, const Node* dq) {
  for (size_t i : {(size_t)1, (size_t)2}) {
    const Value *a = q->input(i), *b = dq->input(i);
    if (!a && !b) continue;
    if (!a || !b || !a->isConstant() || !b->isConstant() || a->type.dtype != b->type.dtype ||
        a->type.numel() != 1 || b->type.numel() != 1)
      return false;
    if (a->constant->data != b->constant->data) return false;
  }
  return true;
}

TensorPtr qdqFloatVector(const std::vector<double>& v) {
  auto t = std::make_shared<Tensor>(TensorType(DType::F32, {(int64_t)v.size()}));
  for (size_t i = 0; i < v.size(); ++i) t->as<float>()[i] = (float)v[i];
  return t;
}

Value* qdqKernelInput(Node* dx, Node** q) {
  *q = fu::producerOf(dx->inputs[0], "QuantizeLinear");
  if (*q && (*q)->inputs[0]->type.dtype == DType::F32 && qdqSameQuantParams(*q, dx)) return (*q)->inputs[0];
  *q = nullptr;
  return dx->inputs[0];
}

}  // namespace atc
