// ATC-style errors: a code (E10001...), what was wrong, and what to do. The bottom layer:
// every other layer reports errors through these. One helper per error code keeps each
// code's message shape in one place (the ATC reference, §"error codes").
#pragma once
#include <stdexcept>
#include <string>

namespace atc {

class AtcError : public std::runtime_error {
 public:
  AtcError(std::string code, std::string message, std::string solution = "")
      : std::runtime_error(code + ": " + message),
        code_(std::move(code)), message_(std::move(message)), solution_(std::move(solution)) {}
  const std::string& code() const { return code_; }
  const std::string& message() const { return message_; }
  const std::string& solution() const { return solution_; }

 private:
  std::string code_, message_, solution_;
};

// E10001 "Value [v] for parameter [--p] is invalid. Reason: r" (invalidParamError: the error
// itself, for code that collects or rethrows it).
AtcError invalidParamError(const std::string& param, const std::string& value, const std::string& reason,
                           const std::string& solution);
[[noreturn]] void invalidParam(const std::string& param, const std::string& value, const std::string& reason,
                               const std::string& solution);
// E10001 "Value [v] for <what> is invalid. Reason: r" (what: "environment variable [X]"...).
[[noreturn]] void invalidValue(const std::string& what, const std::string& value, const std::string& reason,
                               const std::string& solution);
// The same message shape under the codes of particular parameters: E10002 (--input_shape),
// E10004 (empty file option), E10010 (--log).
[[noreturn]] void invalidParamCode(const char* code, const std::string& param, const std::string& value,
                                   const std::string& reason, const std::string& solution);
// E10003 "The content of <where> is invalid. Reason: r".
[[noreturn]] void invalidFileContent(const std::string& where, const std::string& reason, const std::string& solution);
// E10007 "Argument [--p] is required."
[[noreturn]] void requiredParam(const std::string& param, const std::string& solution);
// E10041 "Failed to load the model from [path]. Reason: r".
[[noreturn]] void modelLoadFailed(const std::string& path, const std::string& reason, const std::string& solution);
// E19999: internal invariants.
[[noreturn]] void internalError(const std::string& msg);

}  // namespace atc
