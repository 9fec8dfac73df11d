// Helpers for pass tests: run one registered pass directly on a graph.
#pragma once
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "atc/compile_options.h"
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
  static atc::CompileOptions opts;
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

}  // namespace atc_test
