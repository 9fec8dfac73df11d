// libFuzzer target: an ONNX ModelProto (bytes) -> the ONNX importer -> the default pass
// pipeline (no code generation). Expected refusals: AtcError; see fuzz_expected.h.
#include <cstddef>
#include <cstdint>
#include <string>

#include <google/protobuf/stubs/logging.h>

#include "frontends/onnx/onnx_importer.h"
#include "fuzz/fuzz_expected.h"
#include "fuzz/fuzz_pipeline.h"
#include "support/diagnostics.h"

// protobuf logs every string field with invalid UTF-8 to stderr: thousands of lines a minute.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  atc::ImportOptions opts;
  // External data would be looked for next to this (missing) path: never read a real file.
  opts.model = "/nonexistent-atc-fuzz/model.onnx";
  opts.framework = 5;
  try {
    std::unique_ptr<atc::Graph> g = atc::importOnnxFromBytes(std::string((const char*)data, size), opts);
    atc::fuzz::runPipeline(*g, false);
  } catch (const atc::AtcError&) {
  } catch (const std::exception& e) {
    atc::fuzz::unexpectedException(e);
  }
  return 0;
}
