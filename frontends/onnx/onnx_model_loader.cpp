#include "frontends/onnx/onnx_model_loader.h"

#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <set>

#include "support/diagnostics.h"

namespace atc {
namespace onnxfe {

namespace {
[[noreturn]] void loadFail(const std::string& path, const std::string& why) {
  throw AtcError("E10041", "Failed to load the model from [" + path + "]: " + why,
                 "Check that --model names a valid ONNX model file (--framework=5) and that "
                 "the file is complete and readable.");
}

// What both loaders check once the message is parsed.
void checkParsedModel(const std::string& what, const onnx::ModelProto& model) {
  if (!model.has_graph())
    loadFail(what, "the file is not an ONNX model (it has no graph)");
  if (model.ir_version() <= 0)
    loadFail(what, "the file is not an ONNX model (ir_version is missing)");
}
const char* kParseError = "the file is corrupt, truncated or not an ONNX model (protobuf parse error)";
}  // namespace

void loadModelProto(const std::string& path, onnx::ModelProto* model) {
  if (path.empty()) loadFail(path, "no model file given");
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) loadFail(path, std::strerror(errno));
  if (S_ISDIR(st.st_mode)) loadFail(path, "it is a directory");
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) loadFail(path, std::strerror(errno));
  bool ok;
  {
    google::protobuf::io::FileInputStream fin(fd);
    google::protobuf::io::CodedInputStream cin(&fin);
    cin.SetTotalBytesLimit(INT_MAX);  // default is 64 MB on old protobufs
    ok = model->ParseFromCodedStream(&cin) && cin.ConsumedEntireMessage();
  }
  ::close(fd);
  if (!ok) {
    if (st.st_size > (off_t)INT_MAX)
      loadFail(path, "the file is larger than 2 GB; store the weights as ONNX external data");
    loadFail(path, kParseError);
  }
  checkParsedModel(path, *model);
}

void loadModelProtoFromBytes(const void* data, size_t size, const std::string& what, onnx::ModelProto* model) {
  if (size > (size_t)INT_MAX)
    loadFail(what, "the file is larger than 2 GB; store the weights as ONNX external data");
  google::protobuf::io::CodedInputStream cin(static_cast<const uint8_t*>(data), (int)size);
  cin.SetTotalBytesLimit(INT_MAX);
  if (!(model->ParseFromCodedStream(&cin) && cin.ConsumedEntireMessage())) loadFail(what, kParseError);
  checkParsedModel(what, *model);
}

