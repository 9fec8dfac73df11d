// The step descriptions of a dynamic model's plans, stored once (docs/om-format.md,
// "Step descriptions"): every gear describes the same nodes (name, op type, kernel, the
// names and dtypes of their tensors), and only the shapes differ from gear to gear. A range
// build of BERT-base has 512 plans whose inline descriptions were 60% of a 62 MB TASK_INFO.
#pragma once
#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

namespace atc {

// plans: the gears' plans, steps as planSteps writes them (inline `node`, `type`, `kernel`,
// `fused_from`, `in`, `out`). Each kernel step's description without its shapes moves into
// the returned table (equal ones once) and the step keeps `desc` (its index), `in_shapes` and
// `out_shapes` (per tensor its shape, null where `in` / `out` had null). Control steps stay
// as they are.
nlohmann::json compactStepDescriptions(std::vector<nlohmann::json>& plans, size_t* stepsCompacted);

}  // namespace atc
