#!/bin/bash
# Precision modes end to end: ResNet-18 and BERT-tiny under every mode; origin within 1e-4
# of the fp32 build, force_fp16 cosine >= 0.999 but different; allow_mix_precision keeps
# black-listed ops in fp32 in the --mode=1 JSON; --modify_mixlist changes JSON and outputs.
# Usage: precision_cli.sh <bin dir> <repo root>
BIN=$(cd "$1" && pwd); ROOT=$(cd "${2:-.}" && pwd)
M=/work/shared/models/onnx
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export ASCEND_CACHE_PATH="$T/cache"
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "$2" ] && echo "$2" | tail -5; }
build() {  # name model out args...
  local n=$1 m=$2 o=$3; shift 3
  (cd "$T" && "$BIN/atc" --model="$m" --framework=5 --output="$T/$o" --soc_version=native "$@" > "$T/$o.log" 2>&1) ||
    { bad "$n build" "$(cat "$T/$o.log")"; return 1; }
}
runom() {  # om name -> $T/<name>.out/output_0.npy
  "$BIN/omrun" --model="$T/$1.om" --input="$M/$2.in.npy" --output="$T/$1.out" > "$T/$1.run.log" 2>&1 ||
    { bad "$1 omrun" "$(cat "$T/$1.run.log")"; return 1; }
}
cmp_out() {  # kind a.npy ref.npy: kind origin (max abs <= 1e-4) | reduced (cosine >= 0.999, differs) | differ
  /usr/bin/python3 - "$@" <<'PY'
import sys, numpy as np
k, a, b = sys.argv[1], np.load(sys.argv[2]).astype(np.float64).ravel(), np.load(sys.argv[3]).astype(np.float64).ravel()
d = np.abs(a - b).max(); cos = a.dot(b) / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-30)
print("max_abs_diff %.3g cosine %.6f" % (d, cos))
ok = d <= 1e-4 if k == "origin" else (cos >= 0.999 and d > 0) if k == "reduced" else d > 0
sys.exit(0 if ok else 1)
PY
}
# errors
(cd "$T" && "$BIN/atc" --model=$M/resnet18.onnx --framework=5 --output=$T/e --soc_version=native --precision_mode=force_fp16 --modify_mixlist=/dev/null 2>&1) | grep -q E10001 && ok "modify_mixlist without mixed mode: E10001" || bad "modify_mixlist E10001"
(cd "$T" && "$BIN/atc" --model=$M/resnet18.onnx --framework=5 --output=$T/e --soc_version=native --precision_mode=force_fp16 --precision_mode_v2=fp16 2>&1) | grep -q E10056 && ok "both precision options: E10056" || bad "E10056"
for model in resnet18 bert_tiny; do
  f=$M/$model.onnx; [ -f "$f" ] || f=
  [ -z "$f" ] && { echo "SKIP $model (no model)"; continue; }
  build "$model origin" "$f" ${model}_origin --precision_mode=must_keep_origin_dtype || continue
  for mode in force_fp16 allow_fp32_to_fp16 force_fp32 allow_mix_precision allow_mix_precision_bf16 allow_fp32_to_bf16; do
    build "$model $mode" "$f" ${model}_$mode --precision_mode=$mode && ok "$model builds under $mode"
  done
  for mode in origin fp16 cube_fp16in_fp32out mixed_float16 mixed_bfloat16; do
    build "$model v2 $mode" "$f" ${model}_v2_$mode --precision_mode_v2=$mode && ok "$model builds under v2 $mode"
  done
  ref="$M/$model.out.npy"
  runom ${model}_origin $model && cmp_out origin "$T/${model}_origin.out/output_0.npy" "$ref" && ok "$model origin within 1e-4"
  runom ${model}_force_fp16 $model && cmp_out reduced "$T/${model}_force_fp16.out/output_0.npy" "$ref" &&
    ok "$model force_fp16 cosine >= 0.999 and differs" || bad "$model force_fp16 accuracy"
  printf '{"black-list":{"to-remove":["Softmax","ReduceMean"]},"white-list":{"to-remove":["MatMul","Conv","Gemm"]}}' > "$T/mix.json"
  build "$model mixlist" "$f" ${model}_mix2 --precision_mode=allow_mix_precision --modify_mixlist="$T/mix.json" &&
    runom ${model}_mix2 $model && runom ${model}_allow_mix_precision $model &&
    cmp_out differ "$T/${model}_mix2.out/output_0.npy" "$T/${model}_allow_mix_precision.out/output_0.npy" &&
    ok "$model --modify_mixlist changes the outputs" || bad "$model modify_mixlist outputs"
  (cd "$T" && "$BIN/atc" --mode=1 --om="$T/${model}_mix2.om" --json="$T/${model}_mix2.json" > /dev/null 2>&1) &&
    ! cmp -s <(/usr/bin/python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['precision_decisions'])" "$T/${model}_mix2.json") \
             <(cd "$T" && "$BIN/atc" --mode=1 --om="$T/${model}_allow_mix_precision.om" --json="$T/m1.json" >/dev/null 2>&1 &&
               /usr/bin/python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['precision_decisions'])" "$T/m1.json") &&
    ok "$model --modify_mixlist changes the JSON" || bad "$model modify_mixlist JSON"
  (cd "$T" && "$BIN/atc" --mode=1 --om="$T/${model}_allow_mix_precision.om" --json="$T/${model}_mix.json" > /dev/null 2>&1) &&
    /usr/bin/python3 - "$T/${model}_mix.json" <<'PY' && ok "$model --mode=1 JSON shows black-list ops in float32" || bad "$model mix JSON"
