#include "atc/console.h"

#include <cstdio>
#include <iostream>

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

std::string formatErrorBlock(const AtcError& e) {
  std::string s = e.code() + ": " + e.message() + "\n";
  if (!e.solution().empty()) s += "        Solution: " + e.solution() + "\n";
  return s;
}

void printFailure(std::ostream& os, const AtcError& e) {
  os << kFailureMessage << "\n" << formatErrorBlock(e);
  os.flush();
}

}  // namespace atc
