// The op table: one row per op type. An op is defined in one file under ops/
// (see docs/adding-an-op.md): its schema, shape/dtype inference, category and lowering to a
// kernel of the kernel library (kernels/lib). Passes and the driver read this table; no
// pass switches on op names for these properties.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "support/diagnostics.h"

namespace atc {

enum class OpCategory {
  Elementwise,  // unary/binary/ternary element-wise, broadcasting
  Reduce,       // reductions, softmax-like, normalisations
  Cube,         // Conv, ConvTranspose, MatMul, Gemm (matrix engine ops)
  Pool,         // pooling windows
  DataMove,     // reshape/transpose/concat/slice/gather...: moves data, no arithmetic
  Shape,        // produces shape metadata (Shape, Size)
  Misc,
};
const char* opCategoryName(OpCategory c);

// A call of one kernel of the kernel library. bufs passed to the kernel are the node's
// inputs (absent optional inputs: nullptr) then its outputs, then a workspace if any.
struct KernelCall {
  std::string kernel;            // library kernel name, e.g. "conv2d" (symbols atck_conv2d_*)
  std::vector<int64_t> params;   // flat int64 parameters (floats via paramFromDouble)
  int64_t workspaceBytes = 0;    // scratch memory for the call (0 = none)
  // The kernel sizes its run-sized outputs (isRunSized) itself: called with such an output's
  // pointer null, it writes that output's dims into its dims slot (bufs after the outputs and
  // the workspace, one per run-sized output) and nothing else; the runtime then allocates the
  // output and calls it again (docs/dynamic-shapes.md, "Run-sized values").
  bool sizesOutputs = false;
  // The kernel reads run-sized inputs: their dims from their slots, which follow the outputs'
  // slots in bufs (one per run-sized input, in input order). Element-wise ops get this from
  // eltwiseOverRunSized; other readers of run-sized values are refused unless they set it.
  bool readsRunSized = false;
  // Inputs indices the kernel actually reads (default: all). Lowering may rewrite constant
  // inputs (e.g. pack weights) with replaceConstInput.
};

inline int64_t paramFromDouble(double d) {
  int64_t r;
  static_assert(sizeof(r) == sizeof(d), "");
  __builtin_memcpy(&r, &d, 8);
  return r;
}

// Packed copies shared by the graphs of one build (the shapes of a range, the gears), whose
// constants are the same tensor objects (frontends/common/import_cache.h): (source, how) ->
// (source, packed); the source is held so that its address never names another tensor. A
// packing's `how` names every input of it besides the source (the weights' geometry, the
// target's panel width), never the activations' shapes, so every graph may reuse it.
struct PackCache {
  std::map<std::pair<const Tensor*, std::string>, std::pair<TensorPtr, TensorPtr>> packed;
};

// State shared by the lowering of a whole graph (backend/lowering.cpp): how many nodes
// still read each value, so that a constant replaced by a packed copy everywhere is freed at
// once (atc's peak memory), and the packed copies already made, so that nodes reading the
// same constant the same way share one.
struct LowerState {
  std::map<const Value*, int> uses;            // node inputs + graph outputs
  std::map<std::pair<const Tensor*, std::string>, Value*> packed;
  PackCache* shared = nullptr;                 // the other graphs' packed copies (null: none)
  // A shape-range build (docs/dynamic-shapes.md, "Ranges"): constant layouts (packed weight
  // panels) must not depend on the ranged dims, or every shape would store its own copy.
  bool rangeBuild = false;
};

class LowerCtx {
 public:
  LowerCtx(Graph& g, Node& n, LowerState* st = nullptr) : graph(g), node(n), state(st) {}
  Graph& graph;
  Node& node;
  LowerState* state;
  // Rows of the cube microkernel and of its packed weight panels (kernels/lib/cube_gemm.h):
  // TargetProfile::cubeRows() of the target being compiled for (6: 256-bit family, 16: 512-bit).
  int cubeRows = 6;
  // TargetProfile::int8PathCode() of the target: the int8 kernels' accumulation (0 portable
  // int32 code, 1 512-bit vpdpbusd, 2 256-bit vpdpbusd).
  int int8Path = 0;
  // TargetProfile::int8Amx() of the target: int8 matrix products on AMX tiles.
  bool int8Amx = false;
  // TargetProfile::bf16Dot() of the target: bfloat16 cube operands may use vdpbf16ps.
  bool bf16Dot = false;
  // TargetProfile::bf16Amx() of the target: the wide bfloat16 MatMul/Gemm tiles on AMX.
  bool bf16Amx = false;
  // LowerState::rangeBuild: choose packed layouts that do not depend on the activations' shapes.
  bool rangeBuild() const { return state && state->rangeBuild; }
  // Replaces constant input i of this node by a new constant (only this node sees it). When
  // no node reads the old constant any more, its data is freed. `how` (optional) names the
  // transformation (the packing and its parameters): a later node that asks packedInput with
  // the same constant and `how` shares the result.
  void replaceConstInput(size_t i, TensorPtr data, const std::string& how = "");
  // True (and input i replaced) when an earlier node packed this constant the same way.
  bool usePackedInput(size_t i, const std::string& how);
};

struct OpDef {
  std::string type;
  OpCategory category = OpCategory::Misc;
  int minInputs = 1, maxInputs = 1;    // maxInputs -1 = variadic
  int minOutputs = 1, maxOutputs = 1;
  // Sets the types of node.outputs from the inputs' types and attributes (and constant
  // input data where the output shape depends on it). May set output->constant when the
  // value is known from types alone (Shape, Size). Throws AtcError on invalid nodes.
  std::function<void(Graph&, Node&)> infer;
  // Chooses the kernel and its parameters. Null for ops that must be rewritten away
  // before lowering. Shapes are static when this is called.
  std::function<KernelCall(LowerCtx&)> lower;
  // Output i aliases input 0 bytes unchanged (Reshape, Flatten, Squeeze, Identity...):
  // the planner may share the buffer instead of copying.
  bool aliasesInput0 = false;
  // Narrow float dtypes (float16, bfloat16) the op's kernels also store, converting to float32
  // on load and rounding on store: what the precision passes may choose for an op that the
  // target's op_info does not list (docs/precision.md, "Ops the op-info does not list").
  // Empty: such an op keeps its model dtype. The first reducedInputs inputs follow the chosen
  // dtype (-1: every float input); later ones keep theirs (BatchNormalization's statistics).
  std::vector<DType> reducedFloats;
  int reducedInputs = -1;
  // When set, a node takes reducedFloats (or, for an op the op-info lists, its float16 and
  // bfloat16) only where this returns true (FusedEltwise: when every fused op type declares
  // narrow storage itself; Conv: when its weights are constant).
  std::function<bool(const Node&)> narrowIf;
  // reducedFloats = float16 and bfloat16 (usable inside ATC_REGISTER_OP, which a braced list breaks).
  void storesF16AndBf16(int inputs = -1) {
    reducedFloats = {DType::F16, DType::BF16};
    reducedInputs = inputs;
  }
  // Made by the compiler's passes only (FusedEltwise, FusedAttention, QuantizedConv): the
  // frontends refuse it in a model (its inputs would be trusted as the pass left them).
  bool internal = false;
  // Infers and lowers nodes reading run-sized values (isRunSized, ir/graph.h) besides
  // element-wise ops: Shape, Size, Slice. inferNode refuses other readers with E19010.
  bool readsRunSized = false;
};

class OpRegistry {
 public:
  static OpRegistry& instance();
  void add(OpDef def);
  const OpDef* find(const std::string& type) const;
  std::vector<std::string> types() const;  // sorted

