#!/usr/bin/env bash
# ONNX backend conformance (tests/conformance/run_conformance.py): fails if a case crashes
# or hangs, or a case listed in the suite's passing list no longer passes. Two suites:
#  - Debian's libonnx-testdata (1,072 cases): tests/conformance/passing.txt;
#  - the ONNX repository's newer node tests in ../shared/onnx-node-tests (1,802 cases, many
#    at opsets above 17, which atc refuses cleanly): tests/conformance/passing_onnx_node_tests.txt.
# A suite whose data is not installed is skipped.
# Usage: conformance.sh BIN_DIR SRC_DIR
set -u
BIN=$1
SRC=$2
if [ ! -x "$BIN/atc" ] || [ ! -x "$BIN/omrun" ]; then
  echo "SKIP: atc/omrun not built in $BIN"
  exit 0
fi
RUNNER="$SRC/tests/conformance/run_conformance.py"
rc=0
if [ -d /usr/share/libonnx-testdata/data ]; then
  echo "== libonnx-testdata"
  /usr/bin/python3 "$RUNNER" --bin "$BIN" --jobs 2 || rc=1
else
  echo "SKIP: /usr/share/libonnx-testdata/data not installed"
fi
NODE_TESTS="$SRC/../shared/onnx-node-tests"
if [ -d "$NODE_TESTS/node" ]; then
  echo "== $NODE_TESTS"
  /usr/bin/python3 "$RUNNER" --bin "$BIN" --jobs 2 --data "$NODE_TESTS" \
    --passing "$SRC/tests/conformance/passing_onnx_node_tests.txt" || rc=1
else
  echo "SKIP: $NODE_TESTS/node not found"
fi
exit $rc
