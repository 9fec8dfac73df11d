// The --log messages (stderr, "[INFO] ..."), gated by a process-wide level. Any layer may log.
#pragma once
#include <string>

namespace atc {

enum class LogLevel { Debug = 0, Info = 1, Warning = 2, Error = 3, Null = 4 };

// The process-wide --log level (default Null: nothing but atc's console lines).
void setLogLevel(LogLevel level);
LogLevel logLevel();
bool logEnabled(LogLevel level);
// Prints "[LEVEL] text" to stderr when the level is enabled.
void logMessage(LogLevel level, const std::string& text);
inline void logDebug(const std::string& t) { logMessage(LogLevel::Debug, t); }
inline void logInfo(const std::string& t) { logMessage(LogLevel::Info, t); }
inline void logWarning(const std::string& t) { logMessage(LogLevel::Warning, t); }
inline void logError(const std::string& t) { logMessage(LogLevel::Error, t); }

}  // namespace atc
