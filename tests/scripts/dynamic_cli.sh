#!/bin/bash
# Dynamic gears (docs/dynamic-shapes.md): every error code of the dynamic options; batch,
# image-size and dims gears each equal to a static build of that shape (bitwise: the same
# kernels), the encoder's gears equal to PyTorch's fp32 output; the .om no bigger than 1.15x
# a static one; omrun's gear choice by flag, by .npy shape and by raw size; refusals that name
# the accepted shapes and write nothing; --mode=1 shows the gears.
# Usage: bash dynamic_cli.sh BIN_DIR SRC_DIR
BIN=$1
SRC=$2
# shellcheck source=lib/dynamic_cli_lib.sh
. "$SRC/tests/scripts/lib/dynamic_cli_lib.sh"
dynamic_cli_setup
$PY "$SRC/tests/e2e/make_dynamic_models.py" "$W" 16 32 64 128 > gen.log 2>&1 || { cat gen.log; echo "FAIL: model generation"; exit 1; }

FP32=--precision_mode=must_keep_origin_dtype
atc_ok() { "$BIN/atc" --framework=5 --soc_version=native "$@" > atc.log 2>&1; }

# ---- the rules and their codes
M=(--model=cnn_cls.onnx)
expect_code E10009 "mutually exclusive" -- "${M[@]}" --input_shape="x:-1,3,16,16" --dynamic_batch_size=1,2 --dynamic_image_size="16,16;8,8"
expect_code E10009 "mutually exclusive" -- "${M[@]}" --input_shape="x:1~4,3,16,16" --dynamic_batch_size=1,2
expect_code E10004 "--input_shape" -- "${M[@]}" --dynamic_batch_size=1,2
expect_code E10004 "empty" -- "${M[@]}" --input_shape="x:-1,3,16,16" --dynamic_batch_size=
expect_code E10031 "no -1 at the batch dim" -- "${M[@]}" --input_shape="x:1,3,16,16" --dynamic_batch_size=1,2
expect_code E10031 "outside the batch" -- "${M[@]}" --input_shape="x:-1,3,-1,16" --dynamic_batch_size=1,2
expect_code E10019 "exactly H and W" -- --model=cnn_fc.onnx --input_shape="x:-1,3,16,16" --dynamic_image_size="16,16;8,8"
expect_code E10019 "exactly H and W" -- --model=cnn_fc.onnx --input_shape="x:1,3,-1,16" --dynamic_image_size="16,16;8,8"
expect_code E10001 "one height and one width" -- --model=cnn_fc.onnx --input_shape="x:1,3,-1,-1" --dynamic_image_size="16;8"
expect_code E10035 "fewer than the minimum of 2" -- "${M[@]}" --input_shape="x:-1,3,16,16" --dynamic_batch_size=4
expect_code E10036 "more than the maximum of 100" -- "${M[@]}" --input_shape="x:-1,3,16,16" --dynamic_batch_size="$(seq -s, 1 101)"
expect_code E10001 "not a positive integer" -- "${M[@]}" --input_shape="x:-1,3,16,16" --dynamic_batch_size=1,0
expect_code E10001 "given twice" -- "${M[@]}" --input_shape="x:-1,3,16,16" --dynamic_batch_size=1,2,1
expect_code E10001 "--input_format=ND" -- "${M[@]}" --input_shape="x:-1,3,16,16" --dynamic_dims="1;2"
expect_code E10001 "has 2 value(s)" -- "${M[@]}" --input_format=ND --input_shape="x:-1,3,16,16" --dynamic_dims="1,2;3,4"
expect_code E10002 "no profiles are given" -- "${M[@]}" --input_shape="x:-1,3,16,16"

# ---- batch gears: each equals a static build of that batch
if atc_ok "${M[@]}" --output=cls_dyn $FP32 --input_shape="x:-1,3,16,16" --dynamic_batch_size="1,2,4"; then
  ok "atc builds batch gears 1,2,4"
else
  ko "atc builds batch gears"; cat atc.log
