// How the fuzz targets treat exceptions. atc::AtcError (and RuntimeError for the runtime's
// readers) is the expected way to refuse an input. Another std::exception is caught by the
// atc driver and shown as "E19999 Internal error: <what>": not a crash, but a poor message;
// with ATC_FUZZ_STRICT=1 in the environment such an exception aborts, so the fuzzer saves
// the input. Anything else (a signal, a sanitizer report, a leak, a timeout, an allocation
// over -rss_limit_mb / -malloc_limit_mb) is a finding in any case.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <set>
#include <string>

namespace atc {
namespace fuzz {

inline bool strict() {
  static const bool s = [] {
    const char* e = std::getenv("ATC_FUZZ_STRICT");
    return e && *e && *e != '0';
  }();
  return s;
}

// Called from a catch (const std::exception&) handler for a non-ATC exception. Without
// ATC_FUZZ_STRICT each distinct message is printed once ("fuzz: non-ATC exception: ...",
// listed by scripts/fuzz.sh) and fuzzing goes on.
inline void unexpectedException(const std::exception& e) {
  if (strict()) {
    std::fprintf(stderr, "fuzz: unexpected exception (not an ATC error): %s\n", e.what());
    std::abort();
  }
  static std::set<std::string> seen;
  if (seen.size() < 100 && seen.insert(e.what()).second)
    std::fprintf(stderr, "fuzz: non-ATC exception: %s\n", e.what());
}

}  // namespace fuzz
}  // namespace atc
