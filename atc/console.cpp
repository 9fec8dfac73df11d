#include "atc/console.h"

namespace atc {

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
