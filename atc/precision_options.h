// Precision options: --precision_mode(_v2), --modify_mixlist, --keep_dtype, --customize_dtypes,
// --input_fp16_nodes, --output_type. Command-line checks and the file formats: each file is
// read and parsed once here into PrecisionOptions; the decisions themselves are made by
// passes/precision (docs/precision.md).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "passes/pass_options.h"

namespace atc {

// The mode named by --precision_mode / --precision_mode_v2 (values already checked).
PrecMode precisionModeFromNames(const std::string& precisionMode, const std::string& precisionModeV2);

// Called by parseCommandLine after the mode: checks, reads and parses the others into po.
void parsePrecisionCliOptions(const std::function<bool(const std::string&)>& isGiven,
                              const std::function<std::string(const std::string&)>& val, PrecisionOptions& po);

// File formats (where: the file, for messages). Throw AtcError E10003 on bad content.
MixlistMods parseMixlistText(const std::string& text, const std::string& where);
std::vector<PrecLine> parseKeepDtypeText(const std::string& text, const std::string& where);
std::vector<PrecLine> parseCustomizeDtypesText(const std::string& text, const std::string& where);
OutputTypeSpec parseOutputType(const std::string& text);
std::vector<std::string> parseInputFp16Nodes(const std::string& text);

}  // namespace atc
