// Code generator: compile the 'copy' kernel, load the shared object with the runtime's
// loader, run it (direct and parallel paths); determinism; target profiles.
#include <unistd.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <numeric>

#include "kernels/codegen/host_cpu.h"
#include "support/diagnostics.h"
#include "tests/unit/test_dirs.h"
#include "kernels/codegen/codegen.h"
#include "runtime/atc_rt_abi.h"
#include "runtime/so_loader.h"
#include "runtime/thread_pool.h"

using namespace atc;

namespace {

void runCopy(const std::vector<uint8_t>& so, const char* sym, int64_t bytes, int threads) {
  rt::SharedObject obj(so.data(), so.size());
  auto fn = (AtcKernelEntry)obj.symbol(sym);
  std::vector<uint8_t> src((size_t)bytes), dst((size_t)bytes, 0);
  for (size_t i = 0; i < src.size(); ++i) src[i] = (uint8_t)(i * 7 + 3);
  void* bufs[2] = {src.data(), dst.data()};
  rt::ThreadPool pool(threads);
  fn(bufs, pool.rt());
  EXPECT_EQ(src, dst);
}

}  // namespace

TEST(CodegenCopy, CompilesAndRuns) {
  TargetProfile t = loadHostTargetProfile("native");
  std::vector<KernelInstance> ki = {{"copy", {1000}, "k0"}, {"copy", {(1 << 16) * 5 + 17}, "k1"}};
  std::vector<uint8_t> so = compileKernels(t, ki, CodegenOptions());
  ASSERT_GT(so.size(), 64u);
  EXPECT_EQ(0, memcmp(so.data(), "\x7f" "ELF", 4));
  runCopy(so, "k0", 1000, 1);
  runCopy(so, "k1", (1 << 16) * 5 + 17, 2);  // several tasks: parallel_for path
  runCopy(so, "k1", (1 << 16) * 5 + 17, 1);
}

TEST(CodegenCopy, Deterministic) {
  TargetProfile t = loadHostTargetProfile("x86-64-v3");
  std::vector<KernelInstance> a = {{"copy", {64}, "k1"}, {"copy", {4096}, "k0"}};
  std::vector<KernelInstance> b = {{"copy", {4096}, "k0"}, {"copy", {64}, "k1"}};
  CodegenOptions o1, o2;
  o1.workers = 1;
  o2.workers = 2;
  EXPECT_EQ(compileKernels(t, a, o1), compileKernels(t, b, o2));
}

TEST(CodegenCopy, UnknownKernelIsE20001) {
  try {
    compileKernels(loadHostTargetProfile("x86-64-v3"), {{"no_such_kernel", {}, "k0"}}, CodegenOptions());
    FAIL() << "expected an error";
  } catch (const AtcError& e) {
    EXPECT_EQ(e.code(), "E20001");
    EXPECT_NE(std::string(e.what()).find("no_such_kernel"), std::string::npos);
  }
}

