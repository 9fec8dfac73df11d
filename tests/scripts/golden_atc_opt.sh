#!/usr/bin/env bash
# Golden IR tests through atc-opt: every tests/golden/**/NAME.before.ir is run with
# `atc-opt NAME.before.ir` (its "// passes:" and "// options:" lines say what runs) and the
# printed IR must equal NAME.after.ir. ATC_UPDATE_GOLDEN=1 rewrites the .after.ir files.
# Usage: golden_atc_opt.sh BIN_DIR SRC_DIR
set -u
BIN=$(cd "$1" && pwd); SRC=$(cd "$2" && pwd)
OPT="$BIN/atc-opt"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
[ -x "$OPT" ] || { echo "FAIL atc-opt not found at $OPT"; exit 1; }
while IFS= read -r before; do
  base=${before%.before.ir}; name=${base#"$SRC/tests/golden/"}
  if ! (cd "$T" && "$OPT" "$before" > "$T/got.ir" 2> "$T/err.txt"); then
    echo "FAIL $name: atc-opt failed"; sed 's/^/    | /' "$T/err.txt"; fail=$((fail + 1)); continue
  fi
  if [ "${ATC_UPDATE_GOLDEN:-0}" = 1 ]; then cp "$T/got.ir" "$base.after.ir"; fi
  if diff -u "$base.after.ir" "$T/got.ir" > "$T/diff.txt"; then
    echo "PASS $name"; pass=$((pass + 1))
  else
    echo "FAIL $name: output differs from $name.after.ir"; sed 's/^/    | /' "$T/diff.txt" | head -40; fail=$((fail + 1))
  fi
done < <(find "$SRC/tests/golden" -name '*.before.ir' | sort)
# atc-opt's own errors: no passes, unknown pass, missing file, bad IR.
printf 'graph main(%%x: float32[2]) -> (%%x) {\n}\n' > "$T/nopass.ir"
"$OPT" "$T/nopass.ir" > /dev/null 2> "$T/e1" && { echo "FAIL no passes accepted"; fail=$((fail + 1)); } ||
  { grep -q E10007 "$T/e1" && { echo "PASS no passes: E10007"; pass=$((pass + 1)); } || { echo "FAIL no passes message"; fail=$((fail + 1)); }; }
"$OPT" --passes=NoSuchPass "$T/nopass.ir" > /dev/null 2> "$T/e2" && { echo "FAIL unknown pass accepted"; fail=$((fail + 1)); } ||
  { grep -q 'no pass has this name' "$T/e2" && { echo "PASS unknown pass: E10001"; pass=$((pass + 1)); } || { echo "FAIL unknown pass message"; fail=$((fail + 1)); }; }
"$OPT" --passes=dead_code_elimination "$T/missing.ir" > /dev/null 2> "$T/e3" && { echo "FAIL missing file accepted"; fail=$((fail + 1)); } ||
  { echo "PASS missing file refused"; pass=$((pass + 1)); }
printf 'graph main(%%x: float32[2]) -> (%%y) {\n  %%y: float32[2] = Relu(%%zz)\n}\n' > "$T/bad.ir"
"$OPT" --passes=dead_code_elimination "$T/bad.ir" > /dev/null 2> "$T/e4" && { echo "FAIL bad IR accepted"; fail=$((fail + 1)); } ||
  { echo "PASS bad IR refused"; pass=$((pass + 1)); }
"$OPT" --list-passes | grep -q '^PrecisionPass ' && { echo "PASS --list-passes"; pass=$((pass + 1)); } || { echo "FAIL --list-passes"; fail=$((fail + 1)); }
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
