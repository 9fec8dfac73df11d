#!/bin/bash
# Debugging tools (docs/debugging.md): the data dump (--dump, --dump_mode, --dump_step,
# --dump_layer, --dump_config) checked against a numpy reference of every layer, the per-op
# profile (--profile), --status_check and the exception dump, oom builds, kernel_meta, and
# atc-compare on fp16 against fp32 dumps of ResNet-18 and BERT-tiny.
# Usage: bash debug_cli.sh BIN_DIR SRC_DIR
BIN=$(cd "$1" 2>/dev/null && pwd || echo "$1")
PY=/usr/bin/python3
if [ ! -x "$BIN/atc" ] || [ ! -x "$BIN/omrun" ]; then
  echo "SKIP: $BIN/atc or $BIN/omrun not built"
  exit 0
fi
if ! $PY -c 'import numpy, onnx' 2>/dev/null; then echo "SKIP: $PY lacks numpy or onnx"; exit 0; fi
W=$(mktemp -d)
export ASCEND_CACHE_PATH="$W/atc_cache"
trap 'rm -rf "$W"' EXIT
pass=0
fail=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
ko() { echo "FAIL: $1"; fail=$((fail + 1)); }

# Model: Conv -> Relu (fused into one kernel) -> MaxPool -> MatMul -> Add, with a numpy
# reference for every intermediate tensor (ref_<name>.npy).
$PY - "$W" <<'PYEOF'
import sys, numpy as np, onnx
from onnx import helper, TensorProto as TP, numpy_helper as nh
w = sys.argv[1]
rng = np.random.default_rng(3)
x = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
W1 = rng.standard_normal((4, 2, 3, 3)).astype(np.float32)
B1 = rng.standard_normal(4).astype(np.float32)
M = rng.standard_normal((2, 5)).astype(np.float32)
C = rng.standard_normal(5).astype(np.float32)
nodes = [helper.make_node('Conv', ['x', 'W1', 'B1'], ['c'], name='conv1', pads=[1, 1, 1, 1]),
         helper.make_node('Relu', ['c'], ['r'], name='relu1'),
         helper.make_node('MaxPool', ['r'], ['p'], name='pool1', kernel_shape=[3, 3], strides=[3, 3]),
         helper.make_node('MatMul', ['p', 'M'], ['m'], name='mm1'),
         helper.make_node('Add', ['m', 'C'], ['y'], name='add1')]
g = helper.make_graph(nodes, 'dbg', [helper.make_tensor_value_info('x', TP.FLOAT, [1, 2, 6, 6])],
                      [helper.make_tensor_value_info('y', TP.FLOAT, [1, 4, 2, 5])],
                      [nh.from_array(W1, 'W1'), nh.from_array(B1, 'B1'), nh.from_array(M, 'M'), nh.from_array(C, 'C')])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]), w + '/dbg.onnx')
np.save(w + '/x.npy', x)
xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
c = np.zeros((1, 4, 6, 6), np.float32)
for o in range(4):
    for i in range(6):
        for j in range(6):
            c[0, o, i, j] = (xp[0, :, i:i + 3, j:j + 3] * W1[o]).sum() + B1[o]
r = np.maximum(c, 0)
p = r.reshape(1, 4, 2, 3, 2, 3).max(axis=(3, 5))
m = p @ M
np.save(w + '/ref_relu1.npy', r)
np.save(w + '/ref_pool1.npy', p)
np.save(w + '/ref_mm1.npy', m)
np.save(w + '/ref_y.npy', m + C)
PYEOF

if "$BIN/atc" --model="$W/dbg.onnx" --framework=5 --output="$W/dbg" --soc_version=native \
     --precision_mode=must_keep_origin_dtype > "$W/atc.log" 2>&1; then
  ok "the model builds"
else
  ko "the model builds"; cat "$W/atc.log"; echo "$pass passed, $fail failed"; exit 1
fi

