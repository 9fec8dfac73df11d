// What atc prints: the start/success/failure lines and error blocks of ATC's console
// (stdout), and the --log messages (stderr, "[INFO] ..."), gated by the --log level.
#pragma once
#include <ostream>
#include <string>

#include "atc/compile_options.h"
#include "ir/error.h"

namespace atc {

constexpr const char* kStartMessage = "ATC start working now, please wait for a moment.";
constexpr const char* kSuccessMessage = "ATC run success, welcome to the next use.";
constexpr const char* kFailureMessage =
    "ATC run failed, Please check the detail log, Try 'atc --help' for more information";

// The process-wide --log level (default Null: nothing but the console lines).
void setLogLevel(LogLevel level);
LogLevel logLevel();
bool logEnabled(LogLevel level);
// Prints "[LEVEL] text" to stderr when the level is enabled.
void logMessage(LogLevel level, const std::string& text);
inline void logDebug(const std::string& t) { logMessage(LogLevel::Debug, t); }
inline void logInfo(const std::string& t) { logMessage(LogLevel::Info, t); }
inline void logWarning(const std::string& t) { logMessage(LogLevel::Warning, t); }
inline void logError(const std::string& t) { logMessage(LogLevel::Error, t); }

// "E10001: <message>\n        Solution: <solution>\n" (no Solution line if empty).
std::string formatErrorBlock(const AtcError& e);
// The failure line then the error block.
void printFailure(std::ostream& os, const AtcError& e);

}  // namespace atc
