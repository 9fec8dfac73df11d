// atc's command line: ATC's gflags-style options (--name=value or --name value) parsed with
// CLI11 into AtcOptions. Every option of the ATC reference is recognised; those this
// version does not implement are refused by name when given (never silently ignored).
#pragma once
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "atc/atc_options.h"
#include "frontends/import_options.h"

namespace atc {

enum class OptionStatus { Implemented, NotImplemented };

struct OptionSpec {
  const char* name;      // without the leading "--"
  const char* group;     // help section
  OptionStatus status;
  // For NotImplemented options: values that ask for exactly what this version does anyway
  // (the documented default), accepted. Empty: any value is refused.
  std::vector<std::string> acceptedValues;
  const char* help;
};

// The table of recognised options, in help order.
const std::vector<OptionSpec>& atcOptionTable();
const OptionSpec* findOptionSpec(const std::string& name);

// Parses argv into opts (opts.cmdline = the whole command line) and validates it.
// Returns false when --help was asked for (the help text is written to helpOut).
// Throws AtcError: E10001 invalid/unknown/unimplemented, E10002 --input_shape,
// E10007 required option missing, E10010 --log, E10054 --soc_version empty,
// E10056 --precision_mode with --precision_mode_v2.
bool parseCommandLine(int argc, const char* const* argv, AtcOptions& opts, std::ostream& helpOut);

// Pieces, public for tests.
// "name:1,3,224,224;name2:...", scalar "name:". Fills opts.inputShapes/inputShapeOrder.
// dynamicOption: the dynamic gear option given ("" = none): -1 dims are allowed with one, and
// a shape range with one is E10009.
// ranges: receives the "lo~hi" dims (given as -1 in opts); option: the option's name in messages,
// "input_shape_range" also takes ATC's bracketed dims ("name:[1~16,3,224,224]").
void parseInputShape(const std::string& text, ImportOptions& opts, const std::string& dynamicOption = "",
                     ShapeRanges* ranges = nullptr, const std::string& option = "input_shape");
// "node:0;node2:1" or ONNX output names ("out1;out2"): (name, index or -1).
std::vector<std::pair<std::string, int>> parseOutNodes(const std::string& text);
// debug, info, warning, error, null (E10010 otherwise).
LogLevel parseLogLevel(const std::string& text);
// The help text.
std::string atcHelpText();

}  // namespace atc
