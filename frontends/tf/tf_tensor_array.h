// TF1 TensorArrays (TensorArrayV3 and its Scatter, Read, Write, Gather, Size, Concat, Split,
// Close; the V2 names too) resolved at compile time, as while loops are unrolled
// (tf_while.h): an array is a list of IR values, one per element. Each op that changes it
// gives a new "flow" value (what TF threads through the loop), to which the importer ties
// the list as it stands after the op; reads look the list up by the flow they are given.
// Indices and sizes must fold to constants (frontends/common/import_eval.h), else E19010.
// Elements are taken out with Gather and stacked with Unsqueeze + Concat, so the passes
// see ordinary ops.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "frontends/common/import_eval.h"
#include "frontends/tf/tf_convert.h"

namespace atc {
namespace tffe {

class TensorArrays {
 public:
  static bool isTensorArrayOp(const std::string& op);
  // Converts one TensorArray op (no input dead); returns its outputs.
  std::vector<Value*> convert(TfCtx& ctx, frontend::ImportEval& ev);

 private:
  using Elems = std::vector<Value*>;  // null: not written yet
  struct Array {
    std::string name;
    bool dynamicSize = false;
  };

  std::vector<Value*> create(TfCtx& ctx, frontend::ImportEval& ev);
  std::vector<Value*> scatter(TfCtx& ctx, frontend::ImportEval& ev, const std::string& kind);
  std::vector<Value*> write(TfCtx& ctx, frontend::ImportEval& ev);
  std::vector<Value*> read(TfCtx& ctx, frontend::ImportEval& ev);
  std::vector<Value*> gather(TfCtx& ctx, frontend::ImportEval& ev, const std::string& kind);

  const Array& arrayOf(TfCtx& ctx, size_t input);
  const Elems& elemsOf(TfCtx& ctx, size_t input);
  Value* newFlow(TfCtx& ctx, Elems elems);
  Value* element(TfCtx& ctx, const Elems& e, int64_t i);
  static std::vector<int64_t> foldInts(TfCtx& ctx, frontend::ImportEval& ev, size_t input, const std::string& what);

  std::vector<Array> arrays_;
  std::map<const Value*, size_t> handles_;  // handle value -> array
  std::map<const Value*, Elems> flows_;     // flow value -> the elements as they stand
};

}  // namespace tffe
}  // namespace atc
