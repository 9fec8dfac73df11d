#!/usr/bin/env bash
# The cast-only element types (ir/dtype.h: float8, float4, int4, uint4, int2, uint2) and
# omrun's .npy convention for the types numpy lacks: tests/e2e/lowp_types_check.py builds
# models with onnx.helper (Cast round trips against a brute-force reference, int4 weight-only
# MatMuls, QuantizeLinear to int4 / float8, .npy inputs, arithmetic on float8 refused).
# Usage: lowp_types.sh BIN_DIR SRC_DIR
set -u
BIN=$(cd "$1" && pwd); SRC=$(cd "$2" && pwd)
. "$SRC/tests/scripts/lib/torch_e2e.sh"
torch_e2e_setup "onnx, numpy"
/usr/bin/python3 "$SRC/tests/e2e/lowp_types_check.py" "$BIN" "$TMP"
