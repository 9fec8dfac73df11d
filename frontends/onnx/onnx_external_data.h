// Reads the bytes of an ONNX tensor stored outside the model file (data_location EXTERNAL).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace atc {
namespace onnxfe {

struct ExternalDataRef {
  std::string location;    // path relative to the model's folder
  int64_t offset = 0;      // byte offset in that file
  int64_t length = -1;     // byte count; -1 = to the end of the file
};

// Resolves ref.location under modelDir and reads the bytes. Refuses absolute paths and
// paths that leave the model's folder (through "..", or symlinks pointing outside).
// Throws AtcError E10041 naming `tensorName` on any problem.
std::vector<uint8_t> readExternalData(const std::string& modelDir, const ExternalDataRef& ref,
                                      const std::string& tensorName, const std::string& modelPath);

}  // namespace onnxfe
}  // namespace atc
