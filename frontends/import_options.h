// What the frontends are told: the model and the command-line options that shape the
// imported graph (--input_shape, --out_nodes, --input_format), parsed into typed values.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace atc {

struct ImportCache;  // frontends/common/import_cache.h

struct ImportOptions {
  std::string model;
  int framework = 5;                 // 3 TensorFlow, 5 ONNX
  std::string inputFormat;           // --input_format ("" = the framework's default)
  // --input_shape: name -> dims, and the names in the order given.
  std::map<std::string, std::vector<int64_t>> inputShapes;
  std::vector<std::string> inputShapeOrder;
  // --out_nodes: (node or output name, index or -1 for an ONNX output name).
  std::vector<std::pair<std::string, int>> outNodeList;
  // Shared by the imports of one model at several shapes (gears, ranges); null: none.
  std::shared_ptr<ImportCache> cache;
};

}  // namespace atc