TEST(CodegenTargets, KnownProfiles) {
  auto names = knownTargetNames();
  for (const char* n : {"native", "x86-64-v3", "x86-64-v4"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  TargetProfile v4 = loadHostTargetProfile("x86-64-v4");
  EXPECT_EQ(v4.triple, "x86_64-unknown-linux-gnu");
  EXPECT_EQ(v4.cpu, "x86-64-v4");
  EXPECT_NE(v4.features.find("+avx512f"), std::string::npos);
  EXPECT_TRUE(v4.opInfo.contains("Conv"));
  TargetProfile nat = loadHostTargetProfile("native");
  EXPECT_NE(nat.cpu, "native");
  EXPECT_FALSE(nat.features.empty());
}

TEST(CodegenTargets, UnknownIsE10001) {
  try {
    loadHostTargetProfile("Ascend310");
    FAIL() << "expected an error";
  } catch (const AtcError& e) {
    EXPECT_EQ(e.code(), "E10001");
    std::string m = e.what();
    EXPECT_NE(m.find("Value [Ascend310] for parameter [--soc_version] is invalid"), std::string::npos) << m;
    EXPECT_NE(m.find("x86-64-v3"), std::string::npos) << m;
  }
}

TEST(CodegenTargets, UserProfilesFromEnv) {
  std::string dir = testdirs::make("user_targets");
  std::ofstream(dir + "/mycpu.json") << R"({"triple":"x86_64-unknown-linux-gnu","cpu":"haswell","features":["+avx2"],"op_info":{}})";
  setenv("ATC_TARGETS_PATH", dir.c_str(), 1);
  TargetProfile p = loadHostTargetProfile("mycpu");
  unsetenv("ATC_TARGETS_PATH");
  EXPECT_EQ(p.cpu, "haswell");
  EXPECT_EQ(p.features, "+avx2");
}

// The bfloat16 dot-product path (cube_ukbf.h) follows the features (AVX512-BF16 with 512-bit
// vectors); "bf16_path" may turn it off and may not claim it without the feature.
TEST(CodegenTargets, Bf16PathFollowsTheFeatures) {
  EXPECT_EQ(bf16PathOfFeatures("+avx2,+avx512f,+avx512bf16"), "dpbf16");
  EXPECT_EQ(bf16PathOfFeatures("+avx2,+avx512f,+avx512bf16,-evex512"), "none");
  EXPECT_EQ(bf16PathOfFeatures("+avx2,+avx512f,+avx512bf16,-avx512bf16"), "none");
  EXPECT_EQ(bf16PathOfFeatures("+avx2,+avx512bf16"), "none");
  EXPECT_FALSE(loadHostTargetProfile("x86-64-v4").bf16Dot());
  EXPECT_FALSE(loadHostTargetProfile("x86-64-v4-vnni").bf16Dot());
  TargetProfile z4 = loadHostTargetProfile("znver4");
  EXPECT_TRUE(z4.bf16Dot());
  EXPECT_TRUE(z4.int8Vnni());
  EXPECT_EQ(z4.cubeRows(), 16);

  std::string dir = testdirs::make("bf16_path");
  const std::string head = R"({"triple":"x86_64-unknown-linux-gnu","cpu":"x86-64-v4","features":["+avx2","+avx512f")";
  std::ofstream(dir + "/bfoff.json") << head << R"(,"+avx512bf16"],"bf16_path":"none"})";
  std::ofstream(dir + "/bfclaim.json") << head << R"(],"bf16_path":"dpbf16"})";
  std::ofstream(dir + "/bfbad.json") << head << R"(,"+avx512bf16"],"bf16_path":"amx"})";
  setenv("ATC_TARGETS_PATH", dir.c_str(), 1);
  EXPECT_FALSE(loadHostTargetProfile("bfoff").bf16Dot());
  for (const char* bad : {"bfclaim", "bfbad"}) {
    try {
      loadHostTargetProfile(bad);
      ADD_FAILURE() << bad << ": expected E10003";
    } catch (const AtcError& e) {
      EXPECT_EQ(e.code(), "E10003") << bad;
      EXPECT_NE(std::string(e.what()).find("bf16_path"), std::string::npos) << e.what();
    }
  }
  unsetenv("ATC_TARGETS_PATH");
}

// The profile's vector width selects the cube microkernel family (docs/kernels-cube.md).
TEST(CodegenTargets, VectorWidthSelectsTheMicrokernelFamily) {
  TargetProfile v3 = loadHostTargetProfile("x86-64-v3"), v4 = loadHostTargetProfile("x86-64-v4");
  EXPECT_EQ(v3.vectorBits, 256);
  EXPECT_EQ(v3.cubeRows(), 6);
  EXPECT_EQ(v4.vectorBits, 512);
  EXPECT_EQ(v4.cubeRows(), 16);
  TargetProfile nat = loadHostTargetProfile("native");
  EXPECT_EQ(nat.vectorBits, vectorBitsOfFeatures(nat.features));
  EXPECT_EQ(vectorBitsOfFeatures("+avx2,+avx512f"), 512);
  EXPECT_EQ(vectorBitsOfFeatures("+avx2,+avx512f,-evex512"), 256);
  EXPECT_EQ(vectorBitsOfFeatures("+avx2,-avx512f"), 256);
  EXPECT_EQ(vectorBitsOfFeatures(""), 256);

  std::string dir = testdirs::make("vector_bits");
  std::ofstream(dir + "/v4narrow.json")
      << R"({"triple":"x86_64-unknown-linux-gnu","cpu":"x86-64-v4","features":["+avx2","+avx512f"],"vector_bits":256})";
  std::ofstream(dir + "/bad512.json")
      << R"({"triple":"x86_64-unknown-linux-gnu","cpu":"haswell","features":["+avx2"],"vector_bits":512})";
  std::ofstream(dir + "/bad384.json")
      << R"({"triple":"x86_64-unknown-linux-gnu","cpu":"haswell","features":["+avx2"],"vector_bits":384})";
  setenv("ATC_TARGETS_PATH", dir.c_str(), 1);
  EXPECT_EQ(loadHostTargetProfile("v4narrow").cubeRows(), 6);
  for (const char* bad : {"bad512", "bad384"}) {
    try {
      loadHostTargetProfile(bad);
      ADD_FAILURE() << bad << ": expected E10003";
    } catch (const AtcError& e) {
      EXPECT_EQ(e.code(), "E10003") << bad;
      EXPECT_NE(std::string(e.what()).find("vector_bits"), std::string::npos) << e.what();
    }
  }
  unsetenv("ATC_TARGETS_PATH");
}

// The int8 path of QDQ models follows the features: vnni512 (AVX512-VNNI with 512-bit vectors),
// else vnni256 (AVX-VNNI), else avx2, else none; "int8_path" may turn it off, may take avx2 on any
// AVX2 target and may not claim another.
TEST(CodegenTargets, Int8PathFollowsTheFeatures) {
  EXPECT_EQ(int8PathOfFeatures("+avx2,+avx512f,+avx512vnni"), "vnni512");
  EXPECT_EQ(int8PathOfFeatures("+avx2,+avx512f,+avx512vnni,-evex512"), "avx2");
  EXPECT_EQ(int8PathOfFeatures("+avx2,+avxvnni"), "vnni256");
  EXPECT_EQ(int8PathOfFeatures("+avx2,+avxvnni,-avxvnni"), "avx2");
  EXPECT_EQ(int8PathOfFeatures("+avx2,+fma"), "avx2");
  EXPECT_EQ(int8PathOfFeatures("+avx2,-avx2,+sse4.2"), "none");
  EXPECT_EQ(int8PathOfFeatures("+sse4.2,+popcnt"), "none");
  EXPECT_EQ(int8PathOfFeatures("+avx2,+avx512f,+avx512vnni,+amx-tile,+amx-int8"), "amx");
  EXPECT_EQ(int8PathOfFeatures("+avx2,+avx512f,+avx512vnni,+amx-tile,+amx-int8,-amx-int8"), "vnni512");
  EXPECT_EQ(bf16PathOfFeatures("+avx512f,+avx512bf16,+amx-tile,+amx-bf16"), "amx");
  EXPECT_EQ(bf16PathOfFeatures("+avx512f,+avx512bf16,+amx-bf16"), "dpbf16");
  const TargetProfile spr = loadHostTargetProfile("sapphirerapids");
  EXPECT_EQ(spr.int8Path, "amx");
  EXPECT_TRUE(spr.int8Amx() && spr.int8Vnni());
  EXPECT_EQ(spr.int8PathCode(), 1);
  EXPECT_EQ(spr.bf16Path, "amx");
  EXPECT_TRUE(spr.bf16Amx() && spr.bf16Dot());
  EXPECT_EQ(loadHostTargetProfile("x86-64-v3").int8Path, "avx2");
  EXPECT_EQ(loadHostTargetProfile("x86-64-v3").int8PathCode(), 4);
  EXPECT_EQ(loadHostTargetProfile("x86-64-v3-vnni").int8Path, "vnni256");
  EXPECT_EQ(loadHostTargetProfile("x86-64-v3-vnni").int8PathCode(), 2);
  EXPECT_EQ(loadHostTargetProfile("x86-64-v4-vnni").int8PathCode(), 1);

  std::string dir = testdirs::make("int8_path");
  const std::string head = R"({"triple":"x86_64-unknown-linux-gnu","cpu":"x86-64-v3","features":["+avx2")";
  std::ofstream(dir + "/i8off.json") << head << R"(,"+avxvnni"],"int8_path":"none"})";
  std::ofstream(dir + "/i8v256.json") << R"({"triple":"x86_64-unknown-linux-gnu","cpu":"x86-64-v4",)"
                                      << R"("features":["+avx2","+avx512f","+avx512vnni","+avxvnni"],"vector_bits":256})";
  std::ofstream(dir + "/i8claim.json") << head << R"(,"+avxvnni"],"int8_path":"vnni512"})";
  std::ofstream(dir + "/i8bad.json") << head << R"(],"int8_path":"amx"})";
  std::ofstream(dir + "/i8wide.json") << head << R"(,"+avxvnni"],"int8_path":"avx2"})";
  std::ofstream(dir + "/i8sse.json") << R"({"triple":"x86_64-unknown-linux-gnu","cpu":"x86-64-v2",)"
                                     << R"("features":["+sse4.2"],"int8_path":"avx2"})";
  const std::string sprHead = R"({"triple":"x86_64-unknown-linux-gnu","cpu":"sapphirerapids","features":["+avx2",)"
                              R"("+avx512f","+avx512vnni","+avx512bf16","+amx-tile","+amx-int8","+amx-bf16"])";
  std::ofstream(dir + "/amxvec.json") << sprHead << R"(,"int8_path":"vnni512","bf16_path":"dpbf16"})";
  std::ofstream(dir + "/bfamxbad.json") << R"({"triple":"x86_64-unknown-linux-gnu","cpu":"x86-64-v4",)"
                                        << R"("features":["+avx512f","+avx512bf16"],"bf16_path":"amx"})";
  setenv("ATC_TARGETS_PATH", dir.c_str(), 1);
  EXPECT_EQ(loadHostTargetProfile("i8off").int8Path, "none");
  EXPECT_EQ(loadHostTargetProfile("i8v256").int8Path, "vnni256");
  EXPECT_EQ(loadHostTargetProfile("i8wide").int8Path, "avx2");  // an AVX-VNNI target kept to vpmaddwd
  EXPECT_EQ(loadHostTargetProfile("i8wide").int8PathCode(), 4);
  const TargetProfile amxVec = loadHostTargetProfile("amxvec");  // an AMX target kept to vector code
  EXPECT_EQ(amxVec.int8Path, "vnni512");
  EXPECT_FALSE(amxVec.int8Amx());
  EXPECT_EQ(amxVec.bf16Path, "dpbf16");
  EXPECT_FALSE(amxVec.bf16Amx());
  for (const char* bad : {"i8claim", "i8bad", "i8sse", "bfamxbad"}) {
    try {
      loadHostTargetProfile(bad);
      ADD_FAILURE() << bad << ": expected E10003";
    } catch (const AtcError& e) {
      EXPECT_EQ(e.code(), "E10003") << bad;
      EXPECT_NE(std::string(e.what()).find("int8_path"), std::string::npos) << e.what();
    }
  }
  unsetenv("ATC_TARGETS_PATH");
}
