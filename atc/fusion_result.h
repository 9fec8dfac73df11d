// fusion_result.json (--export_compile_stat): per graph, the graph-fusion and UB-fusion
// passes that ran with their counters as strings, in ATC's shape:
//   {"session_and_graph_id_0_0": {"graph_fusion": {"Pass": {"effect_times": "1",
//    "match_times": "1"}}, "ub_fusion": {"Pass": {..., "repository_hit_times": "0"}}}}
// repository_hit_times counts the pass's fused kernels found in the kernel cache (only known
// after code generation: always 0 with --export_compile_stat=2).
// Passes switched off are absent. Written to ./fusion_result.json, or to
// $ASCEND_WORK_PATH/FE/<pid>/fusion_result.json when ASCEND_WORK_PATH is set.
#pragma once
#include <string>
#include <vector>

#include "passes/compile_report.h"

namespace atc {

// The JSON text (indent 4, trailing newline).
std::string fusionResultJson(const std::vector<PassRecord>& records, int session = 0, int graph = 0);
// repository_hit_times: per UB fusion pass, the nodes it made (attribute _ub_pass = pass
// name) whose kernel the kernel cache served (report.nodeHit, filled by the backend).
void countRepositoryHits(const Graph& g, const KernelCacheReport& report,
                         std::vector<PassRecord>& records);
// Where the file goes (creates $ASCEND_WORK_PATH/FE/<pid> when needed).
std::string fusionResultPath();
// Writes the file; failures are warnings (the build goes on).
void writeFusionResult(const std::vector<PassRecord>& records);

}  // namespace atc
