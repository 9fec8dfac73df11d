// The checks atc compiles into a model and the exception dump (docs/debugging.md): an `oom`
// build names the op whose kernel writes one element past its output; --status_check=1 names
// the first op that makes an inf; a kernel that faults becomes a KernelError naming the op,
// with its tensors dumped, and the process goes on. Each model is built and run for real.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>

#include "backend/om_builder.h"
#include "ir/op_registry.h"
#include "kernels/codegen/host_cpu.h"
#include "runtime/atc_runtime.h"
#include "runtime/step_checks.h"
#include "tests/unit/test_dirs.h"

using namespace atc;

namespace {

// "fill" with 1.0f of one float32 element more than the output holds: a kernel with an
// off-by-one.
// "copy" of input 0 into bufs[1], which is input 1 (a weight here): a write to read-only memory.
// "copy" of an output's bytes from a smaller input: a read past the end of the input.
const bool kTestOpsRegistered = [] {
  OpDef d;
  d.type = "TestCopyPastEnd";
  d.category = OpCategory::Misc;
  d.infer = [](Graph&, Node& n) { n.outputs[0]->type = n.inputs[0]->type; };
  d.lower = [](LowerCtx& c) { return KernelCall{"fill", {4, c.node.outputs[0]->type.numel() + 1, 0x3f800000, 1}}; };
  OpRegistry::instance().add(d);
  OpDef w = d;
  w.type = "TestWriteInput1";
  w.minInputs = w.maxInputs = 2;
  w.lower = [](LowerCtx& c) { return KernelCall{"copy", {c.node.outputs[0]->type.byteSize()}}; };
  OpRegistry::instance().add(w);
  // "copy" of as many bytes as the output holds from an input half its size: a read past the
  // end of input 0 (red zones cannot see reads).
  OpDef r = d;
  r.type = "TestReadPastEnd";
  r.infer = [](Graph&, Node& n) {
    Shape s = n.inputs[0]->type.shape;
    s[0] *= 2;
    n.outputs[0]->type = TensorType(n.inputs[0]->type.dtype, s);
  };
  r.lower = [](LowerCtx& c) { return KernelCall{"copy", {c.node.outputs[0]->type.byteSize()}}; };
  OpRegistry::instance().add(r);
  return true;
}();

TensorPtr floats(Shape s, const std::vector<float>& v) {
  auto t = std::make_shared<Tensor>(TensorType(DType::F32, s));
  for (size_t i = 0; i < v.size(); ++i) t->as<float>()[i] = v[i];
  return t;
}

std::vector<uint8_t> build(Graph& g, bool statusCheck, int64_t redzone, bool boundsCheck = false) {
  inferGraph(g);
  BackendOptions o;
  o.cmdline = "test";
  o.statusCheck = statusCheck;
  o.oomRedzone = redzone;
  o.oomBoundsCheck = boundsCheck;
  return buildOm(g, o, loadHostTargetProfile("native"));
}

// x[15] -> Relu(before) -> TestCopyPastEnd(overrun) -> Relu(after) -> y. 15 floats: the
// overrun lands in the 64-byte slot's slack when nothing checks it.
std::vector<uint8_t> buildOverrunModel(int64_t redzone, bool boundsCheck = false) {
  Graph g;
  g.name = "overrun";
  g.opsetVersion = 17;
  Value* x = g.newValue("x", TensorType(DType::F32, {15}));
  g.inputs.push_back(x);
  Value *a = g.newValue("a"), *b = g.newValue("b"), *y = g.newValue("y");
  g.addNode("Relu", "before", {x}, {a});
  g.addNode("TestCopyPastEnd", "overrun", {a}, {b});
  g.addNode("Relu", "after", {b}, {y});
  g.outputs = {y};
  return build(g, false, redzone, boundsCheck);
}

std::string tempDir(const std::string& tag) { return testdirs::make(tag); }

bool exists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

}  // namespace

