// The task plan's loop control steps (ops/control/loop_ops.cpp, docs/om-format.md "Loop
// steps"): a LoopBegin or LoopEnd node as a step the runtime carries out itself, with every
// argument's byte count so the runtime can check and copy them.
#pragma once
#include <nlohmann/json.hpp>

#include "backend/buffer_plan.h"
#include "backend/lowering.h"

namespace atc {

nlohmann::json loopControlStep(const LoweredNode& L, BufferPlan& bp);
// Sets "end" on each loop_begin step and "begin" on each loop_end step (indexes in steps).
void pairLoopSteps(nlohmann::json& steps);

}  // namespace atc