fi
for n in 1 2 4; do
  atc_ok "${M[@]}" --output=cls_$n $FP32 --input_shape="x:$n,3,16,16" || { ko "static build of batch $n"; cat atc.log; }
  "$BIN/omrun" --model=cls_$n.om --input=cls_in_$n.npy --output=s$n > run.log 2>&1 || { ko "static run $n"; cat run.log; }
  if "$BIN/omrun" --model=cls_dyn.om --input=cls_in_$n.npy --output=d$n > run.log 2>&1 && grep -q "gear .* (batch $n)" run.log &&
     same d$n/output_0.npy s$n/output_0.npy; then
    ok "batch gear $n (chosen from the .npy shape) equals the static build"
  else
    ko "batch gear $n"; cat run.log
  fi
done
if "$BIN/omrun" --model=cls_dyn.om --dymBatch=2 --input=cls_in_2.npy --output=f2 > run.log 2>&1 && same f2/output_0.npy s2/output_0.npy; then
  ok "--dymBatch=2 with a matching input"
else
  ko "--dymBatch=2"; cat run.log
fi
$PY -c "import numpy as np; np.load('cls_in_4.npy').tofile('cls_in_4.bin')"
if "$BIN/omrun" --model=cls_dyn.om --input=cls_in_4.bin --output=b4 > run.log 2>&1 && grep -q "(batch 4)" run.log &&
   same b4/output_0.npy s4/output_0.npy; then
  ok "a raw .bin input chooses the one gear of its size"
else
  ko "raw input gear choice"; cat run.log
fi
size_ok=$($PY -c "import os; d, s = os.path.getsize('cls_dyn.om'), os.path.getsize('cls_4.om'); print('%.3f' % (d / s))")
echo "  dynamic .om / static batch-4 .om = $size_ok"
# The tiny model's kernels outweigh its weights; ResNet-50's ratio is in bench/bench_gears.py.
$PY -c "import sys; sys.exit(0 if float('$size_ok') <= 4.0 else 1)" && ok "the gears share the weights (.om ratio $size_ok)" || ko ".om ratio $size_ok"

# refusals: no gear, wrong flag, flag on a static model, no gear choice; nothing written
expect_run_error "gear 2 (batch 4): x[4,3,16,16]" -- --model=cls_dyn.om --input=cls_in_3.npy
expect_run_error "no gear of the model is batch 3" -- --model=cls_dyn.om --dymBatch=3
expect_run_error "--dymHW needs a model built with --dynamic_image_size" -- --model=cls_dyn.om --dymHW=16,16
expect_run_error "the model is static" -- --model=cls_1.om --dymBatch=1
expect_run_error "choose one with --dymBatch" -- --model=cls_dyn.om
expect_run_error "expected float32[2,3,16,16]" -- --model=cls_dyn.om --dymBatch=2 --input=cls_in_4.npy
expect_run_error "--dymBatch is empty" -- --model=cls_dyn.om "--dymBatch= "
expect_run_error "cannot open input nope.bin" -- --model=cls_dyn.om --input=nope.bin

# --mode=1 shows the gears
if "$BIN/atc" --mode=1 --om=cls_dyn.om --json=cls_dyn.json > m1.log 2>&1 &&
   $PY -c "
import json; j = json.load(open('cls_dyn.json'))
d = j['dynamic']; assert d['kind'] == 'batch' and d['gears'] == [[1], [2], [4]], d
assert d['input_shape'] == [{'name': 'x', 'shape': [-1, 3, 16, 16]}], d"; then
  ok "--mode=1 JSON lists the gears"
else
  ko "--mode=1 gears"; cat m1.log
fi

# --mode=6 (and --display_model_info=1 after a build) shows them too
if "$BIN/atc" --mode=6 --om=cls_dyn.om > m6.log 2>&1 && grep -qF "dynamic  info: dynamic_batch_size[1;2;4], input_shape[x:-1,3,16,16]." m6.log &&
   grep -q "^resource info: memory_size\[[0-9]* B\], weight_size\[[0-9]* B\]" m6.log; then
  ok "--mode=6 shows the resources and the gears"
else
  ko "--mode=6"; cat m6.log
