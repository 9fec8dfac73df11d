#include "support/diagnostics.h"

namespace atc {

AtcError invalidParamError(const std::string& param, const std::string& value, const std::string& reason,
                           const std::string& solution) {
  return AtcError("E10001", "Value [" + value + "] for parameter [--" + param + "] is invalid. Reason: " + reason,
                  solution);
}

void invalidParam(const std::string& param, const std::string& value, const std::string& reason,
                  const std::string& solution) {
  throw invalidParamError(param, value, reason, solution);
}

void invalidValue(const std::string& what, const std::string& value, const std::string& reason,
                  const std::string& solution) {
  throw AtcError("E10001", "Value [" + value + "] for " + what + " is invalid. Reason: " + reason, solution);
}

void invalidParamCode(const char* code, const std::string& param, const std::string& value, const std::string& reason,
                      const std::string& solution) {
  throw AtcError(code, "Value [" + value + "] for parameter [--" + param + "] is invalid. Reason: " + reason, solution);
}

void invalidFileContent(const std::string& where, const std::string& reason, const std::string& solution) {
  throw AtcError("E10003", "The content of " + where + " is invalid. Reason: " + reason, solution);
}

void requiredParam(const std::string& param, const std::string& solution) {
  throw AtcError("E10007", "Argument [--" + param + "] is required.", solution);
}

void modelLoadFailed(const std::string& path, const std::string& reason, const std::string& solution) {
  throw AtcError("E10041", "Failed to load the model from [" + path + "]. Reason: " + reason, solution);
}

void internalError(const std::string& msg) {
  throw AtcError("E19999", "Internal error: " + msg, "Report this with the model and the command line.");
}

}  // namespace atc
