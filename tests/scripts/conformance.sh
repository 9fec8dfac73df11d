#!/usr/bin/env bash
# ONNX backend conformance (tests/conformance/run_conformance.py): fails if a case crashes
# or hangs, or a case listed in tests/conformance/passing.txt no longer passes.
# Usage: conformance.sh BIN_DIR SRC_DIR
set -u
BIN=$1
SRC=$2
if [ ! -x "$BIN/atc" ] || [ ! -x "$BIN/omrun" ]; then
  echo "SKIP: atc/omrun not built in $BIN"
  exit 0
fi
if [ ! -d /usr/share/libonnx-testdata/data ]; then
  echo "SKIP: /usr/share/libonnx-testdata/data not installed"
  exit 0
fi
exec /usr/bin/python3 "$SRC/tests/conformance/run_conformance.py" --bin "$BIN" --jobs 2
