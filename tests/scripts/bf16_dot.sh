#!/bin/bash
# The bfloat16 dot-product tiles (kernels/lib/cube_ukbf.h, profile "bf16_path"): ResNet-18 (Conv)
# and BERT-tiny (MatMul) under allow_fp32_to_bf16 for znver4 (AVX512-BF16) carry vdpbf16ps in
# their kernels, for x86-64-v4 (no AVX512-BF16) none; on a host with AVX512-BF16 the znver4
# build runs and is as close to the float32 reference as the x86-64-v4 bfloat16 build (which
# converts to float32 and uses FMAs). For sapphirerapids (bf16_path amx) both carry tdpbf16ps
# (AMX tiles: BERT-tiny's MatMul kernels, kernels/lib/cube_amx.h; ResNet-18's conv kernels,
# kernels/lib/conv_amx.h); on a host with AMX-BF16 they run and are held to the same bound.
# Last, ResNet-18 under force_fp16 (float16 convs on the tiles, below).
# Usage: bf16_dot.sh <bin dir> <repo root>
BIN=$(cd "$1" && pwd); ROOT=$(cd "${2:-.}" && pwd)
M="$ROOT/../shared/models/onnx"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export ASCEND_CACHE_PATH="$T/cache"
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && echo "$2" | tail -5; }
# close_to_ref LABEL OUT.npy BASE.npy REF.npy MIN_COSINE FACTOR BASE_NAME: OUT's cosine with REF at
# least MIN_COSINE and its max abs error at most FACTOR x BASE's + 1e-3.
close_to_ref() {
  local line
  if line=$(/usr/bin/python3 - "${@:2}" <<'PY'
import sys, numpy as np
out, base, ref = (np.load(f).astype(np.float64).ravel() for f in sys.argv[1:4])
min_cos, factor, name = float(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
cos = out.dot(ref) / (np.linalg.norm(out) * np.linalg.norm(ref) + 1e-30)
e_out, e_base = np.abs(out - ref).max(), np.abs(base - ref).max()
print("cosine %.6f, max abs error %.4g (%s: %.4g)" % (cos, e_out, name, e_base))
sys.exit(0 if cos >= min_cos and e_out <= factor * e_base + 1e-3 else 1)
PY
  ); then ok "$1: $line"; else bad "$1: $line"; fi
}
printf 'op_debug_config = dump_cce\n' > "$T/cce.cfg"
host_bf16=0
grep -qw avx512_bf16 /proc/cpuinfo && host_bf16=1
host_amx=0
grep -qw amx_bf16 /proc/cpuinfo && host_amx=1
for model in resnet18 bert_tiny; do
  [ -f "$M/$model.onnx" ] || { echo "SKIP $model (no $M/$model.onnx)"; continue; }
  socs="znver4 x86-64-v4 sapphirerapids"
  for soc in $socs; do
    o=${model}_$soc
    mkdir -p "$T/$o.dbg"
    if ! (cd "$T" && "$BIN/atc" --model="$M/$model.onnx" --framework=5 --output="$T/$o" --soc_version=$soc \
            --precision_mode=allow_fp32_to_bf16 --op_debug_config="$T/cce.cfg" --debug_dir="$T/$o.dbg" \
            > "$T/$o.log" 2>&1); then
      bad "$o build" "$(cat "$T/$o.log")"; continue
    fi
    n=$(grep -l vdpbf16ps "$T/$o.dbg"/kernel_meta/*.s 2>/dev/null | wc -l)
    if [ $soc = sapphirerapids ]; then
      a=$(grep -l tdpbf16ps "$T/$o.dbg"/kernel_meta/*.s 2>/dev/null | wc -l)
      [ "$a" -gt 0 ] && ok "$o: $a kernels use AMX tdpbf16ps" || bad "$o: no kernel uses tdpbf16ps"
    elif [ $soc = znver4 ]; then
      [ "$n" -gt 0 ] && ok "$o: $n kernels use vdpbf16ps" || bad "$o: no kernel uses vdpbf16ps"
    else
      [ "$n" -eq 0 ] && ok "$o: no vdpbf16ps" || bad "$o: $n kernels use vdpbf16ps without AVX512-BF16"
    fi
  done
  if [ $host_bf16 = 0 ]; then
    echo "SKIP $model run: the host has no AVX512-BF16"
    continue
  fi
  run_socs="znver4 x86-64-v4"
  if [ $host_amx = 1 ]; then run_socs="$run_socs sapphirerapids"; else echo "SKIP $model sapphirerapids run: the host has no AMX-BF16"; fi
  for soc in $run_socs; do
    "$BIN/omrun" --model="$T/${model}_$soc.om" --input="$M/$model.in.npy" --output="$T/${model}_$soc.out" \
      > "$T/${model}_$soc.run.log" 2>&1 || bad "${model}_$soc omrun" "$(cat "$T/${model}_$soc.run.log")"
  done
  for soc in $run_socs; do
    [ $soc = x86-64-v4 ] && continue
    close_to_ref "$model $soc bfloat16" "$T/${model}_$soc.out/output_0.npy" "$T/${model}_x86-64-v4.out/output_0.npy" \
      "$M/$model.out.npy" 0.999 2 "x86-64-v4 bfloat16 build"
  done
done
# force_fp16 ResNet-18: for sapphirerapids its float16 convs run on the tiles as two bfloat16 parts
# per value (kernels/lib/conv_amx_split.h), so its conv kernels carry tdpbf16ps; on an AMX host
# it is as close to the float32 reference as the x86-64-v4 float16 build (float32 FMAs on the
# float16 values), which the split form matches up to the order of the additions.
model=resnet18
if [ -f "$M/$model.onnx" ]; then
  for soc in sapphirerapids x86-64-v4; do
    o=${model}_fp16_$soc
    mkdir -p "$T/$o.dbg"
    if ! (cd "$T" && "$BIN/atc" --model="$M/$model.onnx" --framework=5 --output="$T/$o" --soc_version=$soc \
            --precision_mode=force_fp16 --op_debug_config="$T/cce.cfg" --debug_dir="$T/$o.dbg" > "$T/$o.log" 2>&1); then
      bad "$o build" "$(cat "$T/$o.log")"; continue
    fi
    a=$(grep -l tdpbf16ps "$T/$o.dbg"/kernel_meta/*.s 2>/dev/null | wc -l)
    if [ $soc = sapphirerapids ]; then
      [ "$a" -gt 0 ] && ok "$o: $a kernels use AMX tdpbf16ps" || bad "$o: no kernel uses tdpbf16ps"
    else
      [ "$a" -eq 0 ] && ok "$o: no tdpbf16ps" || bad "$o: $a kernels use tdpbf16ps without AMX"
    fi
  done
  if [ $host_amx = 1 ]; then
    for soc in sapphirerapids x86-64-v4; do
      "$BIN/omrun" --model="$T/${model}_fp16_$soc.om" --input="$M/$model.in.npy" --output="$T/fp16_$soc.out" \
        > "$T/fp16_$soc.run.log" 2>&1 || bad "${model}_fp16_$soc omrun" "$(cat "$T/fp16_$soc.run.log")"
    done
    close_to_ref "$model sapphirerapids float16" "$T/fp16_sapphirerapids.out/output_0.npy" \
      "$T/fp16_x86-64-v4.out/output_0.npy" "$M/$model.out.npy" 0.9999 1.5 "x86-64-v4 float16 build"
  else
    echo "SKIP $model float16 sapphirerapids run: the host has no AMX-BF16"
  fi
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
