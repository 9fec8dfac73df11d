// What atc prints on stdout: the start/success/failure lines and error blocks of ATC's
// console. (--log messages: support/log.h.)
#pragma once
#include <ostream>
#include <string>

#include "support/diagnostics.h"
#include "support/log.h"

namespace atc {

constexpr const char* kStartMessage = "ATC start working now, please wait for a moment.";
constexpr const char* kSuccessMessage = "ATC run success, welcome to the next use.";
constexpr const char* kFailureMessage =
    "ATC run failed, Please check the detail log, Try 'atc --help' for more information";

// "E10001: <message>\n        Solution: <solution>\n" (no Solution line if empty).
std::string formatErrorBlock(const AtcError& e);
// The failure line then the error block.
void printFailure(std::ostream& os, const AtcError& e);

}  // namespace atc
