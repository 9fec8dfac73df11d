#!/usr/bin/env bash
# QDQ models (QuantizeLinear/DequantizeLinear pairs as PyTorch's exporter writes them) made by
# tests/e2e/make_qdq_models.py from ResNet-18, MobileNetV2, a BERT-shaped encoder and a small
# CNN, compiled with atc under must_keep_origin_dtype and the default force_fp16 (which must not
# touch the quantized computation), run with omrun and compared with PyTorch's fake-quant
# reference: at least 99.9% of output elements within one output quantization step.
# Skips when torch/torchvision are not installed.
# Usage: qdq_models.sh BIN_DIR SRC_DIR
set -u
BIN=$1
SRC=$2
. "$SRC/tests/scripts/lib/torch_e2e.sh"
torch_e2e_setup "torch, torchvision"
MODELS="cnn encoder resnet18 mobilenet_v2 staged_residual qdq_ops"
/usr/bin/python3 "$SRC/tests/e2e/make_qdq_models.py" "$TMP" $MODELS > "$TMP/make.log" 2>&1 || {
  echo "FAIL: make_qdq_models.py"; tail -20 "$TMP/make.log"; exit 1; }
cat > "$TMP/steps.py" <<'EOF'
import json, sys
import numpy as np
got, ref = np.load(sys.argv[1]), np.load(sys.argv[2])
step = json.load(open(sys.argv[3]))["step"]
if got.shape != ref.shape:
    sys.exit("shape %s, reference %s" % (got.shape, ref.shape))
d = np.abs(got.astype(np.float64) - ref.astype(np.float64)) / step
within, exact = float((d <= 1.0 + 1e-3).mean()), float((d < 1e-3).mean())
print("within one step %.5f, exact %.4f, max %.2f steps" % (within, exact, d.max()))
sys.exit(0 if within >= 0.999 else 1)
EOF
pass=0
fail=0
cd "$TMP"
for m in $MODELS; do
  for p in must_keep_origin_dtype force_fp16; do
    if "$BIN/atc" --model="$m.onnx" --framework=5 --output="${m}_$p" --soc_version=native \
         --precision_mode=$p > "$m.$p.atc.log" 2>&1 &&
       "$BIN/omrun" --model="${m}_$p.om" --input="$m.in.npy" --output="$m.$p.res" > "$m.$p.run.log" 2>&1 &&
       line=$(/usr/bin/python3 steps.py "$m.$p.res/output_0.npy" "$m.out.npy" "$m.json"); then
      echo "PASS $m $p: $line"; pass=$((pass + 1))
    else
      echo "FAIL $m $p: ${line:-}"; tail -3 "$m.$p.atc.log" "$m.$p.run.log" 2>/dev/null; fail=$((fail + 1))
    fi
    line=""
  done
done
# The precision pass leaves the dequantized float ops in float32 under force_fp16, and says why
# (QdqConvFoldPass off: on an AVX512-VNNI host it takes every quantized op of the cnn).
printf 'QdqConvFoldPass:off\n' > off.cfg
if "$BIN/atc" --model=cnn.onnx --framework=5 --output=cnn_fp16_off --soc_version=native \
     --fusion_switch_file=off.cfg > cnn_off.log 2>&1 &&
   "$BIN/atc" --mode=1 --om=cnn_fp16_off.om --json=cnn_mode1.json > /dev/null 2>&1 &&
   grep -q "quantized: input 0 comes from DequantizeLinear" cnn_mode1.json; then
  echo "PASS precision decision recorded"; pass=$((pass + 1))
else
  echo "FAIL precision decision recorded (cnn_mode1.json has no 'quantized:' reason)"; fail=$((fail + 1))