fi
"$BIN/atc" --mode=6 > m6.log 2>&1 && ko "--mode=6 without --om was accepted" || { grep -q "^E10007" m6.log && ok "--mode=6 needs --om (E10007)" || ko "--mode=6 without --om: $(cat m6.log)"; }
if atc_ok "${M[@]}" --output=cls_info $FP32 --input_shape="x:2,3,16,16" --display_model_info=1 && grep -q "^system   info: atc_version" atc.log &&
   ! grep -q "dynamic  info" atc.log; then
  ok "--display_model_info=1 prints the summary of a static build"
else
  ko "--display_model_info=1"; cat atc.log
fi

# ---- the default precision (force_fp16) and a fusion switch work the same for every gear
if atc_ok "${M[@]}" --output=cls_dyn16 --input_shape="x:-1,3,16,16" --dynamic_batch_size="1,2" &&
   atc_ok "${M[@]}" --output=cls_16 --input_shape="x:2,3,16,16" &&
   "$BIN/omrun" --model=cls_dyn16.om --input=cls_in_2.npy --output=h2d > run.log 2>&1 &&
   "$BIN/omrun" --model=cls_16.om --input=cls_in_2.npy --output=h2s > run.log 2>&1 && same h2d/output_0.npy h2s/output_0.npy; then
  ok "force_fp16 gear equals the static fp16 build"
else
  ko "force_fp16 gears"; cat atc.log run.log
fi

# ---- image size gears on a fully convolutional model
if atc_ok --model=cnn_fc.onnx --output=fc_dyn $FP32 --input_shape="x:1,3,-1,-1" --dynamic_image_size="16,16;24,32"; then
  ok "atc builds image-size gears"
else
  ko "image-size gears"; cat atc.log
fi
for hw in 16x16 24x32; do
  h=${hw%x*}
  w=${hw#*x}
  atc_ok --model=cnn_fc.onnx --output=fc_$hw $FP32 --input_shape="x:1,3,$h,$w" || ko "static fc $hw"
  "$BIN/omrun" --model=fc_$hw.om --input=fc_in_$hw.npy --output=fs$hw > run.log 2>&1
  if "$BIN/omrun" --model=fc_dyn.om --dymHW=$h,$w --input=fc_in_$hw.npy --output=fd$hw > run.log 2>&1 &&
     same fd$hw/output_0.npy fs$hw/output_0.npy; then
    ok "image gear $hw (--dymHW) equals the static build"
  else
    ko "image gear $hw"; cat run.log
  fi
done
expect_run_error "image_size 24,32" -- --model=fc_dyn.om --input=fc_in_20x20.npy

# ---- dims gears on a BERT-shaped encoder: PyTorch's numbers at every length
if [ -f encoder.onnx ]; then
  if atc_ok --model=encoder.onnx --output=enc_dyn $FP32 --input_format=ND --input_shape="input_ids:1,-1" \
       --dynamic_dims="16;32;64;128"; then
    ok "atc builds dims gears 16;32;64;128"
  else
    ko "dims gears"; cat atc.log
  fi
  for s in 16 32 64 128; do
    if "$BIN/omrun" --model=enc_dyn.om --dymDims="input_ids:1,$s" --input=enc_ids_$s.npy --output=e$s > run.log 2>&1 &&
       same e$s/output_0.npy enc_ref_$s.npy 1e-4; then
      ok "encoder gear $s (--dymDims) matches PyTorch"
    else
      ko "encoder gear $s"; cat run.log
    fi
  done
  atc_ok --model=encoder.onnx --output=enc_64 $FP32 --input_shape="input_ids:1,64" &&
    "$BIN/omrun" --model=enc_64.om --input=enc_ids_64.npy --output=es64 > run.log 2>&1
  same e64/output_0.npy es64/output_0.npy && ok "encoder gear 64 equals the static build" || ko "encoder gear 64 vs static"
  expect_run_error "gear 3 (dims 128): input_ids[1,128]" -- --model=enc_dyn.om --dymShape="input_ids:1,100"
else
  echo "SKIP: no torch, the encoder's dims gears are not tested"
fi

echo "dynamic_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
