// Structural checks of a Graph: run by the pass manager after every pass that changed the
// graph, and once before lowering.
#pragma once
#include <string>
#include <vector>

#include "ir/graph.h"

namespace atc {

struct VerifyOptions {
  bool checkOpTable = true;         // op types registered, input/output counts in range
  bool requireStaticShapes = false; // every node output and graph input/output static
};

// Every problem found, in a deterministic order (empty = valid). Checks: input/output
// counts against the op table, each used value defined before use (graph input, constant
// or an earlier node's output), no cycles, graph outputs defined, unique node and value
// names, producer links consistent, graph inputs not constant nor produced.
std::vector<std::string> verifyGraphProblems(const Graph& g, const VerifyOptions& opts = {});

// Throws AtcError E19999 listing the problems (at most 20) when the graph is invalid.
// `where` names the point of the check (e.g. "after pass dce").
void verifyGraph(const Graph& g, const VerifyOptions& opts = {}, const std::string& where = "");

}  // namespace atc
