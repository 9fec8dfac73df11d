// Folders for unit tests: unique (mkdtemp) under gtest's temp dir, and removed with everything
// in them when the test binary exits, so that test runs leave nothing behind in /tmp.
#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace atc {
namespace testdirs {

inline std::vector<std::string>& madeDirs() {
  struct Registry {
    std::vector<std::string> dirs;
    ~Registry() {
      for (auto& d : dirs) {
        std::error_code ec;
        std::filesystem::remove_all(d, ec);
      }
    }
  };
  static Registry r;
  return r.dirs;
}

// A new empty folder, e.g. /tmp/atc_cache.Ab12Cd for tag "cache".
inline std::string make(const std::string& tag) {
  std::string tmpl = testing::TempDir() + "atc_" + tag + ".XXXXXX";
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp " + tmpl + " failed");
  madeDirs().push_back(tmpl);
  return tmpl;
}

}  // namespace testdirs
}  // namespace atc
