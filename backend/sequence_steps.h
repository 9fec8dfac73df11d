// The task plan's sequence control steps (ops/control/sequence_ops.cpp, docs/om-format.md
// "Sequence steps"): a node on a sequence made at run time as a step the runtime carries out
// itself, with what it needs to copy each tensor into its sequence store.
#pragma once
#include <nlohmann/json.hpp>

#include "backend/buffer_plan.h"
#include "backend/lowering.h"

namespace atc {

nlohmann::json sequenceControlStep(const LoweredNode& L, BufferPlan& bp);

}  // namespace atc
