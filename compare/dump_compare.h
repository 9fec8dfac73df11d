// Layer-by-layer accuracy compare of two dumps (docs/debugging.md "Accuracy compare"): the job
// of Ascend's msaccucmp. A side is either an omrun dump (a folder holding dump_map.json, or
// the --dump folder above it) or a folder of golden .npy files named by node or tensor name
// (from any framework). Tensors are matched through fusion by the node that produced them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace atc::compare {

struct CompareOptions {
  int64_t run = -1;             // the dumped run to compare (-1: the first run of each side)
  double cosineThreshold = 0.99;  // the first layer below it is marked
  double atol = 1e-3, rtol = 1e-3;  // an element is outside when |a-b| > atol + rtol*|b|
};

struct Row {
  size_t order = 0;       // position along side A's steps
  std::string node;       // the node whose output this is (a fused kernel's last node)
  std::string type;       // op type (side A)
  std::vector<std::string> fusedFrom;  // side A's kernel: the nodes it ran (this node is the last)
  std::string tensor;     // side A's tensor name
  std::string fileA, fileB;
  std::string dtypeA, dtypeB;
  std::vector<int64_t> shape;
  int64_t elements = 0;
  double cosine = 0, maxAbs = 0, maxRel = 0, rmse = 0, outside = 0;  // outside: fraction of elements
  std::string status;     // "ok", "shape mismatch", "unreadable: ..."
  bool firstBelow = false;
};

struct Result {
  std::vector<Row> rows;                 // matched tensors, in side A's order
  std::vector<std::string> unmatchedA;   // side A's output nodes with no counterpart in B
  int firstBelow = -1;                   // index in rows of the first cosine below the threshold
};

// Throws std::runtime_error with a clear message for a side that is neither kind of folder.
Result compareDumps(const std::string& a, const std::string& b, const CompareOptions& o);
// compare.csv, one row per matched tensor.
std::string resultCsv(const Result& r);
// cosine.png: cosine along side A's layers (blue), the threshold (red), the first layer below it.
std::vector<uint8_t> cosinePlotPng(const Result& r, double threshold);

// Cosine similarity, max absolute/relative error, RMSE and the fraction outside the tolerance
// of two equally long arrays (tests use it directly).
void tensorMetrics(const std::vector<double>& a, const std::vector<double>& b, double atol, double rtol, Row* row);

}  // namespace atc::compare
