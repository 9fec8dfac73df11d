#!/bin/bash
# Ops whose kernels store float16 / bfloat16 without an op-info entry (OpDef::reducedFloats,
# docs/precision.md): a small model of MaxPool (column-strided and padded: pool_f16_rows),
# AveragePool with and without count_include_pad, GlobalAveragePool, Concat, BatchNormalization +
# ReLU (the 16-lane path of the batchnorm kernel; odd plane sizes for its scalar tail), Transpose,
# Clip, and a FusedEltwise of Sigmoid/Mul/Sub with a broadcast operand (float16 loads and stores
# in the fused_eltwise kernel), built under must_keep_origin_dtype, force_fp16,
# allow_mix_precision and allow_fp32_to_bf16. Checks: the --mode=1 JSON shows those ops in the
# reduced dtype (so the narrow kernels ran), and every output matches a float64 numpy reference
# within the storage type's rounding (float32 1e-5, float16 1e-2, bfloat16 6e-2 of the output's
# scale).
# Usage: precision_narrow.sh <bin dir> <repo root>
BIN=$(cd "$1" && pwd)
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export ASCEND_CACHE_PATH="$T/cache"
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "$2" ] && echo "$2" | tail -8; }

/usr/bin/python3 - "$T" <<'PY' || { echo "FAIL model generation"; exit 1; }
import sys, numpy as np, onnx
from onnx import helper, TensorProto, numpy_helper
T = sys.argv[1]
rng = np.random.default_rng(7)
C, H, W = 20, 23, 21  # odd planes: the batchnorm kernel's scalar tail, ragged pool rows
def const(name, a): return numpy_helper.from_array(np.asarray(a, np.float32), name)
inits = [const("k", rng.standard_normal((C, C, 1, 1)) * 0.3), const("sc", rng.uniform(0.5, 1.5, 2 * C)),
         const("b", rng.standard_normal(2 * C) * 0.1), const("mu", rng.standard_normal(2 * C) * 0.1),
         const("var", rng.uniform(0.5, 2.0, 2 * C)), const("lo", -0.5), const("hi", 0.75)]
n = helper.make_node
nodes = [
    n("Conv", ["x", "k"], ["c"], kernel_shape=[1, 1]),
    n("MaxPool", ["c"], ["mp"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
    n("AveragePool", ["c"], ["ap"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=1),
    n("AveragePool", ["c"], ["ap2"], kernel_shape=[2, 3], strides=[2, 2], pads=[0, 1, 1, 0]),
    n("Concat", ["mp", "ap"], ["cat"], axis=1),
    n("BatchNormalization", ["cat", "sc", "b", "mu", "var"], ["bn"]),
    n("Relu", ["bn"], ["r"]),
    n("BatchNormalization", ["cat", "sc", "b", "mu", "var"], ["bn2"]),
    n("Sigmoid", ["bn2"], ["sg"]),
    n("Mul", ["r", "sg"], ["m"]),
    n("GlobalAveragePool", ["cat"], ["gp"]),
    n("Sub", ["m", "gp"], ["d"]),
    n("Transpose", ["d"], ["t"], perm=[0, 2, 3, 1]),
    n("Clip", ["t", "lo", "hi"], ["y"]),
    n("Concat", ["ap2", "ap2"], ["y2"], axis=2),
]
oh, ow = (H + 2 - 3) // 2 + 1, (W + 2 - 3) // 2 + 1
oh2, ow2 = (H + 1 - 2) // 2 + 1, (W + 1 - 3) // 2 + 1
g = helper.make_graph(nodes, "narrow", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, C, H, W])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, oh, ow, 2 * C]),
                       helper.make_tensor_value_info("y2", TensorProto.FLOAT, [1, C, 2 * oh2, ow2])], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), T + "/narrow.onnx")
x = rng.standard_normal((1, C, H, W)).astype(np.float32)
np.save(T + "/x.npy", x)
# float64 reference
f = {i.name: numpy_helper.to_array(i).astype(np.float64) for i in inits}
c = np.einsum("oc,nchw->nohw", f["k"][:, :, 0, 0], x.astype(np.float64))
def pool(a, kh, kw, s, pt, pl, pb, pr, kind, incl):
    N, Cc, Hh, Ww = a.shape
    fill = -np.inf if kind == "max" else 0.0
    p = np.full((N, Cc, Hh + pt + pb, Ww + pl + pr), fill); p[:, :, pt:pt + Hh, pl:pl + Ww] = a
    cnt = np.zeros((Hh + pt + pb, Ww + pl + pr)); cnt[pt:pt + Hh, pl:pl + Ww] = 1
    OH, OW = (Hh + pt + pb - kh) // s + 1, (Ww + pl + pr - kw) // s + 1
    out = np.zeros((N, Cc, OH, OW))
    for i in range(OH):
        for j in range(OW):
            win = p[:, :, i * s:i * s + kh, j * s:j * s + kw]
            if kind == "max": out[:, :, i, j] = win.max(axis=(2, 3))
            else: out[:, :, i, j] = win.sum(axis=(2, 3)) / (kh * kw if incl else cnt[i * s:i * s + kh, j * s:j * s + kw].sum())
    return out
