// atc-opt: LLVM's opt for atc's IR. Reads an IR text file (ir/printer.h), runs the named
// passes in order with atc's options, and prints the IR:
//   atc-opt [--passes=a,b,...] [atc options...] FILE.ir
//   atc-opt --list-passes
// Without --passes, the file's "// passes:" line names them; its "// options:" line adds
// atc options (before those of the command line). The options are atc's (parsed by the
// same parser, so --precision_mode, --fusion_switch_file, --op_precision_mode... apply);
// --soc_version loads that target profile for the passes (none: no op-info). The default
// precision mode is must_keep_origin_dtype. Used by the golden tests (tests/golden).
#pragma once
#include <ostream>

namespace atc {

// Returns the exit code; the IR goes to `out`, errors (ATC error blocks) to `err`.
int runAtcOptCommandLine(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace atc