// An `oom` build (atc's op_debug_config oom: compiled bounds checks and red zones): the store
// past the output traps before it happens; the run stops at the op with its tensors dumped.
TEST(RuntimeDebugChecks, OomBuildStopsTheStorePastTheOutputAndNamesTheOp) {
  ASSERT_TRUE(kTestOpsRegistered);
  std::vector<uint8_t> plain = buildOverrunModel(0), oom = buildOverrunModel(256, true);
  EXPECT_NE(plain, oom);
  float x[15], y[15];
  for (int i = 0; i < 15; ++i) x[i] = (float)i - 7;
  // Without the check: the usual kernels, the overrun goes unseen.
  auto m0 = rt::Model::loadFromMemory(plain.data(), plain.size(), 1);
  EXPECT_EQ(m0->oomRedzone(), 0u);
  EXPECT_FALSE(m0->oomBoundsCheck());
  m0->run({x}, {y});
  for (int i = 0; i < 15; ++i) EXPECT_EQ(y[i], 1.f) << i;
  // With it: the run stops at the op, its tensors are dumped, the outputs are not written.
  auto m = rt::Model::loadFromMemory(oom.data(), oom.size(), 1);
  EXPECT_EQ(m->oomRedzone(), 256u);
  EXPECT_TRUE(m->oomBoundsCheck());
  std::string dir = tempDir("oom_dump");
  for (bool dump : {true, false}) {  // without the exception dump the check still stops the run
    m->setExceptionDump(dump ? dir : "");
    std::fill(y, y + 15, -1.f);
    try {
      m->run({x}, {y});
      ADD_FAILURE() << "expected a KernelError";
    } catch (const rt::KernelError& e) {
      std::string msg = e.what();
      EXPECT_EQ(e.node, "overrun");
      EXPECT_EQ(e.type, "TestCopyPastEnd");
      // The fill's vector store covers bytes [0, 64) of a 60-byte output, or its scalar tail
      // stores bytes [60, 64): either way the message says which argument and how far.
      EXPECT_NE(msg.find("oom check: the kernel stored "), std::string::npos) << msg;
      EXPECT_NE(msg.find("of its output 0 (b), a buffer of 60 bytes"), std::string::npos) << msg;
      if (dump) {
        EXPECT_TRUE(exists(e.dumpDir + "/exception_info.json")) << e.dumpDir;
        EXPECT_TRUE(exists(e.dumpDir + "/input.0.npy"));
        EXPECT_TRUE(exists(e.dumpDir + "/output.0.npy"));
      }
    }
    for (int i = 0; i < 15; ++i) EXPECT_EQ(y[i], -1.f) << i;
  }
}

// The compiled checks see loads too: a kernel that reads past the end of its input stops
// before the read, naming the input; the same model built without `oom` reads the neighbour.
TEST(RuntimeDebugChecks, OomBuildStopsTheLoadPastTheInput) {
  ASSERT_TRUE(kTestOpsRegistered);
  auto model = [](bool oom) {
    Graph g;
    g.name = "overread";
    g.opsetVersion = 17;
    Value* x = g.newValue("x", TensorType(DType::F32, {16}));
    g.inputs.push_back(x);
    Value *a = g.newValue("a"), *y = g.newValue("y");
    g.addNode("Relu", "first", {x}, {a});
    g.addNode("TestReadPastEnd", "overread", {a}, {y});
    g.outputs = {y};
    return build(g, false, oom ? 256 : 0, oom);
  };
  std::vector<uint8_t> plain = model(false), oom = model(true);
  float x[16], y[32];
  for (int i = 0; i < 16; ++i) x[i] = (float)i;
  auto m0 = rt::Model::loadFromMemory(plain.data(), plain.size(), 1);
  m0->run({x}, {y});  // unchecked: reads whatever follows the input
  auto m = rt::Model::loadFromMemory(oom.data(), oom.size(), 1);
  try {
    m->run({x}, {y});
    ADD_FAILURE() << "expected a KernelError";
  } catch (const rt::KernelError& e) {
    EXPECT_EQ(e.node, "overread");
    std::string msg = e.what();
    EXPECT_NE(msg.find("oom check: the kernel loaded "), std::string::npos) << msg;
    EXPECT_NE(msg.find("of its input 0 (a), a buffer of 64 bytes"), std::string::npos) << msg;
  }
}

// Red zones alone (a model whose kernels were built without the compiled checks) catch the
// same overrun after the op.
TEST(RuntimeDebugChecks, RedzonesAloneCatchTheOverrunAfterTheOp) {
  ASSERT_TRUE(kTestOpsRegistered);
  std::vector<uint8_t> om = buildOverrunModel(256, false);
  float x[15], y[15];
  for (int i = 0; i < 15; ++i) x[i] = (float)i - 7;
  auto m = rt::Model::loadFromMemory(om.data(), om.size(), 1);
  EXPECT_FALSE(m->oomBoundsCheck());
  try {
    m->run({x}, {y});
    ADD_FAILURE() << "expected a KernelError";
  } catch (const rt::KernelError& e) {
    EXPECT_EQ(e.node, "overrun");
    EXPECT_NE(std::string(e.what()).find("oom check: the kernel wrote past the end of its output 0 (b) of 60 bytes (byte 60 changed)"),
              std::string::npos) << e.what();
  }
}

