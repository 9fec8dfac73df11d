#!/usr/bin/env bash
# atc fusion CLI: fusion_result.json for BERT-tiny and ResNet-18 (expected fusions), outputs
# match with fusion and with an ALL-off switch file, --export_compile_stat, ASCEND_WORK_PATH,
# switch-file errors and unknown-name warnings. Usage: fusion_cli.sh BIN_DIR SRC_DIR
set -u
BIN=$(cd "$1" && pwd); SRC=$(cd "$2" && pwd)
M="$SRC/../shared/models/onnx"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
ok() { echo "PASS $1"; }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
build() {  # dir model [extra args]
  local d=$1 m=$2; shift 2
  mkdir -p "$d" && (cd "$d" && "$BIN/atc" --model="$M/$m.onnx" --framework=5 --output="$d/$m" --soc_version=native --precision_mode=must_keep_origin_dtype "$@" > "$d/log" 2>&1)
}
check_out() {  # dir model
  "$BIN/omrun" --model="$1/$2.om" --input="$M/$2.in.npy" --output="$1/out" > /dev/null 2>&1 &&
    /usr/bin/python3 "$SRC/scripts/compare_npy.py" "$1/out/output_0.npy" "$M/$2.out.npy" > /dev/null
}
printf '{"Switch":{"GraphFusion":{"ALL":"off"},"UBFusion":{"ALL":"off"}}}' > "$T/off.cfg"
if [ -f "$M/bert_tiny.onnx" ]; then
  build "$T/b" bert_tiny && check_out "$T/b" bert_tiny && ok "bert_tiny fused matches" || bad "bert_tiny fused"
  for p in LayerNormFusionPass GeluFusionPass MatMulBiasAddFusionPass TbeCommonRules0FusionPass AttentionFusionPass; do
    /usr/bin/python3 -c "import json,sys; d=json.load(open('$T/b/fusion_result.json'))['session_and_graph_id_0_0']; e={**d['graph_fusion'],**d['ub_fusion']}; sys.exit(0 if int(e['$p']['effect_times'])>0 else 1)" \
      && ok "bert_tiny $p applied" || bad "bert_tiny $p"
  done
  build "$T/boff" bert_tiny --fusion_switch_file="$T/off.cfg" && check_out "$T/boff" bert_tiny && ok "bert_tiny ALL-off matches" || bad "bert_tiny ALL-off"
  # Only the pass that cannot be switched off (TransposeReshapeFoldingPass) is reported.
  /usr/bin/python3 -c "import json,sys; d=json.load(open('$T/boff/fusion_result.json'))['session_and_graph_id_0_0']; sys.exit(0 if list(d['graph_fusion'])==['TransposeReshapeFoldingPass'] and d['ub_fusion']=={} else 1)" \
    && ok "ALL-off: only the required pass in fusion_result.json" || bad "ALL-off json"
  # repository_hit_times: a second build with the same kernel cache finds the fused kernels.
  ASCEND_CACHE_PATH="$T/kc" build "$T/h1" bert_tiny && ASCEND_CACHE_PATH="$T/kc" build "$T/h2" bert_tiny &&
    /usr/bin/python3 -c "import json,sys; u=lambda d: json.load(open(d+'/fusion_result.json'))['session_and_graph_id_0_0']['ub_fusion']['TbeCommonRules0FusionPass']; a,b=u('$T/h1'),u('$T/h2'); sys.exit(0 if a['repository_hit_times']=='0' and int(b['repository_hit_times'])>0 and b['repository_hit_times']==b['effect_times'] else 1)" \
    && ok "repository_hit_times: 0 on a cold cache, all fused kernels on the second build" || bad "repository_hit_times"
fi
if [ -f "$M/resnet18.onnx" ]; then
  build "$T/r" resnet18 && check_out "$T/r" resnet18 && ok "resnet18 fused matches" || bad "resnet18 fused"
  grep -q TbeCommonRules0FusionPass "$T/r/fusion_result.json" && ok "resnet18 conv epilogues" || bad "resnet18 epilogues"
  build "$T/roff" resnet18 --fusion_switch_file="$T/off.cfg" && check_out "$T/roff" resnet18 && ok "resnet18 ALL-off matches" || bad "resnet18 ALL-off"
