#!/usr/bin/env bash
# Hostile and broken inputs (issue: never crash, hang or lie): each must give a clear
# ATC-style error (exit 1, an E-code block with a Solution line), no signal, no hang, and
# no output left behind. The models are the smallest repros in ../shared/repros, plus
# inputs made here. Usage: hostile_inputs.sh BIN_DIR SRC_DIR
set -u
BIN=$(cd "$1" && pwd); SRC=$(cd "$2" && pwd)
R="$SRC/../shared/repros"
SQ="$SRC/samples/models/squeezenet1_1"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export ASCEND_CACHE_PATH="$T/cache"
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; [ -f "$T/log" ] && sed 's/^/    | /' "$T/log" | head -8; }
# expect_error NAME CODE -- atc args...: exit 1 within 60 s, the code's error block, no .om
expect_error() {
  local name=$1 code=$2; shift 3
  rm -rf "$T/out"; mkdir -p "$T/out"
  (cd "$T/out" && timeout 60 "$BIN/atc" "$@" --output="$T/out/m" --soc_version=native > "$T/log" 2>&1); local rc=$?
  if [ $rc -ne 1 ]; then bad "$name" "exit code $rc (expected 1; 124 = hang, >128 = signal)"; return; fi
  grep -q "^$code: " "$T/log" || { bad "$name" "no $code error block"; return; }
  grep -q "^        Solution: " "$T/log" || { bad "$name" "no Solution line"; return; }
  [ -z "$(ls "$T/out" | grep -v fusion_result.json)" ] || { bad "$name" "output left behind: $(ls "$T/out")"; return; }
  ok "$name ($code)"
}
if [ -d "$R" ]; then
  expect_error "Conv with an absent X input" E19999 -- --model="$R/conv_absent_x.onnx" --framework=5
  expect_error "Conv with INT64_MAX dims" E10002 -- --model="$R/conv_dim_int64max.onnx" --framework=5
  expect_error "[2^62] float32 initializer with no data" E10041 -- --model="$R/init_2e62_empty.onnx" --framework=5
  expect_error "initializer claiming 8 GiB with 32 bytes" E10041 -- --model="$R/init_8GiB_claim_32B_data.onnx" --framework=5
  expect_error "Constant claiming 8 GiB with 4 bytes" E10041 -- --model="$R/constant_8GiB_claim_4B_data.onnx" --framework=5
  expect_error "input of [2^62] elements" E10002 -- --model="$R/input_2e62_relu.onnx" --framework=5
  expect_error "input of [2^64] elements" E10002 -- --model="$R/input_2e64_relu.onnx" --framework=5
  expect_error "TF Const splat of [2^62]" E19999 -- --model="$R/tf_const_2e62_splat.pbtxt" --framework=3
else
  echo "SKIP ../shared/repros not found"
fi
expect_error "zero input channels" E19999 -- --model="$SQ.onnx" --framework=5 --input_shape=input:1,0,224,224
export ATC_MAX_MODEL_MEMORY_BYTES=1000000
expect_error "a plan larger than \$ATC_MAX_MODEL_MEMORY_BYTES" E10001 -- --model="$SQ.onnx" --framework=5
export ATC_MAX_MODEL_MEMORY_BYTES=12abc
expect_error "a malformed \$ATC_MAX_MODEL_MEMORY_BYTES" E10001 -- --model="$SQ.onnx" --framework=5
unset ATC_MAX_MODEL_MEMORY_BYTES
mkfifo "$T/fifo"
expect_error "a FIFO as --fusion_switch_file" E10001 -- --model="$SQ.onnx" --framework=5 --fusion_switch_file="$T/fifo"
expect_error "/dev/zero as --keep_dtype" E10001 -- --model="$SQ.onnx" --framework=5 --keep_dtype=/dev/zero
expect_error "a folder as --fusion_switch_file" E10001 -- --model="$SQ.onnx" --framework=5 --fusion_switch_file="$T"
# Silent leniency: an attribute of the wrong type and constant Gather indices out of range are
# model errors, not a default or a clamp.
/usr/bin/python3 - "$T" <<'PY'
import sys, numpy as np, onnx
from onnx import helper, TensorProto as TP, numpy_helper as nh
t = sys.argv[1]
n = helper.make_node("Conv", ["x", "W"], ["y"])
n.attribute.append(helper.make_attribute("strides", "2,2"))
g = helper.make_graph([n], "g", [helper.make_tensor_value_info("x", TP.FLOAT, [1, 1, 8, 8])],
                      [helper.make_tensor_value_info("y", TP.FLOAT, None)], [nh.from_array(np.ones((1, 1, 3, 3), np.float32), "W")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), t + "/str_strides.onnx")
