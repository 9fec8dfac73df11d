#!/usr/bin/env bash
# Structure checks of the source tree (tests/structure/README.md): the layering check, the
# function length limit, the pass naming rule with a golden case per pass, and each check's
# ability to fail (a planted violation must be reported). Usage: structure.sh BIN_DIR SRC_DIR
set -u
SRC=$(cd "$2" && pwd)
PY=/usr/bin/python3
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
run() {  # name command...
  local name=$1; shift
  if "$@" > "$T/out.txt" 2>&1; then echo "PASS $name"; else echo "FAIL $name"; sed 's/^/    | /' "$T/out.txt"; fail=$((fail + 1)); fi
}
run "layering: no file includes from a layer above its own" $PY "$SRC/tests/structure/layering.py" --root "$SRC"
run "no function over 120 lines outside kernels/ and tests/" $PY "$SRC/tests/structure/function_length.py" --root "$SRC"
run "function_length self-test" $PY "$SRC/tests/structure/function_length.py" --self-test
run "pass = function = file, a golden case per pass" $PY "$SRC/tests/structure/pass_names.py" --root "$SRC"
# The layering check fails on a planted upward include.
mkdir -p "$T/tree/ir" "$T/tree/atc"
echo '#pragma once' > "$T/tree/atc/driver.h"
printf '#include "atc/driver.h"\n' > "$T/tree/ir/graph.cpp"
if $PY "$SRC/tests/structure/layering.py" --root "$T/tree" > "$T/l.txt" 2>&1; then
  echo "FAIL layering check accepted ir -> atc"; fail=$((fail + 1))
elif grep -q 'ir/graph.cpp:1: includes atc/driver.h' "$T/l.txt"; then
  echo "PASS layering check reports a planted ir -> atc include"
else
  echo "FAIL layering check message"; cat "$T/l.txt"; fail=$((fail + 1))
fi
echo "$fail failed"
[ "$fail" -eq 0 ]
