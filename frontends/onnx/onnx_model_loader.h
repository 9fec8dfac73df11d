// Loading an ONNX ModelProto from disk, checking its opset, and (optionally) converting
// it to a newer opset with ONNX's version converter.
#pragma once
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace atc {
namespace onnxfe {

constexpr int64_t kMinOpset = 7;
// Opsets 7 to 23 are implemented; newer models are accepted node by node
// (onnx_opset_changes.h). libonnx's converter and shape inference know opsets up to 17 only.
constexpr int64_t kMaxOpset = 23;
constexpr int64_t kMaxConverterOpset = 17;

// Parses the file. Throws AtcError E10041 if it cannot be read or is not an ONNX model.
void loadModelProto(const std::string& path, onnx::ModelProto* model);
// Same from bytes in memory (fuzzing, tests); `what` names the source in error messages.
void loadModelProtoFromBytes(const void* data, size_t size, const std::string& what, onnx::ModelProto* model);

// The default-domain ("" or "ai.onnx") opset version imported by the model; 0 if none.
int64_t defaultOpset(const onnx::ModelProto& model);

// True if some initializer or Constant holds data in an external file.
bool usesExternalData(const onnx::ModelProto& model);

// Tries to convert the model to `target` opset with onnx::version_conversion. Some
// adapters need tensor shapes, so the graph inputs named in `inputShapes` get those shapes
// and ONNX shape inference runs first. Returns false (and leaves `model` untouched) if the
// converter refuses or throws.
bool tryConvertOpset(onnx::ModelProto* model, int64_t target,
                     const std::map<std::string, std::vector<int64_t>>& inputShapes,
                     std::string* why);

}  // namespace onnxfe
}  // namespace atc