int64_t defaultOpset(const onnx::ModelProto& model) {
  int64_t v = 0;
  for (const auto& op : model.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") v = std::max<int64_t>(v, op.version());
  return v;
}

bool usesExternalData(const onnx::ModelProto& model) {
  const auto& g = model.graph();
  for (const auto& t : g.initializer())
    if (t.data_location() == onnx::TensorProto::EXTERNAL) return true;
  for (const auto& n : g.node())
    for (const auto& a : n.attribute())
      if (a.has_t() && a.t().data_location() == onnx::TensorProto::EXTERNAL) return true;
  return false;
}

namespace {
// The first output of g that no node, graph input or initializer defines; "" if none.
std::string undefinedGraphOutput(const onnx::GraphProto& g) {
  std::set<std::string> defined;
  for (const auto& in : g.input()) defined.insert(in.name());
  for (const auto& t : g.initializer()) defined.insert(t.name());
  for (const auto& n : g.node())
    for (const auto& o : n.output()) defined.insert(o);
  for (const auto& o : g.output())
    if (!defined.count(o.name())) return o.name().empty() ? "\"\"" : o.name();
  return "";
}

// Writes the --input_shape dims into the graph inputs they name (rank permitting).
void setInputShapes(onnx::ModelProto* m,
                    const std::map<std::string, std::vector<int64_t>>& inputShapes) {
  for (auto& in : *m->mutable_graph()->mutable_input()) {
    auto it = inputShapes.find(in.name());
    if (it == inputShapes.end() || !in.type().has_tensor_type()) continue;
    auto* tt = in.mutable_type()->mutable_tensor_type();
    if (tt->has_shape() && tt->shape().dim_size() != (int)it->second.size()) continue;
    auto* sh = tt->mutable_shape();
    sh->clear_dim();
    for (int64_t d : it->second) {
      auto* dim = sh->add_dim();
      if (d >= 0) dim->set_dim_value(d);
    }
  }
}

// Shape inference and ONNX's version converter, run in a child process. libonnx 1.12's
// converter is not hardened against malformed graphs: fuzz_onnx made it dereference null
// pointers (a graph output nothing produces) and crash in its broadcast adapters
// (assert_numpy_multibroadcastable). Only models older than opset 7 (or with
// ATC_ONNX_CONVERT_OPSET) come here, so the fork costs nothing in the usual case; a crash of
// the child is a refusal with a reason, not a crash of atc. The child writes one byte (1 ok,
// 0 error) and the converted model or the error text to a pipe, and leaves with _exit.
bool convertInChild(const onnx::ModelProto& in, int target, onnx::ModelProto* out, std::string* why) {
  int fds[2];
  if (::pipe(fds) != 0) {
    if (why) *why = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    if (why) *why = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (pid == 0) {
    ::close(fds[0]);
    // Die quietly on a fault (no sanitizer or fuzzer report: the parent reports it).
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, SIG_DFL);
    std::string msg;
    try {
      onnx::ModelProto m = in;
      try {
        onnx::shape_inference::InferShapes(m);
      } catch (const std::exception&) {
        // Shapes are only a help for the converter's adapters.
      }
      msg = std::string(1, '\1') + onnx::version_conversion::ConvertVersion(m, target).SerializeAsString();
    } catch (const std::exception& e) {
      msg = std::string(1, '\0') + e.what();
    } catch (...) {
      msg = std::string(1, '\0') + "unknown error";
    }
    for (size_t off = 0; off < msg.size();) {
      ssize_t n = ::write(fds[1], msg.data() + off, msg.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) ::_exit(1);
      off += (size_t)n;
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string msg;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    msg.append(buf, (size_t)n);
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || msg.empty()) {
    if (why)
      *why = WIFSIGNALED(status) ? "the ONNX version converter crashed (signal " + std::to_string(WTERMSIG(status)) +
                                       ") on this graph"
                                 : "the ONNX version converter failed";
    return false;
  }
  if (msg[0] != '\1') {
    if (why) *why = msg.substr(1);
    return false;
  }
  google::protobuf::io::CodedInputStream cin(reinterpret_cast<const uint8_t*>(msg.data()) + 1, (int)(msg.size() - 1));
  cin.SetTotalBytesLimit(INT_MAX);
  if (msg.size() - 1 > (size_t)INT_MAX || !out->ParseFromCodedStream(&cin)) {
    if (why) *why = "the ONNX version converter's result cannot be read back";
    return false;
  }
  return true;
}
}  // namespace

// A default-domain node with fewer inputs than its op's schema (at the model's opset) needs:
// the converter's adapters read the missing inputs (a Div of opset 6 with one input made its
// broadcast adapter read past the node). Refused before the converter, so the error does not
// depend on whether that read happens to crash. "" when every node has its inputs.
static std::string nodeMissingInputs(const onnx::ModelProto& model) {
  int64_t opset = 0;
  for (const auto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  for (const auto& n : model.graph().node()) {
    if (!n.domain().empty() && n.domain() != "ai.onnx") continue;
    const onnx::OpSchema* s = onnx::OpSchemaRegistry::Schema(n.op_type(), (int)opset, "");
    if (s && n.input_size() < s->min_input())
      return "node [" + (n.name().empty() ? n.op_type() : n.name()) + "] (" + n.op_type() + ") has " +
             std::to_string(n.input_size()) + " input(s); the op needs at least " + std::to_string(s->min_input());
  }
  return "";
}

bool tryConvertOpset(onnx::ModelProto* model, int64_t target,
                     const std::map<std::string, std::vector<int64_t>>& inputShapes,
                     std::string* why) {
  // ONNX's IR import (inside ConvertVersion, libonnx 1.12) dereferences a null pointer when
  // a graph output is produced by nothing: refuse that before calling it.
  std::string undefinedOutput = undefinedGraphOutput(model->graph());
  if (!undefinedOutput.empty()) {
    if (why) *why = "the graph output [" + undefinedOutput + "] is not produced by any node, input or initializer";
    return false;
  }
  const std::string missing = nodeMissingInputs(*model);
  if (!missing.empty()) {
    if (why) *why = missing;
    return false;
  }
  try {
    onnx::ModelProto withShapes = *model;
    setInputShapes(&withShapes, inputShapes);
    onnx::ModelProto converted;
    if (!convertInChild(withShapes, (int)target, &converted, why)) return false;
    // The converter may drop node names; keep the originals where the node count is unchanged.
    auto* dst = converted.mutable_graph();
    const auto& src = model->graph();
    if (dst->node_size() == src.node_size())
      for (int i = 0; i < src.node_size(); ++i)
        if (dst->node(i).name().empty() && dst->node(i).op_type() == src.node(i).op_type())
          dst->mutable_node(i)->set_name(src.node(i).name());
    *model = std::move(converted);
    return true;
  } catch (const std::exception& e) {
    if (why) *why = e.what();
    return false;
  } catch (...) {
    if (why) *why = "unknown error";
    return false;
  }
}

}  // namespace onnxfe
}  // namespace atc