# Every dumped output against the reference of the node that produced it (by name, through
# dump_map.json): the fused Conv+Relu is dumped once, under conv1, listing relu1.
check_dump() {  # check_dump DUMP_DIR RUN
  $PY - "$W" "$1" "$2" <<'PYEOF'
import sys, json, glob, os, numpy as np
w, d, run = sys.argv[1], sys.argv[2], sys.argv[3]
maps = glob.glob(d + '/*/dump_map.json')
assert len(maps) == 1, maps
j = json.load(open(maps[0]))
base = os.path.dirname(maps[0])
by = {}
for s in j['steps']:
    for name in s['fused_from']:
        by[name] = s
conv = by['relu1']
assert conv['node'] == 'conv1' and conv['fused_from'] == ['conv1', 'relu1'], conv
assert by['conv1'] is conv
checked = 0
for node, ref in [('relu1', 'ref_relu1'), ('pool1', 'ref_pool1'), ('mm1', 'ref_mm1'), ('add1', 'ref_y')]:
    s = by.get(node)
    if s is None:
        continue  # folded into another kernel
    if s['fused_from'][-1] != node:
        continue  # a fused kernel's output is its last node's output
    out = s['outputs'][0]
    a = np.load(os.path.join(base, run, out['file']))
    r = np.load(w + '/' + ref + '.npy')
    assert list(a.shape) == out['shape'], (a.shape, out)
    assert np.allclose(a.reshape(r.shape), r, atol=1e-4), (node, np.abs(a.reshape(r.shape) - r).max())
    checked += 1
assert checked >= 3, checked
print('checked', checked, 'layers')
PYEOF
}

if "$BIN/omrun" --model="$W/dbg.om" --input="$W/x.npy" --output="$W/out" --dump="$W/d1" > "$W/run.log" 2>&1 &&
   check_dump "$W/d1" 0 > "$W/chk.log" 2>&1; then
  ok "--dump: every layer's output matches the numpy reference ($(cat "$W/chk.log"))"
else
  ko "--dump: every layer's output matches the numpy reference"; cat "$W/run.log" "$W/chk.log"
fi

# --dump_step picks runs (warmup and loop runs counted from 0); --dump_layer picks nodes, a
# fused kernel by any node it absorbed; --dump_mode=input dumps the inputs before the step.
if "$BIN/omrun" --model="$W/dbg.om" --input="$W/x.npy" --dump="$W/d2" --warmup=1 --loop=4 --dump_step="0|2-3" \
     --dump_layer="relu1 pool1" --dump_mode=all > "$W/run.log" 2>&1 &&
   [ "$(cd "$W/d2"/* && ls -d [0-9]* | tr '\n' ' ')" = "0 2 3 " ] &&
   $PY - "$W" <<'PYEOF' > "$W/chk.log" 2>&1
import sys, json, glob, numpy as np
w = sys.argv[1]
j = json.load(open(glob.glob(w + '/d2/*/dump_map.json')[0]))
assert j['runs'] == [0, 2, 3], j['runs']
nodes = sorted(s['node'] for s in j['steps'])
assert nodes == ['conv1', 'pool1'], nodes
pool = [s for s in j['steps'] if s['node'] == 'pool1'][0]
d = glob.glob(w + '/d2/*/3')[0]
assert np.allclose(np.load(d + '/' + pool['inputs'][0]['file']), np.load(w + '/ref_relu1.npy'), atol=1e-4)
conv = [s for s in j['steps'] if s['node'] == 'conv1'][0]
assert np.array_equal(np.load(d + '/' + conv['inputs'][0]['file']), np.load(w + '/x.npy'))
PYEOF
then
  ok "--dump_step, --dump_layer (fused names too) and --dump_mode=all"
else
  ko "--dump_step, --dump_layer (fused names too) and --dump_mode=all"; cat "$W/run.log" "$W/chk.log"
fi

# ATC's dump config JSON.
cat > "$W/acl.json" <<EOF
{"dump": {"dump_path": "$W/d3", "dump_mode": "output", "dump_step": "1", "dump_list": [{"model_name": "dbg", "layer": ["mm1"]}]}}
EOF
if "$BIN/omrun" --model="$W/dbg.om" --input="$W/x.npy" --loop=2 --dump_config="$W/acl.json" > "$W/run.log" 2>&1 &&
   [ "$(ls "$W"/d3/*/1/ 2>/dev/null | tr '\n' ' ')" = "mm1.output.0.npy " ]; then
  ok "--dump_config (ATC's dump_path, dump_mode, dump_step, dump_list layers)"