fi
# The int8 conv path (QdqConvFoldPass, docs/quantization.md): on an AVX512-VNNI host the
# native builds above ran QuantizedConv kernels; elsewhere --mode=1 says why not.
decisions() {  # OM -> "int8 float" counts of the quantization decisions
  "$BIN/atc" --mode=1 --om="$1" --json="$1.json" > /dev/null 2>&1 &&
    /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['quantization_decisions']; \
print(sum(x['decision'].startswith('int8') for x in d), sum(x['decision'].startswith('float32') for x in d))" "$1.json"
}
check() {  # NAME CONDITION
  if eval "$2"; then echo "PASS $1"; pass=$((pass + 1)); else echo "FAIL $1 ($2)"; fail=$((fail + 1)); fi
}
count_decisions() {  # OM_JSON TEXT... -> how many quantization decisions contain each TEXT
  /usr/bin/python3 -c "import json, sys
d = [x['decision'] for x in json.load(open(sys.argv[1]))['quantization_decisions']]
print(*[sum(t in x for x in d) for t in sys.argv[2:]])" "$@"
}
runs() {  # NAME OM MODEL: run OM on MODEL's input, within one step of MODEL's reference
  "$BIN/omrun" --model="$2" --input="$3.in.npy" --output="$2.res" > /dev/null 2>&1 &&
    line=$(/usr/bin/python3 steps.py "$2.res/output_0.npy" "$3.out.npy" "$3.json") &&
    check "$1: $line" true || check "$1" false
}
read -r i8 f32 <<< "$(decisions resnet18_must_keep_origin_dtype.om)"
if grep -qw avx512_vnni /proc/cpuinfo && grep -qw avx512f /proc/cpuinfo; then
  check "resnet18 native: 20 int8 convs and the classifier Gemm int8" '[ "${i8:-0}" = 21 ] && [ "${f32:-0}" = 0 ]'
  read -r i8 f32 <<< "$(decisions encoder_must_keep_origin_dtype.om)"
  check "encoder native: its 8 Linear layers int8 (QuantizedMatMul)" '[ "${i8:-0}" = 8 ] && [ "${f32:-0}" = 0 ]'
elif grep -qw avx2 /proc/cpuinfo; then
  # vnni256 (AVX-VNNI) or avx2 (vpmaddwd): some convs int8 (with avx2 the 3x3 stride-1 convs
  # stay float32 Winograd convs).
  check "resnet18 native with AVX2, without AVX512-VNNI: int8 convs (${i8:-0})" '[ "${i8:-0}" -ge 11 ]'
else
  check "resnet18 native without AVX2: no int8 conv" '[ "${i8:-x}" = 0 ]'
fi
# x86-64-v4-vnni compiles the int8 kernels on any host (LLVM cross-compiles); it runs where the
# host has AVX512-VNNI. The MobileNetV2 build has the Clip and Q/DQ output stages.
for m in resnet18 mobilenet_v2 encoder; do
  if "$BIN/atc" --model="$m.onnx" --framework=5 --output="${m}_vnni" --soc_version=x86-64-v4-vnni \
       --precision_mode=must_keep_origin_dtype > "$m.vnni.log" 2>&1; then
    read -r i8 f32 <<< "$(decisions "${m}_vnni.om")"
    min=11; [ "$m" = encoder ] && min=8
    check "$m x86-64-v4-vnni: int8 ops" '[ "${i8:-0}" -ge $min ]'
    if [ "$m" = mobilenet_v2 ]; then
      # 13 of its 17 depthwise convs int8 (the four on 7x7 planes float32); int8 convs that
      # feed only int8 convs write uint8 (expand -> depthwise -> project).
      read -r dw8 u8out <<< "$(count_decisions "${m}_vnni.om.json" '(depthwise,' 'output quantized to uint8')"
      check "mobilenet_v2: 13 int8 depthwise convs, uint8 between int8 convs ($dw8, $u8out)" \
        '[ "${dw8:-0}" = 13 ] && [ "${u8out:-0}" -ge 26 ]'
    fi
    if grep -qw avx512_vnni /proc/cpuinfo && grep -qw avx512f /proc/cpuinfo; then
      runs "$m x86-64-v4-vnni runs" "${m}_vnni.om" "$m"
    fi
  else
    check "$m x86-64-v4-vnni compiles" false; tail -3 "$m.vnni.log"
  fi
