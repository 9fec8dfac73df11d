#include "frontends/tf/tf_loader.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include <fstream>
#include <sstream>

#include "support/diagnostics.h"

namespace atc {
namespace tffe {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& why) {
  throw AtcError("E10041", "Failed to load the model from [" + what + "]. Reason: " + why,
                 "Check that --model is a frozen TensorFlow GraphDef (.pb binary or .pbtxt text) "
                 "and that --framework=3 is right for it.");
}

// Text format starts (after blanks and # comments) with a field name such as `node`,
// `versions`, `library` or `version`; a binary GraphDef starts with a tag byte.
bool looksLikeText(const std::string& b) {
  size_t i = 0;
  while (i < b.size()) {
    unsigned char c = (unsigned char)b[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') { ++i; continue; }
    if (c == '#') {
      while (i < b.size() && b[i] != '\n') ++i;
      continue;
    }
    break;
  }
  if (i >= b.size()) return false;
  size_t j = i;
  while (j < b.size() && (std::isalnum((unsigned char)b[j]) || b[j] == '_')) ++j;
  if (j == i) return false;
  std::string word = b.substr(i, j - i);
  if (word != "node" && word != "versions" && word != "library" && word != "version") return false;
  while (j < b.size() && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r')) ++j;
  return j < b.size() && (b[j] == '{' || b[j] == ':' || b[j] == '<');
}

class TextErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (first.empty())
      first = "line " + std::to_string(line + 1) + ", column " + std::to_string(column + 1) + ": " + message;
  }
  void AddWarning(int, int, const std::string&) override {}
  std::string first;
};

}  // namespace

void parseGraphDef(const std::string& bytes, const std::string& what, tfproto::GraphDef* out) {
  if (bytes.empty()) fail(what, "the file is empty.");
  if (looksLikeText(bytes)) {
    google::protobuf::TextFormat::Parser parser;
    TextErrors errors;
    parser.RecordErrorsTo(&errors);
    parser.AllowUnknownField(true);  // fields of newer TensorFlow versions
    if (!parser.ParseFromString(bytes, out))
      fail(what, "the text-format GraphDef does not parse (" + errors.first + ").");
  } else {
    google::protobuf::io::ArrayInputStream raw(bytes.data(), (int)std::min<size_t>(bytes.size(), INT32_MAX));
    google::protobuf::io::CodedInputStream in(&raw);
    in.SetTotalBytesLimit(INT32_MAX);
    if (bytes.size() > (size_t)INT32_MAX) fail(what, "the GraphDef is larger than 2 GB.");
    if (!out->ParseFromCodedStream(&in) || !in.ConsumedEntireMessage())
      fail(what, "the file is not a valid binary GraphDef (truncated or another format).");
  }
  if (out->node_size() == 0) fail(what, "the GraphDef has no nodes.");
  for (const auto& n : out->node())
    if (n.name().empty() || n.op().empty())
      fail(what, "a node has no name or no op type (not a TensorFlow GraphDef?).");
}

void loadGraphDef(const std::string& path, tfproto::GraphDef* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail(path, "the file cannot be opened.");
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) fail(path, "the file cannot be read.");
  parseGraphDef(ss.str(), path, out);
}

}  // namespace tffe
}  // namespace atc
