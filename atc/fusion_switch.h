// --fusion_switch_file: which graph-fusion / UB-fusion passes are on or off.
// Two accepted forms (docs/fusion.md):
//   JSON  {"Switch":{"GraphFusion":{"ALL":"off","SoftmaxFusionPass":"on"},"UBFusion":{...}}}
//   lines PassName:off   (also ALL:off; '#' comments and blank lines ignored)
// Values are only "on"/"off"; duplicates, malformed files and other values are E10003 errors.
// Exact names beat ALL. Names of passes we do not have are warnings (ATC users' files name
// NPU-only passes). Passes that cannot be switched off stay on.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "passes/pass_options.h"

namespace atc {

struct FusionSwitches {
  // Per section ("GraphFusion", "UBFusion"; the line form fills both): ALL value (empty =
  // not given) and exact names -> on/off.
  std::map<std::string, std::string> allValue;
  std::map<std::string, std::map<std::string, bool>> exact;
  std::vector<std::string> unknownNames;  // named passes we do not have
};

// Parses the text of a switch file (path for messages). Throws AtcError E10003.
FusionSwitches parseFusionSwitchText(const std::string& text, const std::string& path);
// Reads and parses the file (E10001 when it cannot be read).
FusionSwitches loadFusionSwitchFile(const std::string& path);
// Applies the switches to opts.disabledPasses / opts.enabledPasses using the pass
// registry; warns for unknown names and for passes that cannot be switched off.
void applyFusionSwitches(const FusionSwitches& sw, PassOptions& opts);

}  // namespace atc
