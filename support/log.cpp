#include "support/log.h"

#include <cstdio>

namespace atc {

namespace {
LogLevel g_level = LogLevel::Null;

const char* levelTag(LogLevel l) {
  switch (l) {
    case LogLevel::Debug: return "DEBUG";
    case LogLevel::Info: return "INFO";
    case LogLevel::Warning: return "WARNING";
    case LogLevel::Error: return "ERROR";
    case LogLevel::Null: return "NULL";
  }
  return "INFO";
}
}  // namespace

void setLogLevel(LogLevel level) { g_level = level; }
LogLevel logLevel() { return g_level; }
bool logEnabled(LogLevel level) { return level != LogLevel::Null && (int)level >= (int)g_level; }

void logMessage(LogLevel level, const std::string& text) {
  if (!logEnabled(level)) return;
  std::string line = std::string("[") + levelTag(level) + "] " + text + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace atc