g = helper.make_graph([helper.make_node("Gather", ["x", "i"], ["y"], axis=0)], "g",
                      [helper.make_tensor_value_info("x", TP.FLOAT, [3, 4])], [helper.make_tensor_value_info("y", TP.FLOAT, None)],
                      [nh.from_array(np.array([0, 5], np.int64), "i")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), t + "/gather_oor.onnx")
# The compiler's own ops and attributes in a model: a QuantizedConv whose _q8_wshape claims
# 64x4x3x3 weights over 8 bytes, a Conv claiming its weights are packed already.
x = helper.make_tensor_value_info("x", TP.FLOAT, [1, 4, 5, 5])
y = helper.make_tensor_value_info("y", TP.FLOAT, None)
qi = [nh.from_array(np.array(0.1, np.float32), "s"), nh.from_array(np.array(3, np.uint8), "z"),
      nh.from_array(np.ones((2, 4, 1, 1), np.int8), "w"), nh.from_array(np.ones(2, np.float32), "m")]
g = helper.make_graph([helper.make_node("QuantizedConv", ["x", "s", "z", "w", "m"], ["y"], _q8_wshape=[64, 4, 3, 3])],
                      "g", [x], [y], qi)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), t + "/internal_op.onnx")
g = helper.make_graph([helper.make_node("Conv", ["x", "W"], ["y"], _cube_wshape=[2, 4, 1, 1])], "g", [x], [y],
                      [nh.from_array(np.ones((2, 4, 1, 1), np.float32), "W")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), t + "/internal_attr.onnx")
def npy(name, header):
    h = header.encode() + b" " * (63 - len(header)) + b"\n"
    open(t + "/" + name, "wb").write(b"\x93NUMPY\x01\x00" + bytes([len(h), 0]) + h + b"\0" * 64)
npy("unclosed.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 224, 224, }")
npy("negative.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1, -3, 2), }")
npy("overflow.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }")
PY
expect_error "a STRING-typed strides attribute" E19999 -- --model="$T/str_strides.onnx" --framework=5
expect_error "constant Gather indices out of range" E19999 -- --model="$T/gather_oor.onnx" --framework=5
expect_error "a compiler-internal op (QuantizedConv) in a model" E19010 -- --model="$T/internal_op.onnx" --framework=5
expect_error "a compiler-internal attribute (_cube_wshape) in a model" E10041 -- --model="$T/internal_attr.onnx" --framework=5
# A TF node with fewer inputs than its op (a one-input Mul inside a tanh-Gelu scope): refused by
# the converter, not read past the end of its inputs by ScopeGeluPass (a fuzz_tf finding).
ph='attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } } } }'
cf() { echo "node { name: \"$1\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: $2 } } } }"; }
bin() { echo "node { name: \"$1\" op: \"$2\" input: \"$3\" ${4:+input: \"$4\"} }"; }
{ echo "node { name: \"x\" op: \"Placeholder\" $ph }"; cf c 0.044715; cf k 0.7978845608
  bin sq Mul x; bin cube Mul sq x; bin c3 Mul c cube; bin add AddV2 x c3; bin u Mul k add; bin t Tanh u; } > "$T/mul1.pbtxt"
