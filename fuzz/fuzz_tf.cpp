// libFuzzer target: a TensorFlow GraphDef, binary or text format (the loader tells them apart
// by content) -> the TF importer -> the default pass pipeline with the TF passes (no code
// generation). Expected refusals: AtcError; see fuzz_expected.h.
#include <cstddef>
#include <cstdint>
#include <string>

#include <google/protobuf/stubs/logging.h>

#include "frontends/tf/tf_importer.h"
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
  opts.model = "/nonexistent-atc-fuzz/model.pb";
  opts.framework = 3;
  try {
    std::unique_ptr<atc::Graph> g = atc::importTfFromBytes(std::string((const char*)data, size), opts);
    atc::fuzz::runPipeline(*g, true);
  } catch (const atc::AtcError&) {
  } catch (const std::exception& e) {
    atc::fuzz::unexpectedException(e);
  }
  return 0;
}
