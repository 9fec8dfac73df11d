// Helpers for pass tests: run one registered pass directly on a graph.
#pragma once
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "passes/pass_options.h"
#include "ir/op_registry.h"
#include "ir/printer.h"
#include "passes/pass_registry.h"

namespace atc_test {

inline bool opsRegistered(std::initializer_list<const char*> ops, std::string* missing) {
  for (const char* op : ops)
    if (!atc::OpRegistry::instance().find(op)) {
      *missing = op;
      return false;
    }
  return true;
}

// Skips the test when one of the ops is not registered yet.
#define ATC_REQUIRE_OPS(...)                                                     \
  do {                                                                           \
    std::string missing_;                                                        \
    if (!atc_test::opsRegistered({__VA_ARGS__}, &missing_))                      \
      GTEST_SKIP() << "op " << missing_ << " is not registered yet";             \
  } while (0)

struct PassRun {
  bool changed = false;
  atc::PassStats stats;
};

inline PassRun runPass(const std::string& name, atc::Graph& g) {
  static atc::PassOptions opts;
  const atc::PassInfo* p = atc::findPass(name);
  EXPECT_NE(p, nullptr) << name;
  PassRun r;
  if (!p) return r;
  atc::PassContext ctx(opts);
  ctx.passName = name;
  r.changed = p->run(g, ctx);
  r.stats = ctx.stats;
  return r;
}

// ---- golden IR-text cases (tests/golden/**: NAME.before.ir / NAME.after.ir) ----------------
inline std::string readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The words after `key` on every line of text that starts with key ("// passes: a b").
inline std::vector<std::string> words(const std::string& text, const std::string& key) {
  std::vector<std::string> r;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    std::istringstream ws(line.substr(key.size()));
    std::string w;
    while (ws >> w) r.push_back(w);
  }
  return r;
}

// Sorted NAMEs of the NAME.before.ir files in dir.
inline std::vector<std::string> goldenCases(const std::string& dir) {
  std::vector<std::string> r;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      const std::string suffix = ".before.ir";
      if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
        r.push_back(n.substr(0, n.size() - suffix.size()));
    }
    closedir(d);
  }
  std::sort(r.begin(), r.end());
  return r;
}

}  // namespace atc_test
