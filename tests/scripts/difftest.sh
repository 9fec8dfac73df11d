#!/usr/bin/env bash
# Differential test for wrong results: 200 random valid ONNX graphs (fixed seed, 10 per model)
# compiled with atc (must_keep_origin_dtype) and run with omrun, compared with the numpy
# reference of tests/difftest. Fails on any mismatch, crash or timeout; refusals are printed.
# Usage: difftest.sh BIN_DIR SRC_DIR
set -u
BIN=$(cd "$1" && pwd); SRC=$(cd "$2" && pwd)
PY=/usr/bin/python3
if [ ! -x "$BIN/atc" ] || [ ! -x "$BIN/omrun" ]; then echo "SKIP: $BIN/atc or $BIN/omrun not built"; exit 0; fi
if ! $PY -c 'import numpy, onnx' 2>/dev/null; then echo "SKIP: $PY lacks numpy or onnx"; exit 0; fi
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export ASCEND_CACHE_PATH="$T/cache"
$PY "$SRC/tests/difftest/gen_and_check.py" --bin "$BIN" --seed 20261124 --count 200 --per-model 10 --jobs 2
exit $?
