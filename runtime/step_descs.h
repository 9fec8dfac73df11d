// Step descriptions (names, op types, tensors) for the data dump, the profiler and the checks
// (docs/om-format.md, "Step descriptions"). A plan with `step_descs` (a dynamic model) stores
// each node's description once and each gear's shapes apart: the loader keeps the shapes
// packed and builds a gear's StepInfos the first time something asks for them.
#pragma once
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/atc_runtime.h"
#include "runtime/plan_buffer.h"

namespace atc {
namespace rt {

// d: a description (a step's own keys, or a step_descs entry): node, type, kernel,
// fused_from, and per tensor of `in` / `out` its name and dtype, shapes left empty (an absent
// tensor: an empty StepTensor).
StepInfo describeNames(const nlohmann::json& d);

// A step's shapes from in_shapes / out_shapes, packed: per tensor (inputs, then outputs) its
// rank then its dims, -1 for an absent tensor.
std::vector<int64_t> packShapes(const nlohmann::json& s);
void unpackShapes(const std::vector<int64_t>& packed, StepInfo& info);

// Each described tensor's bytes and data: where it lives while the model runs, if its declared
// size fits its buffer (argIds: the step's buffer per argument, -1 absent). A tensor that does
// not fit, lives in a run-sized buffer or has its shape from data (its shape is a bound; past
// its actual size the buffer holds what earlier steps left) is described without data, so that
// a crafted description cannot make a dump read outside the arena.
void attachTensorData(StepInfo& info, const std::vector<int64_t>& argIds, const std::vector<PlanBuffer>& bufs,
                      const uint8_t* arena, const uint8_t* weights);

}  // namespace rt
}  // namespace atc
