// atc --mode=1 --om=X.om --json=X.json: the model definition of an .om as JSON, with the
// per-node precision decisions (dtypes, implementation mode, reason) gathered in
// "precision_decisions". Also the --log=info summary table of those decisions.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "ir/graph.h"

namespace atc {

// The JSON of an .om's MODEL_DEF plus "precision_decisions" and the partition sizes.
nlohmann::json omToJson(const std::string& omPath);
// Writes omToJson(omPath) to jsonPath (E10041 if the .om cannot be read, E10001 if the JSON
// file cannot be written).
void writeOmJson(const std::string& omPath, const std::string& jsonPath);
// atc --mode=6 --om=X.om (and --display_model_info=1 after a build): ATC's model summary
// (system, resource and partition info) plus the gears of a dynamic model.
std::string omInfoText(const std::string& omPath);
// Table of the precision decisions of the graph's nodes (node, type, in, out, impl, reason).
std::string precisionSummaryTable(const Graph& g);

}  // namespace atc
