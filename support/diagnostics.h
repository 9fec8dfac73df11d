// ATC-style errors: a code (E10001...), what was wrong, and what to do.
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

// Shorthand for internal invariants: E19999.
[[noreturn]] inline void internalError(const std::string& msg) {
  throw AtcError("E19999", "Internal error: " + msg,
                 "Report this with the model and the command line.");
}

}  // namespace atc
