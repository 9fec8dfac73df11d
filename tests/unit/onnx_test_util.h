// Helpers for unit tests that build ONNX models in memory.
#pragma once
#include <cstdint>

#include <onnx/onnx_pb.h>

namespace onnxtest {

// An empty model (IR version 8) importing the default domain's `opset`; its graph, named "g".
inline onnx::GraphProto* newGraph(onnx::ModelProto& m, int64_t opset) {
  m.set_ir_version(8);
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(opset);
  auto* g = m.mutable_graph();
  g->set_name("g");
  return g;
}

}  // namespace onnxtest