expect_error "a one-input TF Mul in a Gelu scope" E19999 -- --model="$T/mul1.pbtxt" --framework=3 --enable_scope_fusion_passes=ScopeGeluPass
# ONNX Attention (opset 23) inputs the expansion cannot honour are refused, not guessed.
/usr/bin/python3 - "$T" <<'PY'
import sys, onnx
from onnx import helper, TensorProto as TP
t = sys.argv[1]
def save(name, node, inputs):
    g = helper.make_graph([node], "a", inputs, [helper.make_tensor_value_info("Y", TP.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 23)])
    m.ir_version = 10
    onnx.save(m, t + "/" + name)
qkv3 = [helper.make_tensor_value_info(x, TP.FLOAT, [1, 16, 96]) for x in "QKV"]
save("attn_3d_noheads.onnx", helper.make_node("Attention", ["Q", "K", "V"], ["Y"], name="attn3d"), qkv3)
qkv4 = [helper.make_tensor_value_info(x, TP.FLOAT, [1, 2, 4, 8]) for x in "QKV"]
save("attn_nonpad.onnx", helper.make_node("Attention", ["Q", "K", "V", "", "", "", "n"], ["Y"], name="attnpad"),
     qkv4 + [helper.make_tensor_value_info("n", TP.INT32, [1])])
save("attn_nonpad_past.onnx", helper.make_node("Attention", ["Q", "K", "V", "", "K", "V", "n"], ["Y"], name="attnpp"),
     qkv4 + [helper.make_tensor_value_info("n", TP.INT64, [1])])
save("attn_badwindow.onnx", helper.make_node("Attention", ["Q", "K", "V"], ["Y"], name="attnwin", left_window_size=-2),
     qkv4)
g = helper.make_graph([helper.make_node("Attention", ["Q", "K", "V"], ["Y1"], name="a"),
                       helper.make_node("Attention", ["Y1", "K", "V"], ["Y"], name="a")], "a", qkv4,
                      [helper.make_tensor_value_info("Y", TP.FLOAT, None)])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 23)]); m.ir_version = 10
onnx.save(m, t + "/attn_dup_names.onnx")
save("attn_badmode.onnx", helper.make_node("Attention", ["Q", "K", "V"], ["Y", "", "", "qk"], name="attnmode",
     qk_matmul_output_mode=7), qkv4)
# RotaryEmbedding (opset 23): a 3-D input without num_heads, an odd rotary_embedding_dim, a 5-D input.
cs = [helper.make_tensor_value_info(x, TP.FLOAT, [50, 4]) for x in ("cos", "sin")] + \
     [helper.make_tensor_value_info("pos", TP.INT64, [2, 3])]
save("rope_3d_noheads.onnx", helper.make_node("RotaryEmbedding", ["Q", "cos", "sin", "pos"], ["Y"], name="rope3d"),
     [helper.make_tensor_value_info("Q", TP.FLOAT, [2, 3, 32])] + cs)
save("rope_odd.onnx", helper.make_node("RotaryEmbedding", ["Q", "cos", "sin", "pos"], ["Y"], name="ropeodd",
     rotary_embedding_dim=3), [helper.make_tensor_value_info("Q", TP.FLOAT, [2, 4, 3, 8])] + cs)
save("rope_5d.onnx", helper.make_node("RotaryEmbedding", ["Q", "cos", "sin", "pos"], ["Y"], name="rope5d"),
     [helper.make_tensor_value_info("Q", TP.FLOAT, [1, 2, 4, 3, 8])] + cs)
