// PrecisionPass: modes, fallbacks on the npu-like profile, precedence of customize_dtypes >
// keep_dtype > mode (op-name line beats OpType:: line), mixed lists and --modify_mixlist,
// errors. Also the option-file parsers.
#include <unistd.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "atc/precision_options.h"
#include "kernels/codegen/host_cpu.h"
#include <sstream>
#include "support/diagnostics.h"
#include "ir/printer.h"
#include "passes/pass.h"
#include "passes/pass_registry.h"

namespace atc {
bool runPrecisionPass(Graph& g, PassContext& ctx);
}

namespace {
using namespace atc;

const char* kNet = R"(
graph main(%x: float32[1,4]) -> (%y) {
  %w: float32[4,4] = const [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]
  %m: float32[1,4] = MatMul(%x, %w) {name="mm"}
  %r: float32[1,4] = Relu(%m) {name="relu"}
  %s: float32[1,4] = Softmax(%r) {name="sm"}
  %y: float32[1,4] = Add(%s, %r) {name="add"}
}
)";

std::string tmpFile(const std::string& name, const std::string& text) {
  std::string p = ::testing::TempDir() + "/prec_" + std::to_string(::getpid()) + "_" + name;
  std::ofstream(p) << text;
  return p;
}

struct Run {
  std::unique_ptr<Graph> g;
  Node* node(const std::string& n) { return g->findNode(n); }
  std::string in(const std::string& n) { return node(n)->attrString("_dtype_in", "?"); }
  std::string out(const std::string& n) { return node(n)->attrString("_dtype_out", "?"); }
  std::string why(const std::string& n) { return node(n)->attrString("_precision_reason", "?"); }
};

// The precision options as the command line gives them (file paths, raw values).
struct PrecOpts {
  std::string socVersion, precisionMode, modifyMixlist, keepDtype, customizeDtypes, outputType, inputFp16Nodes;
};

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Parsed as parseCommandLine does, then the pass runs with the target profile.
Run run(const PrecOpts& o, const char* text = kNet) {
  PassOptions po;
  PrecisionOptions& p = po.precision;
  p.mode = precisionModeFromNames(o.precisionMode, "");
  if (!o.modifyMixlist.empty()) p.mixlist = parseMixlistText(slurp(o.modifyMixlist), o.modifyMixlist);
  if (!o.keepDtype.empty()) p.keepDtype = parseKeepDtypeText(slurp(o.keepDtype), o.keepDtype);
  if (!o.customizeDtypes.empty()) p.customizeDtypes = parseCustomizeDtypesText(slurp(o.customizeDtypes), o.customizeDtypes);
  if (!o.outputType.empty()) p.outputType = parseOutputType(o.outputType);
  if (!o.inputFp16Nodes.empty()) p.inputFp16Nodes = parseInputFp16Nodes(o.inputFp16Nodes);
  TargetProfile t = loadHostTargetProfile(o.socVersion);
  Run r;
  r.g = parseGraph(text);
  PassContext ctx(po, &t);
  runPrecisionPass(*r.g, ctx);
  return r;
}

PrecOpts opts(const std::string& soc, const std::string& mode) {
  PrecOpts o;
  o.socVersion = soc;
  o.precisionMode = mode;
  return o;
}

TEST(PrecisionPass, OriginKeepsEverything) {
  auto r = run(opts("native", "must_keep_origin_dtype"));
  for (auto n : {"mm", "relu", "sm", "add"}) EXPECT_EQ(r.out(n), "float32") << n;
  for (auto& n : r.g->nodes()) EXPECT_NE(n->type, "Cast");
}

TEST(PrecisionPass, ForceFp16CastsAtBoundariesAndKeepsOutputDtype) {
  auto r = run(opts("native", "force_fp16"));
  EXPECT_EQ(r.in("mm"), "float16");
  EXPECT_EQ(r.out("relu"), "float16");
  EXPECT_EQ(r.g->outputs[0]->type.dtype, DType::F32);  // declared dtype kept
  EXPECT_EQ(r.node("mm")->inputs[1]->type.dtype, DType::F16);  // weight converted at compile time
  EXPECT_TRUE(r.node("mm")->inputs[1]->isConstant());
  int casts = 0;
  for (auto& n : r.g->nodes()) casts += n->type == "Cast";
  EXPECT_EQ(casts, 3);  // x -> f16, mm result -> f16, output -> f32
}