else
  ko "--dump_config (ATC's dump_path, dump_mode, dump_step, dump_list layers)"; cat "$W/run.log"; ls -R "$W/d3"
fi

# --profile: a Chrome trace of the timed runs (not the warmup), one event per step and run,
# cube ops with their GFLOP/s from the exact multiply-add count.
if "$BIN/omrun" --model="$W/dbg.om" --input="$W/x.npy" --warmup=2 --loop=3 --profile="$W/prof.json" > "$W/run.log" 2>&1 &&
   grep -q "GFLOP/s" "$W/run.log" && $PY - "$W" <<'PYEOF' > "$W/chk.log" 2>&1
import sys, json
w = sys.argv[1]
j = json.load(open(w + '/prof.json'))
ev = [e for e in j['traceEvents'] if e['ph'] == 'X']
runs = sorted(e['name'] for e in ev if e['cat'] == 'run')
assert runs == ['run 2', 'run 3', 'run 4'], runs
ops = [e for e in ev if e['cat'] != 'run']
nsteps = len(j['atc_summary'])
assert len(ops) == 3 * nsteps, (len(ops), nsteps)
conv = [e for e in ops if e['name'] == 'conv1']
assert len(conv) == 3 and conv[0]['cat'] == 'Conv', conv
a = conv[0]['args']
assert a['fused_from'] == ['conv1', 'relu1'] and a['inputs'][0] == 'float32[1,2,6,6]' and a['outputs'] == ['float32[1,4,6,6]'], a
flops = 2 * 4 * 6 * 6 * 2 * 3 * 3  # 2 x output elements x Cin x kh x kw
assert abs(a['gflops'] - flops / (conv[0]['dur'] * 1e3)) < 1e-6 * a['gflops'], a
s = [r for r in j['atc_summary'] if r['node'] == 'conv1'][0]
assert s['gflops'] > 0 and abs(sum(r['share'] for r in j['atc_summary']) - 1) < 1e-6
assert all(e['ts'] >= 0 and e['dur'] >= 0 for e in ev)
PYEOF
then
  ok "--profile: Chrome trace of the timed runs, summary and GFLOP/s"
else
  ko "--profile: Chrome trace of the timed runs, summary and GFLOP/s"; cat "$W/run.log" "$W/chk.log"
fi

# atc-compare. (1) Golden .npy files named by node (from numpy here) against our dump: every
# reference layer is matched through fusion and agrees.
mkdir -p "$W/golden"
for n in relu1 pool1; do cp "$W/ref_$n.npy" "$W/golden/$n.npy"; done
cp "$W/ref_y.npy" "$W/golden/add1.npy"
if [ -x "$BIN/atc-compare" ] && "$BIN/atc-compare" "$W/d1" "$W/golden" --output="$W/cg" > "$W/cmp.log" 2>&1 &&
   [ "$(tail -n +2 "$W/cg/compare.csv" | cut -d, -f2 | sort | tr '\n' ' ')" = "add1 pool1 relu1 " ] &&
   grep -q "every layer at or above" "$W/cmp.log"; then
  ok "atc-compare: a dump against golden .npy files named by node"
else
  ko "atc-compare: a dump against golden .npy files named by node"; cat "$W/cmp.log" "$W/cg/compare.csv"
fi

# (2) One op made lossy: MatMul 'scale' (with tiny weights, subnormal in float16) runs in
# float16 under force_fp16 while --customize_dtypes keeps mm1 and mm3 in float32. Compared
# with a float32 build, the first layer below the threshold is the kernel of 'scale', and the
# final output's cosine in the CSV is the one computed from the two builds' outputs.
$PY - "$W" <<'PYEOF'
import sys, numpy as np, onnx
from onnx import helper, TensorProto as TP, numpy_helper as nh
w = sys.argv[1]
rng = np.random.default_rng(5)
inits = [nh.from_array((rng.standard_normal((32, 32)) * s).astype(np.float32), n) for n, s in [('W1', 0.2), ('W2', 1e-6), ('W3', 0.2)]]
nodes = [helper.make_node('MatMul', ['x', 'W1'], ['a'], name='mm1'), helper.make_node('Relu', ['a'], ['ra'], name='relu1'),
         helper.make_node('MatMul', ['ra', 'W2'], ['b'], name='scale'), helper.make_node('Relu', ['b'], ['rb'], name='relu2'),
         helper.make_node('MatMul', ['rb', 'W3'], ['y'], name='mm3')]