done
# x86-64-v3-vnni: the 256-bit vpdpbusd path (AVX-VNNI) for targets without AVX-512; runs where the
# host has AVX-VNNI. x86-64-v3: the AVX2 path without VNNI (int8_path avx2: operands widened to
# int16, vpmaddwd, weights packed widened), where 3x3 stride-1 convs that take Winograd stay
# float32; runs where the host has AVX2. Depthwise convs take int8 on both (qdwconv8's 256-bit
# vpdpbusd and vpmaddwd tiles) except the four on 7x7 planes, as on the 512-bit targets.
for soc in x86-64-v3-vnni x86-64-v3; do
  tag=${soc#x86-64-}
  flag=avx_vnni; [ "$soc" = x86-64-v3 ] && flag=avx2
  for m in resnet18 encoder mobilenet_v2; do
    if "$BIN/atc" --model="$m.onnx" --framework=5 --output="${m}_$tag" --soc_version=$soc \
         --precision_mode=must_keep_origin_dtype > "$m.$tag.log" 2>&1; then
      read -r i8 f32 <<< "$(decisions "${m}_$tag.om")"
      wino=$(count_decisions "${m}_$tag.om.json" 'Winograd conv than on the AVX2 int8 path')
      case $soc/$m in
        x86-64-v3-vnni/resnet18) check "resnet18 $soc: 21 int8 ops" '[ "${i8:-0}" = 21 ]' ;;
        x86-64-v3/resnet18) check "resnet18 $soc: 11 int8 ops, 10 Winograd convs float32 ($i8, $f32, $wino)" \
                              '[ "${i8:-0}" = 11 ] && [ "${f32:-0}" = 10 ] && [ "$wino" = 10 ]' ;;
        */encoder) check "encoder $soc: 8 int8 ops" '[ "${i8:-0}" = 8 ]' ;;
        */mobilenet_v2) check "mobilenet_v2 $soc: 49 int8 convs, the 4 depthwise on 7x7 planes float32 ($i8, $f32)" \
                          '[ "${i8:-0}" = 49 ] && [ "${f32:-0}" = 4 ]' ;;
      esac
      if grep -qw $flag /proc/cpuinfo; then
        runs "$m $soc runs" "${m}_$tag.om" "$m"
      fi
    else
      check "$m $soc compiles" false; tail -3 "$m.$tag.log"
    fi
  done
done
# Block outputs quantized once for all their readers (staged_residual: Q/DQ after each block's
# Add, as ONNX Runtime's quantizer writes them): each stays uint8, read by the next conv as its
# input and by the next block's conv epilogue as its residual, dequantized there.
for soc in x86-64-v4-vnni x86-64-v3; do
  flag=avx512_vnni; [ "$soc" = x86-64-v3 ] && flag=avx2
  if "$BIN/atc" --model=staged_residual.onnx --framework=5 --output="sr_$soc" --soc_version=$soc \
       --precision_mode=must_keep_origin_dtype > "sr_$soc.log" 2>&1 && decisions "sr_$soc.om" > /dev/null; then
    read -r rq u8out <<< "$(count_decisions "sr_$soc.om.json" 'residual quantized by' 'output quantized to uint8')"
    check "staged_residual $soc: both residuals read as uint8, 4 outputs uint8 ($rq, $u8out)" \
      '[ "${rq:-0}" = 2 ] && [ "${u8out:-0}" = 4 ]'
    if grep -qw $flag /proc/cpuinfo; then
      runs "staged_residual $soc runs" "sr_$soc.om" staged_residual
    fi
  else
    check "staged_residual $soc compiles" false; tail -3 "sr_$soc.log"
  fi
