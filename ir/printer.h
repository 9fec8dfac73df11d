// Deterministic text form of a Graph (golden tests, ATC_PRINT_IR_AFTER) and a parser for
// the same text, so tests can write the "before" graph as text.
//
//   graph main(%x: float32[1,3,8,8]) -> (%y) {
//     %w: float32[3] = const [0.1, 0.2, 0.3]
//     %y: float32[1,3,8,8] = Relu(%x) {name="relu1"}
//   }
//
// - Constants used by nodes or outputs are printed first, in order of first use. Up to
//   kMaxPrintedElements elements are printed in full; larger ones as
//   `const <N elements, fnv1a=HEX>` (which the parser cannot read back).
// - Node attributes: `name` (and `domain` if set, `fused_from` if the node has original
//   names) first, then the ONNX attributes sorted by name. Float attributes always carry a
//   '.', 'e', "inf" or "nan" so they parse back as floats; empty lists are written
//   ints[] / floats[] / strings[]; tensors as tensor<float32[2]>[1.0, 2.0].
// - Absent optional inputs are written `_`. Names outside [A-Za-z0-9_.-/] are quoted.
#pragma once
#include <memory>
#include <string>

#include "ir/graph.h"

namespace atc {

constexpr int64_t kMaxPrintedElements = 16;

std::string printGraph(const Graph& g);
// "%y: float32[2] = Relu(%x) {name="r"}" (no indentation, no newline).
std::string printNode(const Node& n);
// "[1, 2, 3]" or "<N elements, fnv1a=...>".
std::string printTensorData(const Tensor& t, int64_t maxElements = kMaxPrintedElements);

// Parses printGraph's text (ir/parser.cpp). Throws AtcError E19999 naming the line on a
// syntax error.
std::unique_ptr<Graph> parseGraph(const std::string& text);
// The characters of an unquoted name.
bool isIrNameChar(char c);

}  // namespace atc