PY
expect_error "RotaryEmbedding with a 3-D input and no num_heads" E19999 -- --model="$T/rope_3d_noheads.onnx" --framework=5
expect_error "RotaryEmbedding with an odd rotary_embedding_dim" E19999 -- --model="$T/rope_odd.onnx" --framework=5
expect_error "RotaryEmbedding with a 5-D input" E19999 -- --model="$T/rope_5d.onnx" --framework=5
expect_error "Attention with 3-D inputs and no head counts" E19999 -- --model="$T/attn_3d_noheads.onnx" --framework=5
expect_error "Attention with an int32 nonpad_kv_seqlen" E19999 -- --model="$T/attn_nonpad.onnx" --framework=5
expect_error "Attention with nonpad_kv_seqlen and a past key" E19999 -- --model="$T/attn_nonpad_past.onnx" --framework=5
expect_error "Attention with left_window_size -2" E19999 -- --model="$T/attn_badwindow.onnx" --framework=5
expect_error "Attention with qk_matmul_output_mode 7" E19999 -- --model="$T/attn_badmode.onnx" --framework=5
rm -rf "$T/ad"; mkdir -p "$T/ad"
(cd "$T/ad" && timeout 120 "$BIN/atc" --model="$T/attn_dup_names.onnx" --framework=5 --output="$T/ad/m" --soc_version=native > "$T/log" 2>&1) \
  && ok "two Attention nodes with one name expand into distinct values" || bad "two Attention nodes with one name" "rc != 0"
# A zero batch is no crash: the graph folds to empty outputs and runs.
rm -rf "$T/z"; mkdir -p "$T/z"
if (cd "$T/z" && timeout 120 "$BIN/atc" --model="$SQ.onnx" --framework=5 --output="$T/z/m" --soc_version=native \
      --input_shape=input:0,3,224,224 > "$T/log" 2>&1) && timeout 60 "$BIN/omrun" --model="$T/z/m.om" --output="$T/z/o" > "$T/log2" 2>&1 &&
   /usr/bin/python3 -c "import numpy as np,sys; a=np.load('$T/z/o/output_0.npy'); sys.exit(0 if a.shape[0]==0 else 1)"; then
  ok "zero batch builds and runs to an empty output"
else
  bad "zero batch" "$(cat "$T/log2" 2>/dev/null | tail -2)"
fi
# Leftovers of a killed build are removed; a symlink planted as fusion_result.json is
# replaced, not written through.
rm -rf "$T/k"; mkdir -p "$T/k"
echo junk > "$T/k/m.om.tmp.4194999.0"; echo keep > "$T/victim"; ln -s "$T/victim" "$T/k/fusion_result.json"
if (cd "$T/k" && timeout 120 "$BIN/atc" --model="$SQ.onnx" --framework=5 --output="$T/k/m" --soc_version=native > "$T/log" 2>&1); then
  [ ! -e "$T/k/m.om.tmp.4194999.0" ] && ok "stale m.om.tmp.<dead pid> removed" || bad "stale temporary" "still there"
  [ "$(cat "$T/victim")" = keep ] && [ -f "$T/k/fusion_result.json" ] && [ ! -L "$T/k/fusion_result.json" ] \
    && ok "fusion_result.json replaces a planted symlink" || bad "fusion_result.json symlink" "written through"
else
  bad "build for the leftover checks" "rc != 0"
fi
# omrun: non-regular files are refused, not read forever.
timeout 30 "$BIN/omrun" --model="$T/fifo" > "$T/log" 2>&1; rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -lt 128 ] && ok "omrun --model=FIFO refused (rc $rc)" || bad "omrun --model=FIFO" "rc $rc"
if [ -f "$T/z/m.om" ]; then
  timeout 30 "$BIN/omrun" --model="$T/z/m.om" --input=/dev/zero > "$T/log" 2>&1; rc=$?
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -lt 128 ] && ok "omrun --input=/dev/zero refused (rc $rc)" || bad "omrun --input=/dev/zero" "rc $rc"
fi
if [ -f "$T/z/m.om" ]; then
  for f in unclosed negative overflow; do
    timeout 30 "$BIN/omrun" --model="$T/z/m.om" --input="$T/$f.npy" > "$T/log" 2>&1; rc=$?
    [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -lt 128 ] && grep -q "npy" "$T/log" && ok "omrun refuses a $f .npy shape header (rc $rc)" \
      || bad "omrun $f .npy header" "rc $rc"
  done
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