done
# Pools, Adds and Concats between Q/DQ pairs (qdq_ops: ONNX Runtime's quantizer's form) run on the
# 8-bit tensors: MaxPool and Concat on the bytes, QuantizedAdd; the convs before them write
# uint8 into their QuantizeLinear, so no quant kernel is left.
for soc in x86-64-v4-vnni x86-64-v3; do
  flag=avx512_vnni; [ "$soc" = x86-64-v3 ] && flag=avx2
  if "$BIN/atc" --model=qdq_ops.onnx --framework=5 --output="qo_$soc" --soc_version=$soc \
       --precision_mode=must_keep_origin_dtype > "qo_$soc.log" 2>&1 && decisions "qo_$soc.om" > /dev/null; then
    read -r mp cat add u8q <<< "$(count_decisions "qo_$soc.om.json" 'int8: MaxPool of uint8' 'int8: Concat of uint8' \
      'int8: QuantizedAdd' '(output quantized to uint8)')"
    check "qdq_ops $soc: MaxPool, Concat and 2 Adds on uint8, 5 convs writing uint8 ($mp $cat $add $u8q)" \
      '[ "$mp" = 1 ] && [ "$cat" = 1 ] && [ "$add" = 2 ] && [ "$u8q" = 5 ]'
    if grep -qw $flag /proc/cpuinfo; then
      runs "qdq_ops $soc runs" "qo_$soc.om" qdq_ops
    fi
  else
    check "qdq_ops $soc compiles" false; tail -3 "qo_$soc.log"
  fi
done
# The same ops alone on 8-bit inputs (uint8 and int8, saturating): equal to the float path
# (QdqConvFoldPass off: DequantizeLinear, the float op, QuantizeLinear) bit for bit.
cat > mk_ops.py <<'EOF'
import numpy as np, onnx
from onnx import helper as h, TensorProto as T
c = lambda n, t, v: h.make_tensor(n, t, [], [v])
inits = [c("s", T.FLOAT, 0.05), c("z", T.UINT8, 3), c("s2", T.FLOAT, 0.07), c("z2", T.INT8, -9), c("s3", T.FLOAT, 0.02),
         c("z3", T.INT8, 5)]
