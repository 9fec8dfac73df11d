// Shared by fuzz_onnx and fuzz_tf: what atc does between the frontend and code generation
// (atc/driver.cpp runCompile: the imported graph's input checks, then runDefaultPipeline with
// a target profile). No LLVM code generation: it costs seconds per input.
#pragma once
#include <memory>

#include "ir/graph.h"
#include "passes/pass_manager.h"
#include "passes/pass_registry.h"
#include "target/target_profile.h"

namespace atc {
namespace fuzz {

// A built-in profile (no host CPU query): "x86-64-v4-vnni" has F16C, as atc's usual targets,
// and an int8 path, so QdqConvFoldPass rewrites QDQ convs (the passes do not depend on the
// vector width otherwise; lowering is not part of this pipeline).
inline const TargetProfile& profile() {
  static const TargetProfile t = loadTargetProfile("x86-64-v4-vnni", HostCpu{});
  return t;
}

// tf: also the TF-only passes atc switches on for --framework=3 (the layout pass and, as
// with --enable_scope_fusion_passes, every scope fusion pass).
inline PassOptions pipelineOptions(bool tf) {
  PassOptions o;
  o.precision.mode = PrecMode::ForceFp16;  // atc's default --precision_mode
  if (tf) {
    o.enabledPasses.push_back("TfLayoutSinkingPass");
    for (const PassInfo& p : allPasses())
      if (std::string(p.group) == "scope_fusion") o.enabledPasses.push_back(p.name);
  }
  return o;
}

// The driver's checks on the imported graph's inputs (atc/driver.cpp checkStaticInputs
// throws E10002 / E10041 there), then the default pipeline.
inline void runPipeline(Graph& g, bool tf) {
  for (const Value* in : g.inputs)
    if (!in->type.sizeFits() || !in->type.isStatic()) return;
  static const PassOptions onnxOpts = pipelineOptions(false), tfOpts = pipelineOptions(true);
  runDefaultPipeline(g, tf ? tfOpts : onnxOpts, &profile());
}

}  // namespace fuzz
}  // namespace atc
