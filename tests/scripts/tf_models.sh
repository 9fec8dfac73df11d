#!/usr/bin/env bash
# TensorFlow frontend end to end: the frozen graphs in ../shared/models/tf (manifest.json:
# atc_args, reference input/output) compile with atc --framework=3, run with omrun and match
# the fp32 references within 1e-4 of the largest reference magnitude; then the generated
# op graphs of tests/tf_gen (numpy references).
# Usage: tf_models.sh BIN_DIR SRC_DIR
set -u
BIN=$1
SRC=$2
PY=/usr/bin/python3
TMP=$(mktemp -d)
export ASCEND_CACHE_PATH="$TMP/atc_cache"  # the kernel cache stays out of $HOME
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
DIR="$SRC/../shared/models/tf"
if [ -f "$DIR/manifest.json" ]; then
  while IFS=$'\t' read -r name model args input ref; do
    if ! "$BIN/atc" --model="$DIR/$model" $args --output="$TMP/$name" --soc_version=native \
        --precision_mode=must_keep_origin_dtype > "$TMP/$name.atc.log" 2>&1; then
      echo "FAIL $name: atc failed"; tail -5 "$TMP/$name.atc.log"; fail=$((fail + 1)); continue
    fi
    if ! "$BIN/omrun" --model="$TMP/$name.om" --input="$DIR/$input" --output="$TMP/$name.out" \
        > "$TMP/$name.run.log" 2>&1; then
      echo "FAIL $name: omrun failed"; tail -5 "$TMP/$name.run.log"; fail=$((fail + 1)); continue
    fi
    if $PY "$SRC/scripts/compare_npy.py" --tol 1e-4 "$TMP/$name.out/output_0.npy" "$DIR/$ref" > "$TMP/$name.cmp" 2>&1; then
      echo "PASS $name ($(cat "$TMP/$name.cmp"))"; pass=$((pass + 1))
    else
      echo "FAIL $name: $(cat "$TMP/$name.cmp")"; fail=$((fail + 1))
    fi
  done < <($PY -c '
import json, sys
m = json.load(open(sys.argv[1]))
for k in sorted(m):
    e = m[k]
    print("\t".join([k, e["model"], e["atc_args"], e["reference_input"], e["reference_output"]]))
' "$DIR/manifest.json")
else
  echo "SKIP shared TF models (not present in $DIR)"
fi
# Generated graphs (tests/tf_gen): prints its own PASS/FAIL lines and "N passed, N failed".
if [ -f "$SRC/tests/tf_gen/run_cases.py" ]; then
  out=$($PY "$SRC/tests/tf_gen/run_cases.py" "$BIN" 2>&1)
  echo "$out"
  p=$(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' | tail -1)
  f=$(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' | tail -1)
  if [ -z "$p" ]; then fail=$((fail + 1)); else pass=$((pass + p)); fail=$((fail + f)); fi
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