TEST(RuntimeDebugChecks, StatusCheckNamesTheFirstOpThatMakesAnInf) {
  Graph g;
  g.name = "overflow";
  g.opsetVersion = 17;
  Value* x = g.newValue("x", TensorType(DType::F32, {4}));
  g.inputs.push_back(x);
  Value* k = g.newConstant("k", floats({}, {1e30f}));
  Value *a = g.newValue("a"), *b = g.newValue("b"), *y = g.newValue("y");
  g.addNode("Relu", "first", {x}, {a});
  g.addNode("Mul", "scale", {a, k}, {b});
  g.addNode("Tanh", "squash", {b}, {y});
  g.outputs = {y};
  std::vector<uint8_t> om = build(g, true, 0);
  auto m = rt::Model::loadFromMemory(om.data(), om.size(), 1);
  EXPECT_TRUE(m->statusCheck());
  float small[4] = {1e-9f, 0, 1, -1}, big[4] = {0, 1e10f, 0, 0}, out[4];
  m->run({small}, {out});
  EXPECT_FLOAT_EQ(out[2], 1.f);
  try {
    m->run({big}, {out});
    ADD_FAILURE() << "expected a KernelError";
  } catch (const rt::KernelError& e) {
    EXPECT_EQ(e.node, "scale") << e.what();
    EXPECT_NE(std::string(e.what()).find("holds inf at element 1; its inputs are finite"), std::string::npos) << e.what();
    EXPECT_EQ(e.dumpDir, "");  // no exception dump folder set
  }
}

// A kernel that writes into the read-only weights faults; with the exception dump on, the
// fault is a KernelError naming the op, and the model (and process) keep working.
TEST(RuntimeDebugChecks, FaultInAKernelIsAKernelErrorNamingTheOp) {
  ASSERT_TRUE(kTestOpsRegistered);
  Graph g;
  g.name = "faults";
  g.opsetVersion = 17;
  Value* x = g.newValue("x", TensorType(DType::F32, {5}));
  g.inputs.push_back(x);
  Value* w = g.newConstant("w", floats({5}, {10, 20, 30, 40, 50}));
  Value* y = g.newValue("y");
  g.addNode("TestWriteInput1", "bad", {x, w}, {y});
  g.outputs = {y};
  std::vector<uint8_t> om = build(g, false, 0);
  auto m = rt::Model::loadFromMemory(om.data(), om.size(), 2);
  std::string dir = tempDir("fault_dump");
  m->setExceptionDump(dir);
  float xin[5] = {1, 2, 3, 4, 5}, yout[5] = {0};
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      m->run({xin}, {yout});
      ADD_FAILURE() << "expected a KernelError";
    } catch (const rt::KernelError& e) {
      EXPECT_EQ(e.node, "bad");
      EXPECT_NE(std::string(e.what()).find("SIGSEGV"), std::string::npos) << e.what();
      EXPECT_TRUE(exists(e.dumpDir + "/exception_info.json")) << e.dumpDir;
    }
  }
}

// The red-zone check itself: a byte changed after a buffer or before it is reported with the
// argument it belongs to and the nearest changed byte; untouched red zones pass.
TEST(RuntimeDebugChecks, RedzonesReportTheArgumentAndTheNearestByte) {
  constexpr uint64_t rz = 64, n = 40;
  std::vector<uint8_t> mem(rz + n + rz + rz + n + rz, 0);
  std::vector<rt::StepSpan> spans = {{mem.data() + rz, n}, {mem.data() + 3 * rz + n, n}};
  rt::StepInfo s;
  s.inputs.resize(1);
  s.outputs.resize(1);
  s.inputs[0].desc.name = "x";
  s.outputs[0].desc.name = "y";
  rt::fillRedzones(spans, rz);
  EXPECT_EQ(rt::checkRedzones(s, spans, rz), "");
  spans[1].data[-3] = 1;
  spans[1].data[-7] = 1;
  EXPECT_EQ(rt::checkRedzones(s, spans, rz), "wrote before the start of its output 0 (y) (byte -3 changed)");
  rt::fillRedzones(spans, rz);
  spans[0].data[n + 5] = 0;
  EXPECT_EQ(rt::checkRedzones(s, spans, rz), "wrote past the end of its input 0 (x) of 40 bytes (byte 45 changed)");
}
