// The compile driver: options -> ONNX import -> pass pipeline -> target profile -> .om.
#pragma once
#include <ostream>
#include <string>

#include "atc/atc_options.h"
#include "passes/compile_report.h"

namespace atc {

// Builds opts.output.output + ".om". Checks the output folder and the model file before the
// long work; writes a temporary and renames it, so a failed build leaves neither an .om nor
// a temporary file. What the build did goes to *report when given. Throws AtcError.
void runCompile(const AtcOptions& opts, CompileReport* report = nullptr);

// Checks that the folder of the --output prefix exists and is writable (E10001).
void checkOutputPath(const std::string& output);
// Checks that the model file exists and is a readable regular file (E10041).
void checkModelFile(const std::string& model);
// Writes an output file atomically (support/file_io.h; the temporary is removed on SIGINT,
// SIGTERM, SIGHUP). Throws AtcError E10001 naming the output on failure.
void writeOutputFile(const std::string& path, const void* data, size_t size);

// The whole atc program: console lines on `out`, help, option parsing, the build, and
// every error turned into ATC's failure block. Returns the exit code (0 or 1).
int runAtcCommandLine(int argc, const char* const* argv, std::ostream& out);

}  // namespace atc
