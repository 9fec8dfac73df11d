// Evaluates one node on the host with the native kernel library: the constant folder's
// engine and the kernel tests' reference path. One implementation of every op: the same
// kernel source the code generator specialises.
#pragma once
#include <vector>

#include "ir/graph.h"

namespace atc {

// All inputs of n must be constants (or absent) and n's outputs must have static types
// (run inferNode first). Returns one tensor per output. Throws AtcError if the op has no
// lowering or its kernel is not in the native library.
// cubeRows: the cube microkernel family to lower for (LowerCtx::cubeRows; tests run both).
// int8Path: LowerCtx::int8Path (1 / 2: the int8 kernels then use 512-bit / 256-bit vpdpbusd where
// the host has it).
// bf16Dot: LowerCtx::bf16Dot (bfloat16 cube ops then use vdpbf16ps where the host has it).
// int8Amx: LowerCtx::int8Amx (int8 matrix products on AMX tiles where the host has them).
std::vector<TensorPtr> evalNodeNative(Graph& g, Node& n, int cubeRows = 6, int int8Path = 0,
                                      bool bf16Dot = false, bool int8Amx = false);

// True when evalNodeNative can run on n (all inputs constant, lowering and kernel known).
bool canEvalNative(const Node& n);

}  // namespace atc