mp = pool(c, 3, 3, 2, 1, 1, 1, 1, "max", 0)
ap = pool(c, 3, 3, 2, 1, 1, 1, 1, "avg", 1)
ap2 = pool(c, 2, 3, 2, 0, 1, 1, 0, "avg", 0)
cat = np.concatenate([mp, ap], axis=1)
s = f["sc"] / np.sqrt(f["var"] + 1e-5)
bn = cat * s[None, :, None, None] + (f["b"] - f["mu"] * s)[None, :, None, None]
r = np.maximum(bn, 0); sg = 1 / (1 + np.exp(-bn)); d = r * sg - cat.mean(axis=(2, 3), keepdims=True)
np.save(T + "/ref_y.npy", np.clip(d.transpose(0, 2, 3, 1), -0.5, 0.75))
np.save(T + "/ref_y2.npy", np.concatenate([ap2, ap2], axis=2))
PY

check() {  # name tolerance: outputs against the references
  /usr/bin/python3 - "$T/$1.out" "$T" "$2" <<'PY'
import sys, numpy as np
out, T, tol = sys.argv[1], sys.argv[2], float(sys.argv[3])
worst = 0.0
for i, name in enumerate(["y", "y2"]):
    a = np.load("%s/output_%d.npy" % (out, i)).astype(np.float64); r = np.load("%s/ref_%s.npy" % (T, name))
    if a.shape != r.shape: print("shape", a.shape, r.shape); sys.exit(1)
    worst = max(worst, np.abs(a - r).max() / (np.abs(r).max() + 1e-30))
print("max error / scale %.3g (tolerance %g)" % (worst, tol)); sys.exit(0 if worst <= tol else 1)
PY
}
dtypes() {  # name: the ops' dtypes from the --mode=1 JSON, "Type:dtype" per op
  "$BIN/atc" --mode=1 --om="$T/$1.om" --json="$T/$1.json" > /dev/null 2>&1 &&
    /usr/bin/python3 -c "
import json, sys
j = json.load(open('$T/$1.json'))
print(' '.join(sorted({n['type'] + ':' + n['attrs'].get('_dtype_in', '') for n in j['graph']['nodes'] if n['type'] != 'Cast'})))"
}
for spec in "origin must_keep_origin_dtype 1e-5" "fp16 force_fp16 1e-2" "mix allow_mix_precision 1e-2" \
            "bf16 allow_fp32_to_bf16 6e-2"; do
  set -- $spec
  (cd "$T" && "$BIN/atc" --model="$T/narrow.onnx" --framework=5 --output="$T/$1" --soc_version=native \
     --precision_mode=$2 > "$T/$1.log" 2>&1) || { bad "$1 build" "$(cat "$T/$1.log")"; continue; }
  "$BIN/omrun" --model="$T/$1.om" --input="$T/x.npy" --output="$T/$1.out" > "$T/$1.run" 2>&1 ||
    { bad "$1 run" "$(cat "$T/$1.run")"; continue; }
  msg=$(check "$1" "$3") && ok "$2 matches the float64 reference ($msg)" || bad "$2 accuracy" "$msg"
  types=$(dtypes "$1")
  case $1 in
    # Sigmoid, Mul and Sub become one FusedEltwise, narrow as each of them is; under
    # allow_mix_precision the grey ops follow their float16 producers.
    fp16|mix) want="AveragePool:float16 BatchNormalization:float16 Clip:float16 Concat:float16 FusedEltwise:float16 GlobalAveragePool:float16 MaxPool:float16 Transpose:float16" ;;
    bf16) want="BatchNormalization:float32 Concat:float32" ;;  # allow_fp32_to_bf16 keeps vector ops in float32
    *) want="MaxPool:float32 BatchNormalization:float32" ;;
  esac
  miss=""
  for w in $want; do case " $types " in *" $w "*) ;; *) miss="$miss $w" ;; esac; done
  [ -z "$miss" ] && ok "$2: ops in the expected dtypes" || bad "$2 dtypes: missing$miss" "$types"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