 private:
  std::vector<OpDef> defs_;
};

struct OpRegistrar {
  explicit OpRegistrar(OpDef def) { OpRegistry::instance().add(std::move(def)); }
};

#define ATC_OP_CONCAT_(a, b) a##b
#define ATC_OP_CONCAT(a, b) ATC_OP_CONCAT_(a, b)
// Usage (in ops/<group>/<op>.cpp):
//   ATC_REGISTER_OP([] { OpDef d; d.type = "Relu"; ...; return d; }())
#define ATC_REGISTER_OP(expr) \
  static ::atc::OpRegistrar ATC_OP_CONCAT(atc_op_registrar_, __LINE__)(expr)

// Throws E19010 for an unregistered op type, E19999 when the node's input/output counts do not
// fit its op (required inputs absent included). Passes may then index the required inputs.
void checkArity(const Node& n);
// E19010 for node n reading the run-sized value `in` (docs/dynamic-shapes.md), which its op
// cannot read: inferNode and the lowering throw it.
AtcError runSizedReaderError(const Node& n, const Value& in);
// Runs the op's inference on one node (checks input/output counts first).
void inferNode(Graph& g, Node& n);
// Runs inference on every node in order (graph must be topologically sorted).
void inferGraph(Graph& g);

// Common helpers for op definitions.
Shape broadcastShapes(const std::vector<Shape>& shapes, const Node& n);  // numpy rules
int64_t normalizeAxis(int64_t axis, int64_t rank, const Node& n);
[[noreturn]] void opError(const Node& n, const std::string& what);  // E19999-style invalid node

}  // namespace atc
