// TF1 TensorArrays (TensorArrayV3 and its Scatter, Read, Write, Gather, Size, Concat, Split,
// Close; the V2 names too) resolved at compile time, as while loops are unrolled
// (tf_while.h): an array is a list of IR values, one per element. Each op that changes it
// gives a new "flow" value (what TF threads through the loop), to which the importer ties
// the list as it stands after the op; reads look the list up by the flow they are given.
// Indices and sizes must fold to constants (frontends/common/import_eval.h), else E19010.
// Elements are taken out with Gather and stacked with Unsqueeze + Concat, so the passes
// see ordinary ops.
// In a loop that runs at run time (tf_while.h: dynamic_rnn over a sequence_length fed at run
// time), an array's indices are the loop counter: the array the loop carries is a dense tensor
// [size, element dims...] (unwritten elements zero, as TF's stack gives them), written with
// ScatterND and read with Gather; a loop-invariant array read at a run-time index is stacked
// into one tensor once and read with Gather. Every element then needs one static type.
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
  // A TensorArray flow (what a loop carries for an array).
  bool isFlow(const Value* v) const { return flows_.count(v) != 0 || dense_.count(v) != 0; }
  // The dense tensor standing for flow `flow` in a loop that runs at run time; `probe`: the
  // flow the body gave on the loop's first values (to learn the element type from a write).
  Value* denseFlow(TfCtx& ctx, Value* flow, Value* probe);
  // v stands for an array as dense flow `like` does (a loop's body input or final value).
  void adoptDense(Value* v, const Value* like) { dense_[v] = dense_.at(like); }
  bool isDense(const Value* v) const { return dense_.count(v) != 0; }

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

  Value* stacked(TfCtx& ctx, const Elems& e, const TensorType& elem);
  static TensorType elementType(TfCtx& ctx, const Elems& e, const Elems* probe);

  struct Dense {
    int64_t size = 0;
    TensorType elem;
  };
  std::vector<Array> arrays_;
  std::map<const Value*, size_t> handles_;  // handle value -> array
  std::map<const Value*, Elems> flows_;     // flow value -> the elements as they stand
  std::map<const Value*, Dense> dense_;     // a dense flow value (the tensor itself) -> its shape
  std::map<const Value*, Value*> stackedOf_;  // a list flow read at a run-time index -> its stack
};

}  // namespace tffe
}  // namespace atc
