#!/usr/bin/env bash
# Outputs whose shape depends on input values (docs/dynamic-shapes.md, "Outputs whose shape
# depends on data"): tests/e2e/data_shaped_check.py builds TopK (run-time k), NonMaxSuppression, Unique,
# NonZero and Compress models with onnx.helper and compares omrun's outputs, written in each
# run's shape, with numpy; a reader of such a value must be refused (E19010) with no .om.
# Usage: data_shaped_cli.sh BIN_DIR SRC_DIR
set -u
BIN=$(cd "$1" && pwd); SRC=$(cd "$2" && pwd)
. "$SRC/tests/scripts/lib/torch_e2e.sh"
torch_e2e_setup "onnx, numpy"
/usr/bin/python3 "$SRC/tests/e2e/data_shaped_check.py" "$BIN" "$TMP"
