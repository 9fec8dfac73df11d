#!/usr/bin/env bash
# End-to-end on models exported the same way as ../shared/models/onnx: torchvision CNNs and a
# BERT-style encoder (torch.nn.TransformerEncoder), compiled with atc, run with omrun and
# compared with PyTorch's fp32 outputs. Skips when torch/torchvision are not installed.
# Usage: e2e_torchvision.sh BIN_DIR SRC_DIR
set -u
BIN=$1
SRC=$2
. "$SRC/tests/scripts/lib/torch_e2e.sh"
torch_e2e_setup "torch, torchvision"
MODELS="shufflenet_v2_x0_5 mnasnet0_5 efficientnet_b0 regnet_x_400mf encoder"
/usr/bin/python3 "$SRC/tests/e2e/export_torch_models.py" "$TMP" $MODELS > "$TMP/export.log" 2>&1 || {
  echo "FAIL: export"; tail -20 "$TMP/export.log"; exit 1; }
pass=0
fail=0
cd "$TMP"
for m in $MODELS; do
  if "$BIN/atc" --model="$m.onnx" --framework=5 --output="$m" --soc_version=native \
       --precision_mode=must_keep_origin_dtype > "$m.atc.log" 2>&1 &&
     "$BIN/omrun" --model="$m.om" --input="$m.in.npy" --output="$m.res" > "$m.run.log" 2>&1 &&
     /usr/bin/python3 "$SRC/scripts/compare_npy.py" "$m.res/output_0.npy" "$m.out.npy"; then
    echo "PASS $m"; pass=$((pass + 1))
  else
    echo "FAIL $m"; tail -3 "$m.atc.log" "$m.run.log" 2>/dev/null; fail=$((fail + 1))
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
