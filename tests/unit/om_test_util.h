// Helpers of the .om loader tests: a load that must fail, and crafted plans (TASK_INFO edited
// and the file rewritten with a valid checksum, as an attacker can).
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/atc_runtime.h"
#include "runtime/om_format.h"

namespace atc {
namespace omtest {

// Loading must fail with a RuntimeError whose message contains `needle`.
inline void expectError(const std::vector<uint8_t>& bytes, const std::string& needle) {
  try {
    rt::Model::loadFromMemory(bytes.data(), bytes.size(), 1, "m.om");
    ADD_FAILURE() << "expected an error containing " << needle;
  } catch (const rt::RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// The file with partition `type` edited.
inline std::vector<uint8_t> rewrite(const std::vector<uint8_t>& om1, uint32_t type,
                                    const std::function<void(std::vector<uint8_t>&)>& edit) {
  om::OmView v = om::parseOm(om1.data(), om1.size());
  std::vector<std::pair<uint32_t, std::vector<uint8_t>>> parts;
  for (auto& p : v.partitions) {
    std::vector<uint8_t> b(om1.begin() + (long)p.offset, om1.begin() + (long)(p.offset + p.size));
    if (p.type == type) edit(b);
    parts.emplace_back(p.type, std::move(b));
  }
  return om::writeOm(v.header, parts);
}

// The file with its plan (TASK_INFO, unpacked from its zstd frame) edited.
inline std::vector<uint8_t> editPlan(const std::vector<uint8_t>& om1,
                                     const std::function<void(nlohmann::json&)>& edit) {
  om::OmView v = om::parseOm(om1.data(), om1.size());
  auto j = nlohmann::json::parse(v.partString(om::kTaskInfo));
  edit(j);
  return rewrite(om1, om::kTaskInfo, [&](std::vector<uint8_t>& b) { b = om::packJson(j.dump()); });
}

// The plan's first step of control kind `control` ("loop_begin", "seq_insert"...).
inline nlohmann::json& stepOf(nlohmann::json& j, const std::string& control) {
  for (auto& s : j["steps"])
    if (s.value("control", std::string()) == control) return s;
  throw std::runtime_error("no " + control + " step");
}

}  // namespace omtest
}  // namespace atc
