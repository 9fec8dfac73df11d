#!/bin/bash
# Shape ranges (docs/dynamic-shapes.md, "Ranges"): the option errors; a CNN built with a batch
# range 1~16 equal to static builds at 1, 3 and 16 (within 1e-6); a BERT-shaped encoder built with
# 1~512 matching PyTorch's fp32 output at lengths 1, 7, 64, 128, 333, 512 (with
# --input_shape_range's syntax too); omrun's refusals of shapes outside the range (nothing
# written); --mode=1 and --mode=6 show the ranges.
# Usage: bash ranges_cli.sh BIN_DIR SRC_DIR
BIN=$1
SRC=$2
# shellcheck source=lib/dynamic_cli_lib.sh
. "$SRC/tests/scripts/lib/dynamic_cli_lib.sh"
dynamic_cli_setup
SEQS="1 7 64 128 333 512"
# shellcheck disable=SC2086
$PY "$SRC/tests/e2e/make_dynamic_models.py" "$W" $SEQS > gen.log 2>&1 || { cat gen.log; echo "FAIL: model generation"; exit 1; }
$PY -c "
import numpy as np
np.save('cls_in_16.npy', np.random.default_rng(1).standard_normal((16, 3, 16, 16)).astype(np.float32))
np.save('cls_in_17.npy', np.zeros((17, 3, 16, 16), np.float32))"

FP32=--precision_mode=must_keep_origin_dtype
atc_ok() { "$BIN/atc" --framework=5 --soc_version=native "$@" > atc.log 2>&1; }

# ---- the option's rules
M=(--model=cnn_cls.onnx)
expect_code E10002 "is unbounded" -- "${M[@]}" --input_shape="x:1~-1,3,16,16"
expect_code E10002 "is not 1 <= lo <= hi" -- "${M[@]}" --input_shape="x:4~2,3,16,16"
expect_code E10002 "is not 1 <= lo <= hi" -- "${M[@]}" --input_shape="x:0~2,3,16,16"
expect_code E10002 "not two integers" -- "${M[@]}" --input_shape="x:1~a,3,16,16"
expect_code E10002 "more than 1024 shapes" -- "${M[@]}" --input_shape="x:1~2000,3,16,16"
expect_code E10002 "more than 1024 shapes" -- --model=cnn_fc.onnx --input_shape="x:1,3,16~64,16~64"
expect_code E10009 "mutually exclusive" -- "${M[@]}" --input_shape="x:1~4,3,16,16" --input_shape_range="x:[1~4,3,16,16]"
expect_code E10009 "mutually exclusive" -- "${M[@]}" --input_shape_range="x:[1~4,3,16,16]" --dynamic_batch_size=1,2
expect_code E10002 "in brackets" -- "${M[@]}" --input_shape_range="x:1~4,3,16,16"
expect_code E10002 "a range with both ends" -- "${M[@]}" --input_shape="x:-1,3,16,16"

# ---- a batch range: every batch equals its static build
if atc_ok "${M[@]}" --output=cls_r $FP32 --input_shape="x:1~16,3,16,16"; then
  ok "atc builds a batch range 1~16"
else
  ko "atc builds a batch range"; cat atc.log
fi
for n in 1 3 16; do
  atc_ok "${M[@]}" --output=cls_$n $FP32 --input_shape="x:$n,3,16,16" || { ko "static build of batch $n"; cat atc.log; }
  "$BIN/omrun" --model=cls_$n.om --input=cls_in_$n.npy --output=s$n > run.log 2>&1 || { ko "static run $n"; cat run.log; }
  # (1e-6: on 512-bit targets a range build packs B for the 6x64 tiles at every M, where a static
  # build of few rows uses the 16-column tiles: the classifier's sums may round differently)
  if "$BIN/omrun" --model=cls_r.om --input=cls_in_$n.npy --output=r$n > run.log 2>&1 &&
     same r$n/output_0.npy s$n/output_0.npy 1e-6; then
    ok "batch $n of the range equals the static build"
  else
    ko "batch $n of the range"; cat run.log
  fi
done
# the data dump of a range model describes the steps of the shape it ran, as a static build of that
# shape does (the descriptions are stored once for all shapes: docs/om-format.md, "Step descriptions")
if "$BIN/omrun" --model=cls_r.om --input=cls_in_3.npy --output=dr --dump=dump_r > run.log 2>&1 &&
   "$BIN/omrun" --model=cls_3.om --input=cls_in_3.npy --output=ds --dump=dump_s >> run.log 2>&1 && $PY -c "
import glob, json
def steps(d):
    m = json.load(open(glob.glob(d + '/*/dump_map.json')[0]))
    return [(s['node'], s['type'], s['kernel'],
             [(t['tensor'], t['dtype'], t['shape'], t['file'] is None) for t in s.get('inputs', []) + s['outputs']])
            for s in m['steps']]
r, s = steps('dump_r'), steps('dump_s')
assert r == s, (r, s)
assert r[0][3][0][2][0] == 3 and not r[0][3][0][3], r[0]  # the first step's output: batch 3, dumped"; then
  ok "the data dump of batch 3 of the range describes its steps as the static build's does"
else
  ko "data dump of a range model"; cat run.log
