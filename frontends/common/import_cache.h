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
  std::map<std::string, TensorPtr> constants;  // the initializers, by name
  std::shared_ptr<const void> model;           // the frontend's parsed model (ONNX: onnx::ModelProto)
};

}  // namespace atc