g = helper.make_graph(nodes, 'lossy', [helper.make_tensor_value_info('x', TP.FLOAT, [4, 32])],
                      [helper.make_tensor_value_info('y', TP.FLOAT, [4, 32])], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]), w + '/lossy.onnx')
np.save(w + '/lx.npy', rng.standard_normal((4, 32)).astype(np.float32))
PYEOF
printf "mm1::InputDtype:float32,float32,OutputDtype:float32\nmm3::InputDtype:float32,float32,OutputDtype:float32\n" > "$W/cust.cfg"
if "$BIN/atc" --model="$W/lossy.onnx" --framework=5 --output="$W/la" --soc_version=native --customize_dtypes="$W/cust.cfg" > "$W/a.log" 2>&1 &&
   "$BIN/atc" --model="$W/lossy.onnx" --framework=5 --output="$W/lb" --soc_version=native --precision_mode=must_keep_origin_dtype > "$W/b.log" 2>&1 &&
   "$BIN/omrun" --model="$W/la.om" --input="$W/lx.npy" --dump="$W/dla" --output="$W/ola" > "$W/a.log" 2>&1 &&
   "$BIN/omrun" --model="$W/lb.om" --input="$W/lx.npy" --dump="$W/dlb" --output="$W/olb" > "$W/b.log" 2>&1 &&
   "$BIN/atc-compare" "$W/dla" "$W/dlb" --output="$W/cl" --cosine_threshold=0.9999 > "$W/cmp.log" 2>&1 &&
   $PY - "$W" <<'PYEOF' > "$W/chk.log" 2>&1
import sys, csv, numpy as np
w = sys.argv[1]
rows = list(csv.DictReader(open(w + '/cl/compare.csv')))
first = [r for r in rows if r['first_below_threshold'] == 'yes']
assert len(first) == 1 and first[0]['fused_from'].split('+')[0] == 'scale', first
before = rows[:rows.index(first[0])]
assert before and all(float(r['cosine']) >= 0.9999 for r in before), before
a, b = np.load(w + '/ola/output_0.npy').astype(np.float64).ravel(), np.load(w + '/olb/output_0.npy').astype(np.float64).ravel()
cos = a @ b / np.linalg.norm(a) / np.linalg.norm(b)
last = [r for r in rows if r['tensor'] == 'y'][0]
assert abs(float(last['cosine']) - cos) < 1e-7, (last['cosine'], cos)
png = open(w + '/cl/cosine.png', 'rb').read()
assert png[:8] == b'\x89PNG\r\n\x1a\n' and len(png) > 1000
PYEOF
then
  ok "atc-compare finds the one op forced to a lossy dtype; the final cosine matches the outputs'"
else
  ko "atc-compare finds the one op forced to a lossy dtype; the final cosine matches the outputs'"; cat "$W/a.log" "$W/b.log" "$W/cmp.log" "$W/chk.log"
fi
if ! "$BIN/atc-compare" "$W/nowhere" "$W/golden" > "$W/cmp.log" 2>&1 && grep -q "is not a folder" "$W/cmp.log" &&
   ! "$BIN/atc-compare" "$W/d1" "$W/afile_dir_missing" > /dev/null 2>&1; then
  ok "atc-compare refuses a side that is not a dump"
else
  ko "atc-compare refuses a side that is not a dump"; cat "$W/cmp.log"
fi

# Bad dump options: a clear error, exit 1, no run.
bad_dump() {  # bad_dump WHAT EXPECTED_TEXT ARGS...
  local what=$1 text=$2; shift 2
  if ! "$BIN/omrun" --model="$W/dbg.om" --input="$W/x.npy" "$@" > "$W/bad.log" 2>&1 && grep -q -- "$text" "$W/bad.log"; then
    ok "refused: $what"
  else
    ko "refused: $what"; cat "$W/bad.log"
  fi
}
bad_dump "a dump_step range that ends before it starts" "ends before it starts" --dump="$W/d4" --dump_step="5-2"
bad_dump "a dump_step entry that is not a number" "is not a run index" --dump="$W/d4" --dump_step="1|x"
bad_dump "an unknown dump_mode" "is not output, input or all" --dump="$W/d4" --dump_mode=everything
bad_dump "dump options without a dump path" "need a dump path" --dump_mode=all
echo '{"dump": [1]}' > "$W/badcfg.json"
bad_dump "a dump config without a dump object" "has no \"dump\" object" --dump_config="$W/badcfg.json"
touch "$W/afile"
bad_dump "a dump path that is a file" "dump folder" --dump="$W/afile"


