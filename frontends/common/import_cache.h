// What the imports of one model share when it is imported once per shape (the gears and
// ranges of a dynamic build, docs/dynamic-shapes.md): the model parsed once, without its
// initializers' bytes, and the initializers as tensors, so that every shape's graph reads the
// same constant objects (the backend then packs each weight once and stores it once).
// Constants are never written after import (ops/native_eval.cpp checks kernels for it).
#pragma once
#include <map>
#include <memory>
#include <string>

#include "ir/tensor.h"

namespace atc {

struct ImportCache {
  std::map<std::string, TensorPtr> constants;  // the initializers (TF: Const values), by name
  std::shared_ptr<const void> model;           // the frontend's parsed model (ONNX: onnx::ModelProto)
};

// t, or the equal tensor an earlier import cached under this name (a frontend that parses the
// model again per shape, TF: the values are compared, so a name reused for other bytes is safe).
inline TensorPtr internConstant(ImportCache* cache, const std::string& name, TensorPtr t) {
  if (!cache || !t) return t;
  auto it = cache->constants.find(name);
  if (it == cache->constants.end()) {
    cache->constants.emplace(name, t);
    return t;
  }
  const Tensor& c = *it->second;
  if (c.type.dtype == t->type.dtype && c.type.shape == t->type.shape && c.data == t->data) return it->second;
  return t;
}

}  // namespace atc
