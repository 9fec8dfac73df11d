// --op_select_implmode, --optypelist_for_implmode and --op_precision_mode (ini) parsing
// (docs/implmode.md). Fills ImplModeOptions; passes/implmode resolves them per node.
#pragma once
#include <functional>
#include <string>

#include "passes/pass_options.h"

namespace atc {

// Reads the three options (isGiven/val: the command-line accessors of options.cpp).
// Throws AtcError E10001 on invalid values, E10003 on a missing/unreadable ini.
void parseImplModeOptions(const std::function<bool(const std::string&)>& isGiven,
                          const std::function<std::string(const std::string&)>& val, ImplModeOptions& opts);

// Parses op_precision.ini text into opts.byOpType / byNodeName (file: for messages).
void parseOpPrecisionIni(const std::string& text, const std::string& file, ImplModeOptions& opts);

}  // namespace atc
