// ONNX frontend: reads an ONNX ModelProto (opts.model) and builds the IR graph.
// Applies --input_shape (opts.inputShapes) and --out_nodes (opts.outNodeList).
// Throws atc::AtcError (E10041 load failure, E19010 unsupported ops, E10016/E10002 options).
#pragma once
#include <memory>

#include "frontends/import_options.h"
#include "ir/graph.h"

namespace atc {

std::unique_ptr<Graph> importOnnx(const ImportOptions& opts);
// Same from ModelProto bytes in memory (fuzzing, tests); opts.model names the model in
// messages and its folder is where external data would be looked for.
std::unique_ptr<Graph> importOnnxFromBytes(const std::string& bytes, const ImportOptions& opts);

}  // namespace atc
