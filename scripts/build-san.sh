#!/usr/bin/env bash
# Configures and builds build-san: the host code with AddressSanitizer + UndefinedBehavior-
# Sanitizer (clang-19, RelWithDebInfo) and the libFuzzer targets of fuzz/. Idempotent: the
# same cmake line each time, then ninja builds what changed.
# Usage: scripts/build-san.sh [ninja targets...]   (default: everything)
# Used by scripts/test-sanitizers.sh and scripts/fuzz.sh.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
B="$SRC/build-san"
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$SRC")}
mkdir -p "$B"
cmake -S "$SRC" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DATC_SANITIZE=address,undefined -DATC_FUZZ=ON > "$B/configure.log" 2>&1 ||
  { cat "$B/configure.log"; exit 1; }
ninja -C "$B" -j"$(nproc)" "$@"
