// C API over a model built with buildOm: load, describe, run, errors.
#include <unistd.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "kernels/codegen/host_cpu.h"
#include "backend/om_builder.h"
#include "runtime/atc_runtime_c.h"

using namespace atc;

TEST(RuntimeCApi, LoadDescribeRun) {
  Graph g;
  g.name = "capi";
  Value* x = g.newValue("x", TensorType(DType::I32, {5}));
  Value* y = g.newValue("y", TensorType(DType::I32, {5}));
  g.inputs.push_back(x);
  g.addNode("Identity", "id", {x}, {y});
  g.outputs.push_back(y);
  std::vector<uint8_t> om = buildOm(g, BackendOptions(), loadHostTargetProfile("x86-64-v3"));
  std::string path = testing::TempDir() + std::to_string(::getpid()) + "_capi_test.om";
  std::ofstream(path, std::ios::binary).write((const char*)om.data(), (std::streamsize)om.size());

  atc_model* m = atc_model_load(path.c_str(), 2);
  ASSERT_NE(m, nullptr) << atc_last_error();
  EXPECT_EQ(atc_model_num_inputs(m), 1u);
  EXPECT_EQ(atc_model_num_outputs(m), 1u);
  EXPECT_STREQ(atc_model_input_name(m, 0), "x");
  EXPECT_STREQ(atc_model_output_dtype(m, 0), "int32");
  EXPECT_EQ(atc_model_output_rank(m, 0), 1u);
  EXPECT_EQ(atc_model_output_dims(m, 0)[0], 5);
  EXPECT_EQ(atc_model_input_bytes(m, 0), 20u);
  EXPECT_EQ(atc_model_input_name(m, 3), nullptr);
  int32_t in[5] = {1, -2, 3, -4, 5}, out[5] = {0};
  const void* ins[1] = {in};
  void* outs[1] = {out};
  ASSERT_EQ(atc_model_run(m, ins, outs), 0) << atc_last_error();
  for (int i = 0; i < 5; ++i) EXPECT_EQ(out[i], in[i]);
  atc_model_free(m);
  // A verify key refuses this unsigned model before loading it (tests/unit/runtime_signature_test.cpp
  // covers signed ones); no key at all is an error, not an unverified load.
  std::string pub = testing::TempDir() + std::to_string(::getpid()) + "_capi_key.pub.pem";
  std::ofstream(pub) << "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----\n";
  EXPECT_EQ(atc_model_load_verified(path.c_str(), 1, pub.c_str()), nullptr);
  EXPECT_NE(std::string(atc_last_error()).find("not signed"), std::string::npos) << atc_last_error();
  EXPECT_EQ(atc_model_load_verified(path.c_str(), 1, ""), nullptr);
  EXPECT_EQ(atc_model_load_verified(path.c_str(), 1, nullptr), nullptr);
  std::remove(pub.c_str());
  std::remove(path.c_str());

  EXPECT_EQ(atc_model_load("/nonexistent.om", 0), nullptr);
  EXPECT_NE(std::string(atc_last_error()).find("nonexistent"), std::string::npos);
}
