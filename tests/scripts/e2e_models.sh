#!/usr/bin/env bash
# End-to-end: the bundled sample and the real models in ../shared/models/onnx (when present)
# compile with atc, run with omrun on their reference inputs and match the fp32 reference
# outputs (max abs error <= 1e-3 of the largest reference magnitude). Then the repros of
# ../shared/repros that must give a right answer, with inputs and references made here.
# Usage: e2e_models.sh BIN_DIR SRC_DIR
set -u
BIN=$1
SRC=$2
TMP=$(mktemp -d)
export ASCEND_CACHE_PATH="$TMP/atc_cache"  # the kernel cache stays out of $HOME
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
run_model() {  # name dir [soc_version]
  local name=$1 dir=$2 soc=${3:-native}
  local tag=$name
  [ "$soc" != native ] && tag="$name@$soc"
  if [ ! -f "$dir/$name.onnx" ]; then
    echo "SKIP $name (not present in $dir)"
    return
  fi
  local t0=$(date +%s.%N)
  if ! "$BIN/atc" --model="$dir/$name.onnx" --framework=5 --output="$TMP/$tag" \
      --soc_version="$soc" --precision_mode=must_keep_origin_dtype > "$TMP/$tag.atc.log" 2>&1; then
    echo "FAIL $tag: atc failed"; tail -5 "$TMP/$tag.atc.log"; fail=$((fail + 1)); return
  fi
  local t1=$(date +%s.%N)
  if ! "$BIN/omrun" --model="$TMP/$tag.om" --input="$dir/$name.in.npy" --output="$TMP/$tag.out" \
      > "$TMP/$tag.run.log" 2>&1; then
    echo "FAIL $tag: omrun failed"; tail -5 "$TMP/$tag.run.log"; fail=$((fail + 1)); return
  fi
  if /usr/bin/python3 "$SRC/scripts/compare_npy.py" "$TMP/$tag.out/output_0.npy" "$dir/$name.out.npy"; then
    printf "PASS %s (compile %.1f s)\n" "$tag" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')"
    pass=$((pass + 1))
  else
    echo "FAIL $tag: output mismatch"; fail=$((fail + 1))
  fi
}
run_model squeezenet1_1 "$SRC/samples/models"
SHARED="$SRC/../shared/models/onnx"
for m in resnet18 mobilenet_v2 squeezenet1_1 bert_tiny; do
  run_model "$m" "$SHARED"
done
# Each microkernel family the host can run (docs/kernels-cube.md): x86-64-v3 (6-row, 256-bit)
# and x86-64-v4 (16-row, 512-bit), whatever "native" chose above.
flags=$(grep -m1 '^flags' /proc/cpuinfo)
for soc in x86-64-v3 x86-64-v4; do
  need=avx2
  [ "$soc" = x86-64-v4 ] && need=avx512f
  if ! grep -qw "$need" <<< "$flags"; then
    echo "SKIP resnet18, bert_tiny @$soc (this CPU lacks $need)"
    continue
  fi
  for m in resnet18 bert_tiny; do
    run_model "$m" "$SHARED" "$soc"
  done
done
# castlike_add: y = x + CastLike(Constant(0.5), x). CastLike between equal dtypes once wrote
# its output over its second input (x) and left its own output unwritten: [0.5, 0, 1, -2, 3].
REPROS="$SRC/../shared/repros"
if [ -f "$REPROS/castlike_add.onnx" ]; then
  mkdir -p "$TMP/repros"
  cp "$REPROS/castlike_add.onnx" "$TMP/repros/castlike_add.onnx"
  /usr/bin/python3 -c "
import numpy as np
x = np.array([-1, 0, 1, -2, 3], dtype=np.float32)
np.save('$TMP/repros/castlike_add.in.npy', x)
np.save('$TMP/repros/castlike_add.out.npy', x + np.float32(0.5))"
  run_model castlike_add "$TMP/repros"
else
  echo "SKIP castlike_add (not present in $REPROS)"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
