// TensorFlow frontend: reads a frozen GraphDef (opts.model; binary or text, by content) and
// builds the IR graph of ONNX-named ops. Applies --input_shape, --out_nodes (cuts the graph
// to what the outputs need) and --enable_scope_fusion_passes. See docs/frontend-tf.md.
// Throws AtcError: E10041 bad file/graph, E19010 unsupported ops or control flow that does
// not fold, E10016 unknown --out_nodes/--input_shape names, E10001 unresolved input shapes.
#pragma once
#include <memory>
#include <string>

#include "frontends/import_options.h"
#include "ir/graph.h"

namespace atc {

std::unique_ptr<Graph> importTf(const ImportOptions& opts);
// Same from GraphDef bytes in memory (binary or text); opts.model is only used in messages.
std::unique_ptr<Graph> importTfFromBytes(const std::string& bytes, const ImportOptions& opts);

}  // namespace atc