TEST(PrecisionPass, NpuLikeFallbacks) {
  // force_fp32: cube op fp16 in / fp32 out; Relu has no fp32 so stays fp16.
  auto r = run(opts("npu-like", "force_fp32"));
  EXPECT_EQ(r.in("mm"), "float16");
  EXPECT_EQ(r.out("mm"), "float32");
  EXPECT_EQ(r.out("relu"), "float16");
  EXPECT_NE(r.why("relu").find("float32 unsupported so float16"), std::string::npos) << r.why("relu");
  // must_keep_origin_dtype: the fp32 MatMul has no fp32 kernel: an error naming op and dtypes.
  try {
    run(opts("npu-like", "must_keep_origin_dtype"));
    FAIL();
  } catch (const AtcError& e) {
    EXPECT_NE(std::string(e.what()).find("mm"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("float16"), std::string::npos) << e.what();
  }
  // allow_fp32_to_fp16: vector ops keep fp32 where they can, Relu must go fp16.
  auto a = run(opts("npu-like", "allow_fp32_to_fp16"));
  EXPECT_EQ(a.out("mm"), "float16");
  EXPECT_EQ(a.out("relu"), "float16");
  EXPECT_EQ(a.out("sm"), "float32");
}

TEST(PrecisionPass, MixedListsAndModifyMixlist) {
  auto r = run(opts("native", "allow_mix_precision"));
  EXPECT_EQ(r.out("mm"), "float16");   // white
  EXPECT_EQ(r.out("sm"), "float32");   // black
  EXPECT_EQ(r.out("relu"), "float16"); // grey follows mm
  EXPECT_NE(r.why("relu").find("upstream node mm"), std::string::npos);
  EXPECT_EQ(r.out("add"), "float32");  // grey follows sm (black) first
  PrecOpts o = opts("native", "allow_mix_precision");
  o.modifyMixlist = tmpFile("mix.json", R"({"black-list":{"to-remove":["Softmax"],"to-add":["MatMul"]}})");
  auto m = run(o);
  EXPECT_EQ(m.out("mm"), "float32");
  EXPECT_EQ(m.why("mm"), "black list");
  EXPECT_EQ(m.out("sm"), "float32");  // grey now, follows relu which follows mm (fp32)
  PrecOpts bf = opts("native", "allow_mix_precision_bf16");
  EXPECT_EQ(run(bf).out("mm"), "bfloat16");
}

TEST(PrecisionPass, Precedence) {
  PrecOpts o = opts("native", "force_fp16");
  o.keepDtype = tmpFile("keep.cfg", "# keep\nOpType::Relu\n");
  o.customizeDtypes = tmpFile("cust.cfg",
                              "OpType::Relu:InputDtype:float16,OutputDtype:float16\n"
                              "relu::InputDtype:bfloat16,OutputDtype:bfloat16\n");
  auto r = run(o);
  EXPECT_EQ(r.out("relu"), "bfloat16");  // name line beats OpType line, customize beats keep
  EXPECT_EQ(r.why("relu"), "customize_dtypes line 2");
  o.customizeDtypes.clear();
  auto k = run(o);
  EXPECT_EQ(k.out("relu"), "float32");  // keep_dtype beats the mode
  EXPECT_EQ(k.why("relu"), "keep_dtype line 2");
  // No effect under must_keep_origin_dtype.
  o.precisionMode = "must_keep_origin_dtype";
  o.customizeDtypes = tmpFile("cust2.cfg", "relu::InputDtype:bfloat16,OutputDtype:bfloat16\n");
  EXPECT_EQ(run(o).out("relu"), "float32");
}

TEST(PrecisionPass, Errors) {
  PrecOpts o = opts("native", "force_fp16");
  o.keepDtype = tmpFile("keep_bad.cfg", "nosuchop\n");
  try {
    run(o);
    FAIL();
  } catch (const AtcError& e) {
    EXPECT_NE(std::string(e.what()).find("nosuchop"), std::string::npos);
  }
  PrecOpts c = opts("npu-like", "force_fp16");
  c.customizeDtypes = tmpFile("cust_bad.cfg", "OpType::ReduceMean:InputDtype:float16,OutputDtype:float16\nmm::InputDtype:float32,OutputDtype:float32\n");
  EXPECT_THROW(run(c), AtcError);  // MatMul has no fp32 on npu-like
  EXPECT_THROW(parseMixlistText("{\"grey-list\":{}}", "t"), AtcError);
  EXPECT_THROW(parseCustomizeDtypesText("relu::InputDtype:float99", "t"), AtcError);
  EXPECT_THROW(parseOutputType("FP7"), AtcError);
  // Found by fuzz_options: an index too big for int threw std::out_of_range from std::stoi
  // (atc: "E19999 Internal error: stoi") instead of the option's error.
  EXPECT_THROW(parseOutputType("relu:100000000000000000000:FP16"), AtcError);
  EXPECT_THROW(parseOutputType("relu:2147483648:FP16"), AtcError);
  EXPECT_EQ(parseOutputType("relu:123456789:FP16").perOutput.size(), 1u);
  auto ot = parseOutputType("mm:0:FP16;add:0:FP32");
  EXPECT_EQ(ot.perOutput.size(), 2u);
}

TEST(PrecisionPass, OutputTypeAndInputFp16) {
  PrecOpts o = opts("native", "must_keep_origin_dtype");
  o.outputType = "add:0:FP16";
  o.inputFp16Nodes = "x";
  auto r = run(o);
  EXPECT_EQ(r.g->outputs[0]->type.dtype, DType::F16);
  EXPECT_EQ(r.g->inputs[0]->type.dtype, DType::F16);
  EXPECT_EQ(r.out("mm"), "float32");
}

}  // namespace
