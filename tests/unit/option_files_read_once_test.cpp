// Each option file is read once per compile: the command line reads and parses it into
// typed values (AtcOptions), and no later phase opens it again (support/file_io.h counts the
// reads of readFileBounded per path).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "atc/driver.h"
#include "support/file_io.h"

namespace fs = std::filesystem;

namespace {

// x[1,8] -> MatMul(w) "mm" -> Relu "relu" -> Softmax "sm" -> y
void writeModel(const std::string& path) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* in = g->add_input();
  in->set_name("x");
  auto* tt = in->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int d : {1, 8}) tt->mutable_shape()->add_dim()->set_dim_value(d);
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(8);
  w->add_dims(8);
  std::vector<float> vals(64, 0.125f);
  w->set_raw_data(std::string((const char*)vals.data(), vals.size() * 4));
  auto node = [&](const char* type, const char* name, std::vector<std::string> ins, const char* out) {
    auto* n = g->add_node();
    n->set_op_type(type);
    n->set_name(name);
    for (auto& i : ins) n->add_input(i);
    n->add_output(out);
  };
  node("MatMul", "mm", {"x", "w"}, "m");
  node("Relu", "relu", {"m"}, "r");
  node("Softmax", "sm", {"r"}, "y");
  auto* o = g->add_output();
  o->set_name("y");
  o->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  std::ofstream f(path, std::ios::binary);
  m.SerializeToOstream(&f);
}

std::string writeText(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
  return p.string();
}

TEST(OptionFiles, EachReadOncePerCompile) {
  fs::path dir = fs::temp_directory_path() / ("atc_read_once_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  writeModel((dir / "m.onnx").string());
  std::vector<std::string> files = {
      writeText(dir / "mix.json", R"({"black-list":{"to-add":["Softmax"]}})"),
      writeText(dir / "keep.cfg", "relu\n"),
      writeText(dir / "cust.cfg", "mm::InputDtype:float16,float16,OutputDtype:float16\n"),
      writeText(dir / "switch.cfg", "SoftmaxFusionPass:off\n"),
      writeText(dir / "op_precision.ini", "[ByOpType]\nSoftmax=high_precision\n"),
      writeText(dir / "debug.cfg", "op_debug_config = ccec_g\nop_debug_list = sm\n"),
  };
  std::vector<std::string> args = {"atc",
                                   "--model=" + (dir / "m.onnx").string(),
                                   "--framework=5",
                                   "--output=" + (dir / "m").string(),
                                   "--soc_version=x86-64-v3",
                                   "--precision_mode=allow_mix_precision",
                                   "--modify_mixlist=" + files[0],
                                   "--keep_dtype=" + files[1],
                                   "--customize_dtypes=" + files[2],
                                   "--fusion_switch_file=" + files[3],
                                   "--op_precision_mode=" + files[4],
                                   "--op_debug_config=" + files[5],
                                   "--op_compiler_cache_dir=" + (dir / "cache").string(),
                                   "--export_compile_stat=0"};
  std::vector<const char*> argv;
  for (auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out;
  int rc = atc::runAtcCommandLine((int)argv.size(), argv.data(), out);
  ASSERT_EQ(rc, 0) << out.str();
  EXPECT_TRUE(fs::exists(dir / "m.om"));
  for (auto& f : files) EXPECT_EQ(atc::fileReadCount(f), 1) << f << " was not read exactly once";
  fs::remove_all(dir);
}

}  // namespace
