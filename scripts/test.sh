#!/usr/bin/env bash
# Sets up, builds and runs every test (unit tests, CLI tests, end-to-end models, the ONNX
# conformance suite). Usage: scripts/test.sh [ctest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh build
cd build
ctest --output-on-failure -j2 "$@"
