// C++ API of the runtime: load an .om, describe its inputs/outputs, run it.
// A Model is not safe to run from several threads at once (one arena per model).
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace atc {
namespace rt {

class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A step of Model::run failed: a fault signal inside its kernel, a write outside its buffers
// (a model built with `oom`), or inf/NaN in its outputs (a model built with --status_check=1).
// The message names the op; dumpDir is where its tensors were dumped ("" when not dumped).
class KernelError : public RuntimeError {
 public:
  KernelError(const std::string& msg, size_t step, std::string node, std::string type, std::string dumpDir)
      : RuntimeError(msg), step(step), node(std::move(node)), type(std::move(type)), dumpDir(std::move(dumpDir)) {}
  size_t step;
  std::string node, type, dumpDir;
};

struct TensorDesc {
  std::string name;
  std::string dtype;        // "float32", "float16", "int64", ... (ir/dtype.h names)
  int32_t dtypeCode = 0;    // ir/dtype.h DType value
  std::vector<int64_t> shape;
  uint64_t bytes = 0;       // numel * element size
  // An output whose shape depends on input values (NonZero, TopK with a run-time k...): shape
  // and bytes are its upper bound (what a caller provides); Model::lastOutputs() has the shape
  // each run gave (docs/dynamic-shapes.md, "Outputs whose shape depends on data").
  bool shapeFromData = false;
  // An output whose size each run decides, with no static bound (Expand, Resize, OneHot... with a
  // run-time shape; docs/dynamic-shapes.md, "Run-sized values"): shape has -1 for the dims
  // not known before a run and bytes is 0. It lives in the runtime's memory: run() takes a null
  // pointer for it, outputData() gives its data and lastOutputs() its shape after each run.
  bool runSized = false;
  // A sequence made at run time (docs/frontend-onnx.md, "Sequences at run time"): the output
  // itself is an int64 handle; Model::sequenceOutput() gives its tensors after each run.
  bool sequence = false;
  std::string shapeString() const;  // "[1,3,224,224]"
};

// Element size for a dtype name; 0 if unknown.
size_t dtypeSizeByName(const std::string& dtype);

struct LoadOptions {
  int threads = 0;        // total threads used by kernels (0 = number of cores)
  std::string verifyKey;  // an Ed25519 public key (PEM file): refuse a model it did not sign
};

// One kernel launch of the plan, as the data dump and the profiler see it (docs/debugging.md).
struct StepTensor {
  TensorDesc desc;              // the graph value's name, dtype, shape and bytes
  const void* data = nullptr;   // where it lives while the model runs; null: absent or not described
};
struct StepInfo {
  size_t index = 0;
  std::string node;                    // the node (a fused kernel: the node that produced its output)
  std::string type;                    // its op type
  std::string kernel;                  // the kernel template it calls
  std::vector<std::string> fusedFrom;  // the source nodes a fused kernel absorbed (empty: just `node`)
  int64_t flops = 0;                   // multiply-add work of a cube op (2 per MAC); 0: not counted
  std::vector<StepTensor> inputs, outputs;  // empty for an .om built before step descriptions
};

// Called around the steps of Model::run (one at a time, in plan order). beforeStep sees the
// inputs before an in-place kernel overwrites them; afterStep gets the step's wall time.
// `run` counts the calls of Model::run since the observer was set, from 0.
class StepObserver {
 public:
  virtual ~StepObserver() = default;
  virtual void beginRun(int64_t run) { (void)run; }
  virtual void beforeStep(int64_t run, const StepInfo& step) { (void)run, (void)step; }
  virtual void afterStep(int64_t run, const StepInfo& step, double seconds) { (void)run, (void)step, (void)seconds; }
  virtual void endRun(int64_t run) { (void)run; }
};

// One gear of a dynamic model (atc --dynamic_batch_size / --dynamic_image_size /
// --dynamic_dims; docs/dynamic-shapes.md): the values of the -1 dims, and the input and output
// descriptions of that gear. A static model has one gear with no dims.
struct GearDesc {
  std::vector<int64_t> dims;
  std::vector<TensorDesc> inputs, outputs;
};

// A range build (atc --input_shape="x:1,1~512", docs/dynamic-shapes.md, "Ranges"): an input's
// lowest and highest shape; the model accepts every shape between them (one gear each).
struct InputRange {
  std::string name;
  std::vector<int64_t> min, max;
};

class Model {
 public:
  // threads: total threads used by kernels (0 = number of cores). load() reads the file into
  // read-only pages and uses its weights in place; loadFromMemory() copies them.
  static std::unique_ptr<Model> load(const std::string& path, int threads = 0);
  static std::unique_ptr<Model> load(const std::string& path, const LoadOptions& o);
  static std::unique_ptr<Model> loadFromMemory(const uint8_t* data, size_t size, int threads = 0,
                                               const std::string& what = "model");
  static std::unique_ptr<Model> loadFromMemory(const uint8_t* data, size_t size, const LoadOptions& o,
                                               const std::string& what = "model");
  // Every check of a load (header, checksum, signature with o.verifyKey, plan, CPU features,
  // kernel library bounds) without allocating the arena or mapping any code. Throws RuntimeError.
  static void check(const uint8_t* data, size_t size, const LoadOptions& o = {}, const std::string& what = "model");
  ~Model();

  // The inputs and outputs of the current gear (a static model's only one).
  const std::vector<TensorDesc>& inputs() const;
  const std::vector<TensorDesc>& outputs() const;

  // Gears: "" for a static model, else "batch", "image_size", "dims" or "range" (a gear per
  // shape of the ranges). Every gear shares the weights, the arena (sized for the largest gear)
  // and the kernel library.
  const std::string& dynamicKind() const;
  const std::vector<GearDesc>& gears() const;
  // A range build's ranges, one per input in --input_shape order (empty for other models).
  const std::vector<InputRange>& inputRanges() const;
  size_t gear() const;
  // Makes gear i current (RuntimeError when out of range, or while a step observer, set up
  // for the current gear's steps, is attached). Cheap: nothing is allocated.
  void setGear(size_t i);
  // The gear whose inputs have exactly these shapes (one per input, in order), or whose dims
  // are these values (findGearByDims). RuntimeError naming every accepted shape when none does.
  size_t findGear(const std::vector<std::vector<int64_t>>& inputShapes) const;
  size_t findGearByDims(const std::vector<int64_t>& dims) const;
  // "gear 0 (batch 1): x[1,3,224,224]; gear 1 (batch 2): x[2,3,224,224]" for messages.
  std::string acceptedShapes() const;
  const std::string& name() const;
  const std::string& socVersion() const;
  int threads() const;
  uint64_t arenaBytes() const;

  // inputs[i] points to inputs()[i].bytes bytes; outputs[i] to outputs()[i].bytes bytes, or is
  // null (not copied; read it with outputData). A runSized output's pointer must be null.
  void run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs);
  // Output i of the current gear's last run where the model keeps it (its lastOutputs()[i].bytes
  // bytes), valid until the next run, setGear or unload.
  const void* outputData(size_t i) const;
  // The outputs of the current gear's last run: outputs() with the actual shape and bytes of
  // each shapeFromData output (its data fills the first `bytes` of the caller's buffer).
  // Before a run, outputs() itself.
  const std::vector<TensorDesc>& lastOutputs() const;
  // The tensors of sequence output i (outputs()[i].sequence) on the last run, named "y[0]",
  // "y[1]", ... after the output; empty when it held none. Valid until the next run.
  const std::vector<StepTensor>& sequenceOutput(size_t i) const;

  // The current gear's steps, in execution order.
  const std::vector<StepInfo>& steps() const;
  // Not owned; nullptr removes it. Resets the run counter.
  void setStepObserver(StepObserver* observer);

  // Exception dump (docs/debugging.md): with a folder, kernels run guarded against fault
  // signals and a step that fails (a fault, or a check the model was built with) has its
  // tensors written under DIR/<model>/<step>_<node>/ before run() throws KernelError. ""
  // (the default) turns the guard off; the built-in checks still stop the run.
  void setExceptionDump(const std::string& dir);
  // The checks compiled into the model: --status_check=1 and the `oom` red-zone size (0: none).
  bool statusCheck() const;
  uint64_t oomRedzone() const;
  bool oomBoundsCheck() const;  // kernels built with compiled load/store bounds checks

  struct Impl;

 private:
  Model();
  std::unique_ptr<Impl> impl_;
};

}  // namespace rt
}  // namespace atc