import json, sys
j = json.load(open(sys.argv[1]))
d = j["precision_decisions"]
black = [x for x in d if x["reason"] == "black list"]
white = [x for x in d if x["reason"] == "white list"]
assert white and all(x["dtype_out"] == "float16" for x in white), white[:2]
assert all(x["dtype_out"] == "float32" for x in black)
PY
done
# npu-like profile end to end (x86-64-v3 code, NPU-like op-info: cube ops read float16 only).
# force_fp16 builds and runs; the cube ops write float16 themselves (CastFoldingPass: no Cast
# after them); must_keep_origin_dtype has no float32 cube kernel: E10001 naming the op.
for model in resnet18 bert_tiny; do
  f=$M/$model.onnx; [ -f "$f" ] || { echo "SKIP $model npu-like (no model)"; continue; }
  o=${model}_npu_fp16
  (cd "$T" && "$BIN/atc" --model="$f" --framework=5 --output="$T/$o" --soc_version=npu-like --precision_mode=force_fp16 > "$T/$o.log" 2>&1) &&
    ok "$model npu-like force_fp16 builds" || bad "$model npu-like force_fp16 build" "$(cat "$T/$o.log")"
  runom $o $model && cmp_out reduced "$T/$o.out/output_0.npy" "$M/$model.out.npy" &&
    ok "$model npu-like force_fp16 runs: cosine >= 0.999 and differs" || bad "$model npu-like force_fp16 accuracy"
  (cd "$T" && "$BIN/atc" --mode=1 --om="$T/$o.om" --json="$T/$o.json" > /dev/null 2>&1) &&
    /usr/bin/python3 - "$T/$o.json" <<'PY' && ok "$model npu-like: cube ops write float16 (Cast folded into the store)" || bad "$model npu-like cast folding"
import json, sys
d = json.load(open(sys.argv[1]))["precision_decisions"]
cube = [x for x in d if x["type"] in ("Conv", "MatMul", "Gemm")]
assert cube and all(x["dtype_in"] == "float16" for x in cube), cube[:2]
red = [x for x in cube if x["dtype_out"] == "float16"]
# Rounding Casts left only where the float32 result also has float32 readers (MaxPool, residual).
left = [x for x in d if x["type"] == "Cast" and "result rounded" in x["reason"]]
assert red and len(left) < len(red), (len(left), len(red))
print("cube ops writing float16: %d, rounding Casts left: %d" % (len(red), len(left)))
PY
  o=${model}_npu_origin
  (cd "$T" && "$BIN/atc" --model="$f" --framework=5 --output="$T/$o" --soc_version=npu-like --precision_mode=must_keep_origin_dtype > "$T/$o.log" 2>&1)
  rc=$?
  [ $rc -ne 0 ] && grep -q E10001 "$T/$o.log" && grep -qE "Op \[[^]]+\] \((Conv|MatMul|Gemm)\) cannot run in float32 .*supports float16 for it" "$T/$o.log" &&
    ok "$model npu-like must_keep_origin_dtype: E10001 names the cube op" || bad "$model npu-like origin error" "$(cat "$T/$o.log")"