# --status_check=1 on a force_fp16 build (the default precision): an input built to overflow
# float16 stops the run at the first op that makes an inf, the exception dump holds that op's
# tensors under $ASCEND_WORK_PATH/extra-info/data-dump, and no output is written.
$PY - "$W" <<'PYEOF'
import sys, numpy as np, onnx
from onnx import helper, TensorProto as TP, numpy_helper as nh
w = sys.argv[1]
g = helper.make_graph([helper.make_node("Mul", ["x", "k"], ["m"], name="scale"),
                       helper.make_node("MatMul", ["m", "W"], ["mm"], name="proj"),
                       helper.make_node("Tanh", ["mm"], ["y"], name="squash")], "ovf",
                      [helper.make_tensor_value_info("x", TP.FLOAT, [1, 64])], [helper.make_tensor_value_info("y", TP.FLOAT, [1, 64])],
                      [nh.from_array(np.array([1000.0], np.float32), "k"), nh.from_array(np.eye(64, dtype=np.float32) * 2, "W")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), w + "/ovf.onnx")
x = np.linspace(-1, 1, 64, dtype=np.float32).reshape(1, 64)
np.save(w + "/small.npy", x)
x[0, 40] = 100.0  # 1e5 after scale: beyond float16's 65504
np.save(w + "/big.npy", x)
PYEOF
"$BIN/atc" --model="$W/ovf.onnx" --framework=5 --output="$W/ovf_sc" --soc_version=native --status_check=1 > "$W/atc.log" 2>&1 || cat "$W/atc.log"
"$BIN/atc" --model="$W/ovf.onnx" --framework=5 --output="$W/ovf" --soc_version=native > "$W/atc.log" 2>&1 || cat "$W/atc.log"
if "$BIN/omrun" --model="$W/ovf_sc.om" --input="$W/small.npy" --output="$W/sc_small" > "$W/run.log" 2>&1 && [ -f "$W/sc_small/output_0.npy" ]; then
  ok "status_check: a finite run passes"
else
  ko "status_check: a finite run passes"; cat "$W/run.log"
