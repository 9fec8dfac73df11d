// fusion_result.json (--export_compile_stat): per graph, the graph-fusion and UB-fusion
// passes that ran with their counters as strings, in ATC's shape:
//   {"session_and_graph_id_0_0": {"graph_fusion": {"Pass": {"effect_times": "1",
//    "match_times": "1"}}, "ub_fusion": {"Pass": {..., "repository_hit_times": "0"}}}}
// Passes switched off are absent. Written to ./fusion_result.json, or to
// $ASCEND_WORK_PATH/FE/<pid>/fusion_result.json when ASCEND_WORK_PATH is set.
#pragma once
#include <string>
#include <vector>

#include "passes/pass_manager.h"

namespace atc {

// The JSON text (indent 4, trailing newline).
std::string fusionResultJson(const std::vector<PassRecord>& records, int session = 0, int graph = 0);
// Where the file goes (creates $ASCEND_WORK_PATH/FE/<pid> when needed).
std::string fusionResultPath();
// Writes the file; failures are warnings (the build goes on).
void writeFusionResult(const std::vector<PassRecord>& records);

}  // namespace atc