done
# float16 conversions: vcvtph2ps / vcvtps2ph on targets with F16C; a target without it (a
# user profile, x86-64-v2) gets the software conversions and the same results (up to FMA
# contraction: x86-64-v2 has no FMA).
mkdir -p "$T/targets"
echo '{"triple":"x86_64-unknown-linux-gnu","cpu":"x86-64-v2","features":[],"op_info":{}}' > "$T/targets/nof16c.json"
f16kernels() {  # om -> number of F16C conversion instructions in its kernel library
  /usr/bin/python3 -c "import sys; d=open(sys.argv[1],'rb').read(); open(sys.argv[2],'wb').write(d[d.find(b'\x7fELF'):])" \
    "$T/$1.om" "$T/$1.so" && objdump -d "$T/$1.so" | grep -cE 'vcvtp(h2ps|s2ph)'
}
if command -v objdump > /dev/null; then
  (cd "$T" && "$BIN/atc" --model="$M/resnet18.onnx" --framework=5 --output="$T/r18_v3_fp16" --soc_version=x86-64-v3 \
     --precision_mode=force_fp16 > "$T/v3.log" 2>&1) &&
  (cd "$T" && ATC_TARGETS_PATH="$T/targets" "$BIN/atc" --model="$M/resnet18.onnx" --framework=5 --output="$T/r18_v2_fp16" \
     --soc_version=nof16c --precision_mode=force_fp16 > "$T/v2.log" 2>&1) || bad "F16C / no-F16C builds" "$(cat "$T/v3.log" "$T/v2.log")"
  n3=$(f16kernels r18_v3_fp16); n2=$(f16kernels r18_v2_fp16)
  [ "${n3:-0}" -gt 0 ] && [ "${n2:-1}" -eq 0 ] && ok "F16C conversions on x86-64-v3 ($n3), none without F16C" ||
    bad "F16C instruction counts" "x86-64-v3: $n3, no-F16C: $n2"
  runom r18_v3_fp16 resnet18 && runom r18_v2_fp16 resnet18 &&
    cmp_out reduced "$T/r18_v2_fp16.out/output_0.npy" "$T/r18_v3_fp16.out/output_0.npy" > "$T/cmp.log" 2>&1 ||
    grep -q "max_abs_diff 0 " "$T/cmp.log"
  [ $? -eq 0 ] && ok "software float16 conversions match F16C: $(cat "$T/cmp.log")" || bad "no-F16C outputs" "$(cat "$T/cmp.log")"
fi
# A Conv whose weights are a run-time input: float32 under every mode (its float16 / bfloat16
# kernels need weights packed at compile time), float16 models included; outputs against numpy.
/usr/bin/python3 - "$T" <<'PY'
import sys, numpy as np, onnx
from onnx import helper, TensorProto
rng = np.random.default_rng(3)
x, w = rng.standard_normal((1, 4, 9)).astype(np.float32), rng.standard_normal((4, 2, 3)).astype(np.float32)
ref = np.zeros((1, 4, 7), np.float32)
for o in range(4):
    for i in range(7):
        ref[0, o, i] = sum(x[0, (o // 2) * 2 + c, i + k] * w[o, c, k] for c in range(2) for k in range(3))
for name, dt, npdt in [("rtw32", TensorProto.FLOAT, np.float32), ("rtw16", TensorProto.FLOAT16, np.float16)]:
    ins = [helper.make_tensor_value_info("x", dt, [1, 4, 9]), helper.make_tensor_value_info("w", dt, [4, 2, 3])]
    g = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], group=2)], name, ins,
                          [helper.make_tensor_value_info("y", dt, [1, 4, 7])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), "%s/%s.onnx" % (sys.argv[1], name))
    np.save("%s/%s.x.npy" % (sys.argv[1], name), x.astype(npdt))
    np.save("%s/%s.w.npy" % (sys.argv[1], name), w.astype(npdt))
np.save("%s/rtw.ref.npy" % sys.argv[1], ref)
PY
for m in rtw32 rtw16; do
  for mode in must_keep_origin_dtype force_fp16 allow_mix_precision allow_fp32_to_bf16; do
    build "$m $mode" "$T/$m.onnx" "${m}_$mode" --precision_mode=$mode || continue
    "$BIN/omrun" --model="$T/${m}_$mode.om" --input="$T/$m.x.npy,$T/$m.w.npy" --output="$T/${m}_$mode.out" \
      > "$T/${m}_$mode.run.log" 2>&1 || { bad "$m $mode omrun" "$(cat "$T/${m}_$mode.run.log")"; continue; }
    tol=1e-5; [ $m = rtw16 ] && tol=1e-2
    /usr/bin/python3 -c "import sys, numpy as np
d = np.abs(np.load(sys.argv[1]).astype(np.float32) - np.load(sys.argv[2])).max()
sys.exit(0 if d <= float(sys.argv[3]) else 'max abs diff %g' % d)" \
      "$T/${m}_$mode.out/output_0.npy" "$T/rtw.ref.npy" $tol &&
      ok "Conv with run-time weights ($m) under $mode" || bad "Conv with run-time weights ($m) under $mode"
  done
done
echo "precision_cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