fi
mkdir -p "$W/work"
ASCEND_WORK_PATH="$W/work" "$BIN/omrun" --model="$W/ovf_sc.om" --input="$W/big.npy" --output="$W/sc_big" > "$W/run.log" 2>&1; rc=$?
# The Mul runs in float16 (its kernel stores float16: OpDef::reducedFloats), so it is the op named.
dumpdir=$(ls -d "$W"/work/extra-info/data-dump/ovf/*_scale* 2>/dev/null | head -1)
if [ $rc -eq 1 ] && grep -q "status check: output 0 (m, float16) holds inf at element 40; its inputs are finite" "$W/run.log" &&
   [ ! -e "$W/sc_big" ] && [ -f "$dumpdir/exception_info.json" ] && [ -f "$dumpdir/input.0.npy" ] &&
   $PY -c "import numpy as np,sys; a=np.load('$dumpdir/output.0.npy'); sys.exit(0 if a.dtype==np.float16 and np.isinf(a[0,40]) else 1)"; then
  ok "status_check names the op that overflows float16 and dumps its tensors"
else
  ko "status_check names the op that overflows float16 (rc $rc, dump '$dumpdir')"; cat "$W/run.log"
fi
rm -rf "$W/work"; mkdir -p "$W/work"
(cd "$W/work" && "$BIN/omrun" --model="$W/ovf_sc.om" --input="$W/big.npy" --enable_exception_dump=0 > "$W/run.log" 2>&1); rc=$?
if [ $rc -eq 1 ] && grep -q "holds inf" "$W/run.log" && [ -z "$(ls "$W/work")" ]; then
  ok "--enable_exception_dump=0: the run still stops, nothing is dumped"
else
  ko "--enable_exception_dump=0 (rc $rc)"; cat "$W/run.log"; ls -R "$W/work"
fi
if "$BIN/omrun" --model="$W/ovf.om" --input="$W/big.npy" --output="$W/plain_big" > "$W/run.log" 2>&1; then
  ok "without --status_check the same input runs (the inf goes unnoticed)"
else
  ko "without --status_check the same input runs"; cat "$W/run.log"
fi
"$BIN/atc" --model="$W/ovf.onnx" --framework=5 --output="$W/bad" --soc_version=native --status_check=2 > "$W/atc.log" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "^E10001" "$W/atc.log" && [ ! -e "$W/bad.om" ] && ok "--status_check=2 is E10001" || { ko "--status_check=2 (rc $rc)"; cat "$W/atc.log"; }

# --op_debug_config with oom: red zones around every buffer; a correct model runs clean and
# gives the plain build's outputs bit for bit; the .om differs (a larger arena, the debug
# section) and the plain build keeps the fast path.
printf 'op_debug_config = oom\n' > "$W/oom.cfg"
"$BIN/atc" --model="$W/dbg.onnx" --framework=5 --output="$W/dbg_oom" --soc_version=native \
  --precision_mode=must_keep_origin_dtype --op_debug_config="$W/oom.cfg" > "$W/atc.log" 2>&1 || cat "$W/atc.log"
"$BIN/omrun" --model="$W/dbg.om" --input="$W/x.npy" --output="$W/o_plain" > "$W/run.log" 2>&1
if "$BIN/omrun" --model="$W/dbg_oom.om" --input="$W/x.npy" --output="$W/o_oom" --loop=3 > "$W/run2.log" 2>&1 &&
   cmp -s "$W/o_plain/output_0.npy" "$W/o_oom/output_0.npy" && ! cmp -s "$W/dbg.om" "$W/dbg_oom.om" &&
   "$BIN/atc" --mode=6 --om="$W/dbg_oom.om" > /dev/null 2>&1; then
  ok "an oom build runs clean with the plain build's outputs"
else
  ko "an oom build runs clean"; cat "$W/run2.log"
fi


# oom on real models: every kernel load and store is checked (kernel_meta's JSON counts them:
# none left unchecked), no check fires on correct kernels, and the outputs match the reference.
printf 'op_debug_config = oom, dump_cce\n' > "$W/oom_meta.cfg"
MODELS="${2:-.}/../shared/models/onnx"
for m in squeezenet1_1 mobilenet_v2; do
  [ -f "$MODELS/$m.onnx" ] || { echo "SKIP: $MODELS/$m.onnx missing"; continue; }
  rm -rf "$W/oom_km" && mkdir -p "$W/oom_km"
  "$BIN/atc" --model="$MODELS/$m.onnx" --framework=5 --output="$W/${m}_oom" --soc_version=native \
    --precision_mode=must_keep_origin_dtype --op_debug_config="$W/oom_meta.cfg" --debug_dir="$W/oom_km" > "$W/atc.log" 2>&1 || cat "$W/atc.log"
  if "$BIN/omrun" --model="$W/${m}_oom.om" --input="$MODELS/$m.in.npy" --output="$W/o_${m}_oom" > "$W/run.log" 2>&1 &&
     $PY - "$W/oom_km/kernel_meta" "$W/o_${m}_oom/output_0.npy" "$MODELS/$m.out.npy" <<'PYEOF'
import glob, json, sys, numpy as np
metas = [json.load(open(f)) for f in sorted(glob.glob(sys.argv[1] + "/*.json"))]
assert metas, "no kernel_meta JSON"
checked = sum(j["bounds_check"]["checked"] for j in metas)
unchecked = sum(j["bounds_check"]["unchecked"] for j in metas)
assert all(j["bounds_check"]["checked"] > 0 for j in metas), [j["kernel"] for j in metas if not j["bounds_check"]["checked"]]
assert unchecked == 0, unchecked
d = np.abs(np.load(sys.argv[2]) - np.load(sys.argv[3])).max()
assert d < 1e-3, d
print(f"{len(metas)} kernels, {checked} accesses checked, max diff {d:.2e}")
PYEOF
  then
    ok "$m built with oom: every access checked, runs clean, matches the reference"
  else
    ko "$m built with oom"; cat "$W/run.log"
  fi
done

# op_debug_list narrows oom to the ops it names (ATC: "only the operators in the list are
# compiled with the op_debug_config options"): only the MaxPool's kernel is checked.
printf 'op_debug_config = oom, dump_cce\nop_debug_list = OpType::MaxPool\n' > "$W/oom_list.cfg"
rm -rf "$W/oom_km" && mkdir -p "$W/oom_km"
"$BIN/atc" --model="$W/dbg.onnx" --framework=5 --output="$W/dbg_oom_list" --soc_version=native \
  --precision_mode=must_keep_origin_dtype --op_debug_config="$W/oom_list.cfg" --debug_dir="$W/oom_km" > "$W/atc.log" 2>&1 || cat "$W/atc.log"
if "$BIN/omrun" --model="$W/dbg_oom_list.om" --input="$W/x.npy" --output="$W/o_oom_list" > "$W/run.log" 2>&1 &&
   cmp -s "$W/o_plain/output_0.npy" "$W/o_oom_list/output_0.npy" &&
   $PY - "$W/oom_km/kernel_meta" <<'PYEOF'
import glob, json, sys
metas = [json.load(open(f)) for f in sorted(glob.glob(sys.argv[1] + "/*.json"))]
checked = sorted(t for j in metas if "bounds_check" in j for t in j["op_types"])
others = [t for j in metas if "bounds_check" not in j for t in j["op_types"]]
assert checked == ["MaxPool"] and others, (checked, others)
PYEOF
then
  ok "op_debug_list with oom: only the listed op's kernel is checked"
else
  ko "op_debug_list with oom"; cat "$W/run.log"; ls "$W/oom_km/kernel_meta"
fi

# kernel_meta: op_debug_config dump_cce/dump_loc (or --op_debug_level=2) with --debug_dir keeps
# per kernel its optimised IR, assembly with kernels/lib line directives, object and a JSON
# whose source line is the kernel's task function; the model runs as the plain build does.
SRC=$(cd "${2:-.}" && pwd)
printf 'op_debug_config = dump_cce, dump_loc\n' > "$W/cce.cfg"
mkdir -p "$W/dbgdir"
"$BIN/atc" --model="$W/dbg.onnx" --framework=5 --output="$W/dbg_meta" --soc_version=native \
  --precision_mode=must_keep_origin_dtype --op_debug_config="$W/cce.cfg" --debug_dir="$W/dbgdir" > "$W/atc.log" 2>&1 || cat "$W/atc.log"
"$BIN/omrun" --model="$W/dbg_meta.om" --input="$W/x.npy" --output="$W/o_meta" > "$W/run.log" 2>&1
if $PY - "$W/dbgdir/kernel_meta" "$SRC" <<'PYEOF' && cmp -s "$W/o_plain/output_0.npy" "$W/o_meta/output_0.npy"
import sys, json, glob, os
d, src = sys.argv[1], sys.argv[2]
js = sorted(glob.glob(d + "/*.json"))
assert len(js) >= 3, js
for j in js:
    m = json.load(open(j))
    base = j[:-5]
    for ext in (".ll", ".s", ".o"):
        assert os.path.getsize(base + ext) > 0, base + ext
    assert open(base + ".o", "rb").read(4) == b"\x7fELF"
    assert "define hidden void @" + m["entry"] in open(base + ".ll").read()
    assert "\t.loc\t" in open(base + ".s").read(), base + ".s has no line directives"
    f, line = m["source"]["file"], m["source"]["line"]
    lines = open(os.path.join(src, f)).read().split("\n")
    assert ("atck_" + m["kernel"] + "_task") in lines[line - 1], (f, line, lines[line - 1])
    assert m["nodes"] and m["params"] is not None and m["target"]["triple"]
print(len(js), "kernels")
PYEOF
then
  ok "kernel_meta under --debug_dir: IR, assembly with line directives, object, JSON with the source line"
else
  ko "kernel_meta under --debug_dir"; cat "$W/atc.log"
fi
mkdir -p "$W/cwd"
(cd "$W/cwd" && "$BIN/atc" --model="$W/dbg.onnx" --framework=5 --output="$W/cwd/m" --soc_version=native --op_debug_level=2 > "$W/atc.log" 2>&1)
mkdir -p "$W/cwd1"
(cd "$W/cwd1" && "$BIN/atc" --model="$W/dbg.onnx" --framework=5 --output="$W/cwd1/m1" --soc_version=native --op_debug_level=1 > "$W/atc1.log" 2>&1)
[ -f "$W/cwd1/m1.om" ] && [ ! -e "$W/cwd1/kernel_meta" ] && ok "--op_debug_level=1 writes no kernel_meta" || ko "--op_debug_level=1 writes no kernel_meta"
n=$(ls "$W/cwd/kernel_meta" 2>/dev/null | grep -c '\.json$')
[ "$n" -ge 4 ] && [ "$(ls "$W/dbgdir")" = kernel_meta ] && ok "--op_debug_level=2: kernel_meta in the current folder ($n kernels)" || { ko "--op_debug_level=2 kernel_meta ($n)"; cat "$W/atc.log"; }


# ResNet-18 and BERT-tiny: a force_fp16 build's dump against a must_keep_origin_dtype build's.
# Every framework node that survives as a tensor in both (the last node of a kernel in each)
# has exactly one compare row, and the final output's cosine in the CSV is the one computed
# from the two builds' outputs.
SHARED="$SRC/../shared/models/onnx"
for m in resnet18 bert_tiny; do
  if [ ! -f "$SHARED/$m.onnx" ] || [ ! -x "$BIN/atc-compare" ]; then echo "SKIP: $m (no shared model or atc-compare)"; continue; fi
  for p in force_fp16 must_keep_origin_dtype; do
    "$BIN/atc" --model="$SHARED/$m.onnx" --framework=5 --output="$W/${m}_$p" --soc_version=native --precision_mode=$p > "$W/atc.log" 2>&1 || cat "$W/atc.log"
    "$BIN/omrun" --model="$W/${m}_$p.om" --input="$SHARED/$m.in.npy" --output="$W/${m}_${p}_out" --dump="$W/${m}_${p}_dump" > "$W/run.log" 2>&1 || cat "$W/run.log"
  done
  "$BIN/atc-compare" "$W/${m}_force_fp16_dump" "$W/${m}_must_keep_origin_dtype_dump" --output="$W/${m}_cmp" > "$W/cmp.log" 2>&1
  if $PY - "$SHARED/$m.onnx" "$W/${m}_force_fp16_dump" "$W/${m}_must_keep_origin_dtype_dump" "$W/${m}_cmp/compare.csv" \
       "$W/${m}_force_fp16_out/output_0.npy" "$W/${m}_must_keep_origin_dtype_out/output_0.npy" <<'PYEOF'
import sys, json, glob, csv, onnx, numpy as np
model, da, db, csvp, oa, ob = sys.argv[1:]
g = onnx.load(model).graph
framework = {n.name for n in g.node}
def last_nodes(d):
    j = json.load(open(glob.glob(d + "/*/dump_map.json")[0]))
    return {s["fused_from"][-1] for s in j["steps"] if any(o.get("file") for o in s["outputs"])}
survive = (last_nodes(da) & last_nodes(db)) & framework
rows = list(csv.DictReader(open(csvp)))
nodes = [r["node"] for r in rows if r["node"] in framework]
assert len(nodes) == len(set(nodes)), "a node has two rows"
missing = survive - set(nodes)
assert not missing, "no row for %s" % sorted(missing)[:5]
assert len(survive) >= 10, len(survive)
a, b = np.load(oa).astype(np.float64).ravel(), np.load(ob).astype(np.float64).ravel()
want = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
out_producer = {o: n.name for n in g.node for o in n.output}[g.output[0].name]
row = [r for r in rows if r["node"] == out_producer]
assert row, "no row for the output's producer " + out_producer
got = float(row[0]["cosine"])
assert abs(got - want) < 1e-6, (got, want)
print(len(survive), "nodes, final cosine", got)
PYEOF
  then ok "$m: fp16 vs fp32 dump compare has one row per surviving node, final cosine matches the outputs'"
  else ko "$m: fp16 vs fp32 dump compare"; cat "$W/cmp.log" | tail -5; fi
done

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