nodes = [h.make_node("DequantizeLinear", ["x", "s", "z"], ["xf"]),
         h.make_node("MaxPool", ["xf"], ["p"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
         h.make_node("QuantizeLinear", ["p", "s", "z"], ["pq"]),
         h.make_node("DequantizeLinear", ["pq", "s", "z"], ["pf"]),
         h.make_node("DequantizeLinear", ["a", "s2", "z2"], ["af"]),
         h.make_node("Add", ["pf", "af"], ["ab"]), h.make_node("Relu", ["ab"], ["abr"]),
         h.make_node("QuantizeLinear", ["abr", "s", "z"], ["y0"]),
         h.make_node("Add", ["af", "af"], ["aa"]), h.make_node("QuantizeLinear", ["aa", "s3", "z3"], ["y1"]),
         h.make_node("DequantizeLinear", ["y0", "s", "z"], ["y0f"]),
         h.make_node("Concat", ["pf", "y0f"], ["cc"], axis=1), h.make_node("QuantizeLinear", ["cc", "s", "z"], ["y2"]),
         h.make_node("GlobalMaxPool", ["af"], ["gm"]), h.make_node("QuantizeLinear", ["gm", "s2", "z2"], ["y3"]),
         h.make_node("AveragePool", ["xf"], ["ap"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
         h.make_node("QuantizeLinear", ["ap", "s3", "z3"], ["y4"]),
         h.make_node("GlobalAveragePool", ["af"], ["ga"]), h.make_node("QuantizeLinear", ["ga", "s", "z"], ["y5"])]
vi = h.make_tensor_value_info
g = h.make_graph(nodes, "ops", [vi("x", T.UINT8, [1, 16, 30, 34]), vi("a", T.INT8, [1, 16, 15, 17])],
                 [vi("y0", T.UINT8, None), vi("y1", T.INT8, None), vi("y2", T.UINT8, None), vi("y3", T.INT8, None),
                  vi("y4", T.INT8, None), vi("y5", T.UINT8, None)], inits)
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "ops.onnx")
r = np.random.default_rng(1)
np.save("ops_x.npy", r.integers(0, 256, (1, 16, 30, 34)).astype(np.uint8))
np.save("ops_a.npy", r.integers(-128, 128, (1, 16, 15, 17)).astype(np.int8))
EOF
if /usr/bin/python3 mk_ops.py > mk_ops.log 2>&1 &&
   "$BIN/atc" --model=ops.onnx --framework=5 --output=ops_on --soc_version=native > ops_on.log 2>&1 &&
   "$BIN/atc" --model=ops.onnx --framework=5 --output=ops_off --soc_version=native --fusion_switch_file=off.cfg \
     > ops_off.log 2>&1 && decisions ops_on.om > /dev/null; then
  i8=$(count_decisions ops_on.om.json 'int8:')
  if grep -qw avx2 /proc/cpuinfo; then
    check "int8 MaxPool, 2 QuantizedAdds, Concat, GlobalMaxPool, 2 QuantizedAvgPools on native ($i8)" '[ "$i8" = 7 ]'
  fi
  same=1
  "$BIN/omrun" --model=ops_on.om --input=ops_x.npy,ops_a.npy --output=ops_on.res > /dev/null 2>&1 &&
    "$BIN/omrun" --model=ops_off.om --input=ops_x.npy,ops_a.npy --output=ops_off.res > /dev/null 2>&1 || same=0
  for k in 0 1 2 3; do cmp -s "ops_on.res/output_$k.npy" "ops_off.res/output_$k.npy" || same=0; done
  check "int8 MaxPool, QuantizedAdd, Concat, GlobalMaxPool equal the float path bit for bit" '[ $same = 1 ]'
  # The average pools sum exactly in integers where the float path sums floats: a value within
  # float rounding of a rounding tie may land one step away.
  steps=$(/usr/bin/python3 -c "import numpy as np
d = [np.abs(np.load('ops_on.res/output_%d.npy' % k).astype(int) - np.load('ops_off.res/output_%d.npy' % k).astype(int))
     for k in (4, 5)]
print(max(int(x.max()) for x in d), sum(int((x > 0).sum()) for x in d))" 2>&1)
  check "QuantizedAvgPool within one step of the float path (max steps, elements off: $steps)" '[ "${steps%% *}" -le 1 ]'
else
  check "ops.onnx compiles" false; tail -n 3 mk_ops.log ops_on.log ops_off.log
fi
# sapphirerapids: the encoder's int8 matrix products on AMX tiles (tdpbusd in their kernels);
# runs where the host has AMX-INT8, to the same bound as the other builds.
printf 'op_debug_config = dump_cce\n' > cce.cfg
mkdir -p enc_spr.dbg
if "$BIN/atc" --model=encoder.onnx --framework=5 --output=encoder_spr --soc_version=sapphirerapids \
     --precision_mode=must_keep_origin_dtype --op_debug_config=cce.cfg --debug_dir=enc_spr.dbg > spr.log 2>&1; then
  read -r i8 f32 <<< "$(decisions encoder_spr.om)"
  check "encoder sapphirerapids: 8 int8 ops" '[ "${i8:-0}" = 8 ]'
  n=$(grep -l tdpbusd enc_spr.dbg/kernel_meta/*.s 2>/dev/null | wc -l)
  check "encoder sapphirerapids: $n kernels use AMX tdpbusd" '[ "$n" -gt 0 ]'
  if grep -qw amx_int8 /proc/cpuinfo; then
    runs "encoder sapphirerapids runs (AMX)" encoder_spr.om encoder
  else
    echo "SKIP encoder sapphirerapids run: the host has no AMX-INT8"
  fi
else
  check "encoder sapphirerapids compiles" false; tail -3 spr.log
fi
# QdqConvFoldPass switched off: no int8 conv, same answers (the float path).
if "$BIN/atc" --model=resnet18.onnx --framework=5 --output=r18_off --soc_version=x86-64-v4-vnni \
     --precision_mode=must_keep_origin_dtype --fusion_switch_file=off.cfg > off.log 2>&1; then
  read -r i8 f32 <<< "$(decisions r18_off.om)"
  check "QdqConvFoldPass:off: no int8 conv" '[ "${i8:-x}" = 0 ]'
  if grep -qw avx2 /proc/cpuinfo && grep -qw avx512f /proc/cpuinfo; then
    runs "QdqConvFoldPass:off runs" r18_off.om resnet18
  fi
else
  check "QdqConvFoldPass:off compiles" false; tail -3 off.log
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
