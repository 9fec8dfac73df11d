#!/usr/bin/env bash
# ONNX If / Loop / Scan lowered at import (docs/frontend-onnx.md, "Control flow"):
# tests/e2e/control_flow_check.py builds models with onnx.helper (if-conversion on a run-time
# condition, a condition folded from shapes, constant-trip and early-exit loops, nested If in
# a Loop, Scan with reverse direction and axes, a TorchScript export) and compares atc + omrun
# with numpy or PyTorch, and checks the refusals (run-time trip count, branches of different
# shapes, unroll budget, an unsupported op inside a body) leave no .om.
# Usage: control_flow.sh BIN_DIR SRC_DIR
set -u
BIN=$(cd "$1" && pwd); SRC=$(cd "$2" && pwd)
. "$SRC/tests/scripts/lib/torch_e2e.sh"
torch_e2e_setup "onnx, numpy"
/usr/bin/python3 "$SRC/tests/e2e/control_flow_check.py" "$BIN" "$TMP"
