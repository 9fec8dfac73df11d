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

namespace atc {
namespace fuzz {

inline bool strict() {
  static const bool s = [] {
    const char* e = std::getenv("ATC_FUZZ_STRICT");
    return e && *e && *e != '0';
  }();
  return s;
}

// Called from a catch (const std::exception&) handler for a non-ATC exception.
inline void unexpectedException(const std::exception& e) {
  if (!strict()) return;
  std::fprintf(stderr, "fuzz: unexpected exception (not an ATC error): %s\n", e.what());
  std::abort();
}

}  // namespace fuzz
}  // namespace atc
