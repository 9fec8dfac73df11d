// --op_select_implmode, --optypelist_for_implmode and --op_precision_mode (ini) parsing
// (docs/implmode.md). Fills CompileOptions; passes/implmode resolves them per node.
#pragma once
#include <functional>
#include <string>

#include "atc/compile_options.h"

namespace atc {

// Reads the three options (isGiven/val: the command-line accessors of options.cpp).
// Throws AtcError E10001 on invalid values, E10003 on a missing/unreadable ini.
void parseImplModeOptions(const std::function<bool(const std::string&)>& isGiven,
                          const std::function<std::string(const std::string&)>& val, CompileOptions& opts);

// Parses op_precision.ini text into opts.implByOpType / implByNodeName (file: for messages).
void parseOpPrecisionIni(const std::string& text, const std::string& file, CompileOptions& opts);

}  // namespace atc