fi
expect_run_error "lie outside the model's shape ranges; it accepts every shape of x[1~16,3,16,16]" -- --model=cls_r.om --input=cls_in_17.npy
expect_run_error "x[1~16,3,16,16]" -- --model=cls_r.om --dymShape="x:0,3,16,16"
expect_run_error "--dymBatch needs a model built with --dynamic_batch_size" -- --model=cls_r.om --dymBatch=2
if "$BIN/atc" --mode=6 --om=cls_r.om > m6.log 2>&1 && grep -qF "dynamic  info: input_shape_range[x:[1~16,3,16,16]], shapes[16]" m6.log; then
  ok "--mode=6 shows the range"
else
  ko "--mode=6 range"; cat m6.log
fi
if "$BIN/atc" --mode=1 --om=cls_r.om --json=cls_r.json > m1.log 2>&1 && $PY -c "
import json; d = json.load(open('cls_r.json'))['dynamic']
assert d['kind'] == 'range' and d['ranges'] == [{'name': 'x', 'min': [1, 3, 16, 16], 'max': [16, 3, 16, 16]}], d"; then
  ok "--mode=1 JSON lists the range"
else
  ko "--mode=1 range"; cat m1.log
fi

# ---- a BERT-shaped encoder over 1~512: PyTorch's numbers at every length
if [ -f encoder.onnx ]; then
  if atc_ok --model=encoder.onnx --output=enc_r $FP32 --input_shape_range="input_ids:[1,1~512]" --log=info; then
    ok "atc builds the encoder over input_ids:[1,1~512] ($(grep -o 'range: .*' atc.log))"
  else
    ko "encoder range"; cat atc.log
  fi
  for s in $SEQS; do
    if "$BIN/omrun" --model=enc_r.om --input=enc_ids_$s.npy --output=e$s > run.log 2>&1 && same e$s/output_0.npy enc_ref_$s.npy 1e-4; then
      ok "encoder length $s of the range matches PyTorch"
    else
      ko "encoder length $s"; cat run.log
    fi
  done
  size=$($PY -c "import os; print(os.path.getsize('enc_r.om'))")
  # the position table's slices pos[:, :S], folded once per length, share its bytes
  [ "$size" -lt 8000000 ] && ok "the range's .om is $size bytes" || ko "the range's .om is $size bytes"
  expect_run_error "input_ids[1,1~512]" -- --model=enc_r.om --dymShape="input_ids:1,513"
else
  echo "SKIP: no torch, the encoder's range is not tested"
fi

# ---- two inputs with the same range share one length (64 shapes, not 64 x 64)
$PY -c "
import numpy as np, onnx
from onnx import TensorProto as T, helper as h
g = h.make_graph([h.make_node('Mul', ['x', 'm'], ['y'])], 'two',
                 [h.make_tensor_value_info('x', T.FLOAT, [1, 'S', 4]), h.make_tensor_value_info('m', T.FLOAT, [1, 'S', 1])],
                 [h.make_tensor_value_info('y', T.FLOAT, [1, 'S', 4])])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid('', 13)]), 'two.onnx')
r = np.random.default_rng(2)
np.save('two_x.npy', r.standard_normal((1, 5, 4)).astype(np.float32))
np.save('two_m.npy', r.standard_normal((1, 5, 1)).astype(np.float32))
np.save('two_m6.npy', r.standard_normal((1, 6, 1)).astype(np.float32))
np.save('two_y.npy', np.load('two_x.npy') * np.load('two_m.npy'))"
if atc_ok --model=two.onnx --output=two_r $FP32 --input_shape="x:1,1~64,4;m:1,1~64,1" &&
   "$BIN/atc" --mode=6 --om=two_r.om | grep -qF "input_shape_range[x:[1,1~64,4];m:[1,1~64,1]], shapes[64]" &&
   "$BIN/omrun" --model=two_r.om --input=two_x.npy,two_m.npy --output=two_o > run.log 2>&1 && same two_o/output_0.npy two_y.npy 1e-6; then
  ok "two inputs of one range vary together (64 shapes)"
else
  ko "two inputs of one range"; cat atc.log run.log
fi
expect_run_error "x[1,1~64,4], m[1,1~64,1]" -- --model=two_r.om --input=two_x.npy,two_m6.npy

# ---- a TF frozen graph with a batch range (its Const weights shared across the shapes)
TF="$SRC/../shared/models/tf/cifar10_cnn.pb"
if [ -f "$TF" ]; then
  TFA=(--framework=3 --soc_version=native $FP32 --out_nodes=fully_connect_2/logits:0)
  $PY -c "
import numpy as np
x = np.load('$SRC/../shared/models/tf/cifar10_cnn.in.npy')
np.save('tf_in_3.npy', np.concatenate([x, x * 0.5, x * 2]).astype(np.float32))"
  if "$BIN/atc" --model="$TF" "${TFA[@]}" --output=tf_r --input_shape="Placeholder:1~4,32,32,3" > atc.log 2>&1 &&
     "$BIN/atc" --model="$TF" "${TFA[@]}" --output=tf_3 --input_shape="Placeholder:3,32,32,3" > atc.log 2>&1 &&
     "$BIN/omrun" --model=tf_r.om --input=tf_in_3.npy --output=tr > run.log 2>&1 &&
     "$BIN/omrun" --model=tf_3.om --input=tf_in_3.npy --output=ts > run.log 2>&1 && same tr/output_0.npy ts/output_0.npy 1e-5; then
    ok "a TF graph's batch range equals its static build at batch 3"
  else
    ko "TF batch range"; cat atc.log run.log
  fi
else
  echo "SKIP: no shared TF models"
fi

echo "ranges_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