fi
S="$SRC/samples/models/squeezenet1_1.onnx"
run() { (cd "$1" && shift && "$BIN/atc" --model="$S" --framework=5 --output="$T/sq" --soc_version=native --precision_mode=must_keep_origin_dtype "$@" 2>&1); }
mkdir -p "$T/s0" "$T/s2" "$T/w"
run "$T/s0" --export_compile_stat=0 > /dev/null; [ ! -f "$T/s0/fusion_result.json" ] && ok "export_compile_stat=0" || bad "export_compile_stat=0"
run "$T/s2" --export_compile_stat=2 > /dev/null; [ -f "$T/s2/fusion_result.json" ] && ok "export_compile_stat=2" || bad "export_compile_stat=2"
run "$T/s0" --export_compile_stat=3 | grep -q E10001 && ok "export_compile_stat=3 refused" || bad "export_compile_stat=3"
(cd "$T/s0" && ASCEND_WORK_PATH="$T/w" "$BIN/atc" --model="$S" --framework=5 --output="$T/sq" --soc_version=native --precision_mode=must_keep_origin_dtype > /dev/null 2>&1)
ls "$T"/w/FE/*/fusion_result.json > /dev/null 2>&1 && ok "ASCEND_WORK_PATH/FE/<pid>" || bad "ASCEND_WORK_PATH"
printf 'TbePool2dQuantFusionPass:off\nGeluFusionPass:off\n' > "$T/lines.cfg"
run "$T/s0" --fusion_switch_file="$T/lines.cfg" | grep -q "WARNING.*TbePool2dQuantFusionPass" && ok "unknown name warns" || bad "unknown name warning"
printf 'GeluFusionPass:maybe\n' > "$T/badv.cfg"
run "$T/s0" --fusion_switch_file="$T/badv.cfg" | grep -q E10003 && ok "bad value E10003" || bad "bad value"
printf '{"Switch":{' > "$T/badj.cfg"
run "$T/s0" --fusion_switch_file="$T/badj.cfg" | grep -q E10003 && ok "malformed JSON E10003" || bad "malformed JSON"
# ONNX Attention (opset 23, frontends/onnx/onnx_attention.cpp) expands to its function body,
# which AttentionFusionPass fuses again, with a float mask too (the fully-masked-row guard
# becomes the kernel's zero_masked_rows); the outputs match numpy.
/usr/bin/python3 - "$T" <<'PY'
import sys, numpy as np, onnx
from onnx import helper, TensorProto as TP
t = sys.argv[1]
rng = np.random.default_rng(7)
for name, mask, causal in (("attn23", False, 0), ("attn23_mask", True, 0), ("attn23_causal", False, 1)):
    ins = ["Q", "K", "V"] + (["M"] if mask else [])
    vi = [helper.make_tensor_value_info(x, TP.FLOAT, [2, 4, 32, 16]) for x in "QKV"]
    if mask: vi.append(helper.make_tensor_value_info("M", TP.FLOAT, [32, 32]))
    g = helper.make_graph([helper.make_node("Attention", ins, ["Y"], name="attn", is_causal=causal)], "a", vi,
                          [helper.make_tensor_value_info("Y", TP.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 23)]); m.ir_version = 10
    onnx.save(m, "%s/%s.onnx" % (t, name))
    arrs = [rng.standard_normal((2, 4, 32, 16)).astype(np.float32) for _ in range(3)]
    if mask:
        mk = np.where(rng.random((32, 32)) < 0.3, -np.inf, 0).astype(np.float32); mk[5, :] = -np.inf
        arrs.append(mk)
    for i, a in enumerate(arrs): np.save("%s/%s_in%d.npy" % (t, name, i), a)
    q, k, v = arrs[:3]
    s = q @ k.transpose(0, 1, 3, 2) / 4.0 + (arrs[3] if mask else 0)
    if causal: s = s + np.triu(np.full((32, 32), -np.inf, np.float32), 1)
    with np.errstate(invalid="ignore"):
        p = np.exp(s - s.max(-1, keepdims=True)); p = p / p.sum(-1, keepdims=True)
    p = np.nan_to_num(p, nan=0.0)  # a fully masked row: zero probabilities
    np.save("%s/%s_ref.npy" % (t, name), p @ v)
PY
for name in attn23 attn23_mask attn23_causal; do
  mkdir -p "$T/$name" && (cd "$T/$name" && "$BIN/atc" --model="$T/$name.onnx" --framework=5 --output="$T/$name/m" \
     --soc_version=native --precision_mode=must_keep_origin_dtype > "$T/$name/log" 2>&1)
  ins=$(ls "$T/${name}"_in*.npy | tr '\n' ',' | sed 's/,$//')
  "$BIN/omrun" --model="$T/$name/m.om" --input="$ins" --output="$T/$name/out" > /dev/null 2>&1 &&
    /usr/bin/python3 "$SRC/scripts/compare_npy.py" "$T/$name/out/output_0.npy" "$T/${name}_ref.npy" > /dev/null \
    && ok "$name: Attention output matches numpy" || bad "$name output"
done
# All fuse: the masked one with its fully-masked-row guard (row 5 of the mask is all -inf: the
# FusedAttention kernel must give it zeros, as the reference does); the causal one with its
# constant triangle as the mask (the guard's condition folds to false everywhere).
for name in attn23 attn23_mask attn23_causal; do
  /usr/bin/python3 -c "import json,sys; d=json.load(open('$T/$name/fusion_result.json'))['session_and_graph_id_0_0']['graph_fusion']; sys.exit(0 if int(d['AttentionFusionPass']['effect_times'])==1 else 1)" \
    && ok "$name: opset-23 Attention is fused (AttentionFusionPass)" || bad "$name: opset-23 Attention fusion"
done

echo "$fail failed"
[ "$fail" -eq 0 ]
