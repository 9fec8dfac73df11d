#!/usr/bin/env bash
# atc implementation modes through the CLI: a small ONNX model (Tanh, Exp, Softmax,
# Gather with an out-of-range index) built under --op_select_implmode / --op_precision_mode;
# high_precision is closer to a float64 reference than high_performance, super_performance
# is further away, support_out_of_bound_index gives zeros; option errors give E10001/E10003.
# Usage: implmode_cli.sh BIN_DIR
set -u
BIN=$(cd "$1" && pwd)
PY=/usr/bin/python3
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export ASCEND_CACHE_PATH="$T/cache"
fail=0
ok() { echo "PASS $1"; }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
cd "$T"
$PY - <<'PY'
import numpy as np, onnx
from onnx import helper as h, TensorProto as P
x = h.make_tensor_value_info("x", P.FLOAT, [64, 256])
ids = h.make_tensor_value_info("ids", P.INT64, [4])
y = h.make_tensor_value_info("y", P.FLOAT, [64, 256])
g_out = h.make_tensor_value_info("g", P.FLOAT, [4, 256])
nodes = [h.make_node("Tanh", ["x"], ["t"], name="tanh1"),
         h.make_node("Exp", ["t"], ["e"], name="exp1"),
         h.make_node("Softmax", ["e"], ["y"], name="softmax1", axis=-1),
         h.make_node("Gather", ["x", "ids"], ["g"], name="gather1", axis=0)]
m = h.make_model(h.make_graph(nodes, "g", [x, ids], [y, g_out]), opset_imports=[h.make_opsetid("", 13)])
onnx.save(m, "m.onnx")
rng = np.random.default_rng(0)
xv = rng.uniform(-3, 3, (64, 256)).astype(np.float32)
np.save("x.npy", xv); np.save("ids.npy", np.array([1, 70, -2, -65], np.int64))
e = np.exp(np.tanh(xv.astype(np.float64)))
s = np.exp(e - e.max(-1, keepdims=True))
np.save("ref.npy", s / s.sum(-1, keepdims=True))
PY
build() {  # name [options]
  local n=$1; shift
  "$BIN/atc" --model=m.onnx --framework=5 --output="$n" --soc_version=native \
    --precision_mode=must_keep_origin_dtype "$@" > "$n.log" 2>&1
}
err_of() {  # name -> max relative error of output 0 against the float64 reference
  "$BIN/omrun" --model="$1.om" --input=x.npy,ids.npy --output="$1.out" > /dev/null 2>&1 || { echo 1; return; }
  $PY -c "import numpy as np; r = np.load('ref.npy'); print((np.abs(np.load('$1.out/output_0.npy') - r) / r).max())"
}
build perf && ok "default build" || bad "default build"
build prec --op_select_implmode=high_precision_for_all && ok "high_precision_for_all build" || bad "high_precision_for_all"
printf '[ByOpType]\nTanh=super_performance\nExp=super_performance\nGather=support_out_of_bound_index\n' > sup.ini
build sup --op_precision_mode=sup.ini && ok "ini build" || bad "ini build"
ep=$(err_of perf); eh=$(err_of prec); es=$(err_of sup)
echo "max rel error: high_performance $ep, high_precision $eh, super_performance $es"
$PY -c "import sys; sys.exit(0 if $eh < $ep < $es else 1)" && ok "error order prec < perf < super" || bad "error order"
$PY -c "
import numpy as np
x = np.load('x.npy'); g = np.load('sup.out/output_1.npy'); d = np.load('perf.out/output_1.npy')
assert (g[1] == 0).all() and (g[3] == 0).all() and (g[0] == x[1]).all() and (g[2] == x[-2]).all()
assert (d[1] == x[63]).all()  # default: clamped
" && ok "support_out_of_bound_index zeros" || bad "out of bound index"
# ini beats --op_select_implmode; [ByNodeName] beats [ByOpType]
printf '[ByOpType]\nSoftmax=high_precision\n[ByNodeName]\nsoftmax1=high_performance\n' > name.ini
build name --op_precision_mode=name.ini --op_select_implmode=high_precision_for_all --log=debug &&
  grep -q 'softmax1 (Softmax): high_performance \[op_precision_mode \[ByNodeName\] line 4\]' name.log &&
  ! grep -q 'tanh1 (Tanh): high_precision' name.log && ok "precedence ini > implmode, ByNodeName > ByOpType" ||
  bad "precedence"
expect_err() {  # code label options...
  local code=$1 label=$2; shift 2
  build e "$@"; local rc=$?
  [ $rc -ne 0 ] && grep -q "$code" e.log && ok "$label -> $code" || { bad "$label"; cat e.log; }
}
expect_err E10001 "bad --op_select_implmode" --op_select_implmode=fast
expect_err E10001 "optypelist without op_select_implmode" --optypelist_for_implmode=Softmax
expect_err E10001 "optypelist with *_for_all" --op_select_implmode=high_precision_for_all --optypelist_for_implmode=Softmax
expect_err E10003 "missing ini" --op_precision_mode=nope.ini
printf '[ByOpType]\nSoftmax=fastest\n' > badmode.ini
expect_err E10001 "ini unknown mode" --op_precision_mode=badmode.ini
printf 'Softmax=high_precision\n' > nosec.ini
expect_err E10001 "ini line before a section" --op_precision_mode=nosec.ini
build list --op_select_implmode=high_precision --optypelist_for_implmode=Tanh --log=debug &&
  grep -q 'tanh1 (Tanh): high_precision \[op_select_implmode=high_precision, optypelist_for_implmode\]' list.log &&
  ! grep -q 'softmax1 (Softmax): high_precision' list.log && ok "optypelist applies to the listed types only" ||
  bad "optypelist"
echo "$fail failed"
[ "$fail" -eq 0 ]
