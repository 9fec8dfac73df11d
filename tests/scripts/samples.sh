#!/usr/bin/env bash
# The samples' documented commands (samples/*/README.md) on small models:
#   batch_build: `make -j4` exactly as a newcomer types it (bundled SqueezeNet 1.1), then
#     `make clean && make -j4` (kernels from the cache, byte-identical .om), `make -j4 CACHE=..
#     NAMES=.. MODELS=..` on two tiny generated models (run and checked against references),
#     `make -f` from another folder, `make BIN=..` on the source folder with every output
#     redirected, a clear failure without atc, `make clean` / `make clean-cache`;
#   precision_sweep: `make`, `make NAME SETTINGS=..`, the direct sweep.py command, `make clean`.
# Each sample runs in a temporary copy of a checkout whose build/bin links to BIN_DIR and
# whose samples/models links to the bundled models, so the Makefiles' default paths are the
# ones tested. The source tree is never written; HOME and the kernel cache are temporary.
# Usage: samples.sh BIN_DIR SRC_DIR
set -euo pipefail
BIN=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
PY=/usr/bin/python3
T=$(mktemp -d "${TMPDIR:-/tmp}/atc_samples.XXXXXX")
trap 'rm -rf "$T"' EXIT
export HOME="$T/home"
mkdir -p "$HOME"
export ASCEND_CACHE_PATH="$T/envcache"
# Variables that would override the Makefiles' defaults (`?=`) if exported.
unset ATC MODELS NAMES SOC CACHE OUT LOOP SETTINGS MAKEFLAGS MFLAGS
export -n BIN PY
touch "$T/stamp"
t_start=$(date +%s)
pass=0
fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); if [ -n "${2:-}" ] && [ -f "$2" ]; then tail -20 "$2" | sed 's/^/    /'; fi; }
# logged LOG CMD...: runs CMD with its output in LOG; the exit status is CMD's.
logged() { local log=$1; shift; "$@" > "$log" 2>&1; }
kce() { { find "$1" -name '*.kce' 2>/dev/null || true; } | wc -l; }
# check_run OM NAME: omrun on the reference input of $T/models/NAME matches its reference
# (the sample builds with atc's default precision_mode, force_fp16: tolerance 1e-2).
check_run() {
  "$BIN/omrun" --model="$1" --input="$T/models/$2.in.npy" --output="$1.res" > "$1.run.log" 2>&1 &&
    "$PY" "$SRC/scripts/compare_npy.py" "$1.res/output_0.npy" "$T/models/$2.out.npy" --tol 1e-2 >> "$1.run.log" 2>&1
}

# A fresh checkout as the README's set-up leaves it: the sample folders, samples/models and
# build/bin (no ../shared beside it, so the samples fall back to the bundled SqueezeNet).
R="$T/checkout"
mkdir -p "$R/samples" "$R/build"
cp -r "$SRC/samples/batch_build" "$SRC/samples/precision_sweep" "$R/samples/"
rm -rf "$R/samples/batch_build/out" "$R/samples/batch_build/cache" "$R/samples/precision_sweep/results"
ln -s "$SRC/samples/models" "$R/samples/models"
ln -s "$BIN" "$R/build/bin"
BB="$R/samples/batch_build"
PS="$R/samples/precision_sweep"

# Two tiny models with references computed in float64 by numpy.
mkdir -p "$T/models"
if ! "$PY" - "$T/models" > "$T/gen.log" 2>&1 <<'PYEOF'
import os, sys
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto
d = sys.argv[1]
rng = np.random.RandomState(0)
def save(name, nodes, inits, x, y):
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(y.shape))],
                          [numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(d, name + ".onnx"))
    np.save(os.path.join(d, name + ".in.npy"), x)
    np.save(os.path.join(d, name + ".out.npy"), y.astype(np.float32))
# tiny_mlp: MatMul, Add, Tanh, MatMul, Add, Softmax -> [1,10]
w1 = (rng.randn(16, 32) * 0.3).astype(np.float32); b1 = (rng.randn(32) * 0.1).astype(np.float32)
w2 = (rng.randn(32, 10) * 0.3).astype(np.float32); b2 = (rng.randn(10) * 0.1).astype(np.float32)
x = rng.randn(1, 16).astype(np.float32)
z = np.tanh(x.astype(np.float64) @ w1 + b1) @ w2 + b2
y = np.exp(z - z.max(-1, keepdims=True)); y /= y.sum(-1, keepdims=True)
save("tiny_mlp", [helper.make_node("MatMul", ["x", "w1"], ["m1"]), helper.make_node("Add", ["m1", "b1"], ["a1"]),
                  helper.make_node("Tanh", ["a1"], ["t"]), helper.make_node("MatMul", ["t", "w2"], ["m2"]),
                  helper.make_node("Add", ["m2", "b2"], ["z"]), helper.make_node("Softmax", ["z"], ["y"], axis=-1)],
     {"w1": w1, "b1": b1, "w2": w2, "b2": b2}, x, y)
# tiny_conv: Conv 3x3 pad 1, Relu, GlobalAveragePool, Flatten, Gemm -> [1,10]
wc = (rng.randn(4, 3, 3, 3) * 0.3).astype(np.float32); bc = (rng.randn(4) * 0.1).astype(np.float32)
wg = rng.randn(4, 10).astype(np.float32); bg = (rng.randn(10) * 0.1).astype(np.float32)
x = rng.randn(1, 3, 8, 8).astype(np.float32)
xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
c = np.zeros((1, 4, 8, 8)) + bc[None, :, None, None]
for i in range(3):
    for j in range(3):
        c += np.einsum("nchw,oc->nohw", xp[:, :, i:i + 8, j:j + 8], wc[:, :, i, j])
y = np.maximum(c, 0).mean((2, 3)) @ wg + bg
save("tiny_conv", [helper.make_node("Conv", ["x", "wc", "bc"], ["c"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
                   helper.make_node("Relu", ["c"], ["r"]), helper.make_node("GlobalAveragePool", ["r"], ["p"]),
                   helper.make_node("Flatten", ["p"], ["f"]), helper.make_node("Gemm", ["f", "wg", "bg"], ["y"])],
     {"wc": wc, "bc": bc, "wg": wg, "bg": bg}, x, y)
PYEOF
then
  bad "generate the tiny models (/usr/bin/python3 with numpy and onnx)" "$T/gen.log"
  echo "$pass passed, $fail failed"
  exit 1
fi

# ---- samples/batch_build -------------------------------------------------------------------
# README: cd samples/batch_build && make -j4 (defaults: ../../build/bin/atc, bundled models).
if (cd "$BB" && logged "$T/bb1.log" make -j4) && [ -s "$BB/out/squeezenet1_1.om" ] \
   && [ "$(kce "$BB/cache/kernel_cache/native")" -gt 0 ]; then
  ok "batch_build: make -j4 builds out/squeezenet1_1.om with the default build/bin, $(kce "$BB/cache/kernel_cache/native") cache entries"
else bad "batch_build: make -j4" "$T/bb1.log"; fi
if [ -s "$BB/out/squeezenet1_1.om" ] && "$BIN/omrun" --model="$BB/out/squeezenet1_1.om" \
     --input="$SRC/samples/models/squeezenet1_1.in.npy" --output="$T/sq.res" > "$T/sq.run.log" 2>&1 \
   && "$PY" "$SRC/scripts/compare_npy.py" "$T/sq.res/output_0.npy" "$SRC/samples/models/squeezenet1_1.out.npy" \
        --tol 1e-2 >> "$T/sq.run.log" 2>&1; then
  ok "batch_build: out/squeezenet1_1.om runs and matches the reference"
else bad "batch_build: squeezenet1_1.om output" "$T/sq.run.log"; fi

if [ ! -e "$BB/fusion_result.json" ] && ls "$BB"/out/squeezenet1_1.work/FE/*/fusion_result.json > /dev/null 2>&1; then
  ok "batch_build: fusion_result.json per model under out/NAME.work, none in the sample folder"
else bad "batch_build: fusion_result.json placement"; fi

# README: make clean && make -j4 (kernels from the cache; same bytes as the first build).
cp "$BB/out/squeezenet1_1.om" "$T/first.om" 2>/dev/null || true
n1=$(kce "$BB/cache")
if (cd "$BB" && logged "$T/bb2.log" make clean) && [ ! -e "$BB/out" ] \
   && (cd "$BB" && logged "$T/bb2.log" make -j4) && cmp -s "$T/first.om" "$BB/out/squeezenet1_1.om" \
   && [ "$(kce "$BB/cache")" = "$n1" ]; then
  ok "batch_build: make clean && make -j4 rebuilds from the cache, byte-identical .om"
else bad "batch_build: make clean && make -j4" "$T/bb2.log"; fi

# README: make -j4 CACHE=... NAMES="..." MODELS=...
if (cd "$BB" && logged "$T/bb3.log" make -j4 CACHE="$T/bbcache" NAMES="tiny_mlp tiny_conv" MODELS="$T/models") \
   && [ -s "$BB/out/tiny_mlp.om" ] && [ -s "$BB/out/tiny_conv.om" ] && [ "$(kce "$T/bbcache/kernel_cache/native")" -gt 0 ]; then
  ok "batch_build: make -j4 CACHE= NAMES= MODELS= builds both models into the given cache"
else bad "batch_build: make -j4 CACHE= NAMES= MODELS=" "$T/bb3.log"; fi
for m in tiny_mlp tiny_conv; do
  if [ -s "$BB/out/$m.om" ] && check_run "$BB/out/$m.om" $m; then ok "batch_build: out/$m.om runs and matches the reference"
  else bad "batch_build: $m.om output" "$BB/out/$m.om.run.log"; fi
done

# The defaults do not depend on the current folder: make -f from elsewhere.
mkdir -p "$T/elsewhere"
if (cd "$T/elsewhere" && logged "$T/bb4.log" make -f "$BB/Makefile" -j4 NAMES=tiny_mlp MODELS="$T/models") \
   && [ -s "$BB/out/tiny_mlp.om" ] && [ -z "$(ls -A "$T/elsewhere")" ]; then
  ok "batch_build: make -f .../Makefile from another folder uses the Makefile's own paths"
else bad "batch_build: make -f from another folder" "$T/bb4.log"; fi

# The source folder itself with BIN= (another build's bin) and every output redirected.
if logged "$T/bb5.log" make -C "$SRC/samples/batch_build" -j4 BIN="$BIN" NAMES="tiny_conv" MODELS="$T/models" \
     OUT="$T/src_out" CACHE="$T/src_cache" && [ -s "$T/src_out/tiny_conv.om" ] && check_run "$T/src_out/tiny_conv.om" tiny_conv; then
  ok "batch_build: make BIN=<build>/bin OUT= CACHE= on the source folder"
else bad "batch_build: make BIN= on the source folder" "$T/bb5.log"; fi

# No atc: a clear message and a non-zero exit, nothing built.
if (cd "$BB" && logged "$T/bb6.log" make -j4 BIN="$T/nobin" OUT="$T/nobin_out" CACHE="$T/nobin_cache"); then
  bad "batch_build: make with a missing atc succeeded" "$T/bb6.log"
elif grep -q "no atc at $T/nobin/atc" "$T/bb6.log" && [ ! -e "$T/nobin_out/squeezenet1_1.om" ]; then
  ok "batch_build: a missing atc fails with a message naming BIN"
else bad "batch_build: missing atc message" "$T/bb6.log"; fi

# README: make clean (the cache is kept), make clean-cache.
if (cd "$BB" && logged "$T/bb7.log" make clean) && [ ! -e "$BB/out" ] && [ -d "$BB/cache" ] \
   && (cd "$BB" && logged "$T/bb7.log" make clean-cache) && [ ! -e "$BB/cache" ]; then
  ok "batch_build: make clean keeps the cache, make clean-cache removes it"
else bad "batch_build: make clean / clean-cache" "$T/bb7.log"; fi

# ---- samples/precision_sweep ---------------------------------------------------------------
# check_sweep DIR NAME ROWS: DIR/NAME_sweep.{csv,md,png}, ROWS settings (0: the default list),
# the fp32 (must_keep_origin_dtype) row matches the reference, no temporary folder left.
check_sweep() {
  [ -s "$1/$2_sweep.csv" ] && [ -s "$1/$2_sweep.md" ] && [ -s "$1/$2_sweep.png" ] \
    && [ -z "$(find "$1" -maxdepth 1 -name 'sweep_*')" ] \
    && "$PY" - "$1/$2_sweep.csv" "$3" "$PS/sweep.py" <<'PYEOF'
import csv, sys, importlib.util
rows = list(csv.DictReader(open(sys.argv[1])))
want = int(sys.argv[2])
if want == 0:
    spec = importlib.util.spec_from_file_location("sweep", sys.argv[3])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    want = len(mod.default_settings())
assert len(rows) == want, "%d rows, expected %d" % (len(rows), want)
assert all(r["status"] in ("ok", "refused") for r in rows), rows
assert any(r["status"] == "ok" for r in rows), "no setting built"
for r in rows:
    if r["status"] == "ok":  # the layer compare against the float32 build's dump (atc-compare)
        assert r["worst_layer"] and float(r["worst_layer"].rsplit("(", 1)[1].rstrip(")")) > 0.5, r
    if r["setting"] == "precision_mode=must_keep_origin_dtype":
        assert r["status"] == "ok" and float(r["cosine"]) > 0.99999 and float(r["max_rel_err"]) < 1e-4, r
        assert float(r["median_ms"]) >= 0, r
        assert r["first_drift"] == "" and r["worst_layer"].endswith("(1.0000000)"), r
PYEOF
}

# README: cd samples/precision_sweep && make (default models, here the bundled SqueezeNet; one
# setting, the full list runs on the tiny models below).
if (cd "$PS" && logged "$T/ps1.log" make SETTINGS=precision_mode=must_keep_origin_dtype LOOP=2) \
   && check_sweep "$PS/results" squeezenet1_1 1 >> "$T/ps1.log" 2>&1; then
  ok "precision_sweep: make (default BIN, MODELS, NAMES) writes results/squeezenet1_1_sweep.*"
else bad "precision_sweep: make with the defaults" "$T/ps1.log"; fi

# README: make, every default setting, on the two tiny models.
if (cd "$PS" && logged "$T/ps2.log" make NAMES="tiny_mlp tiny_conv" MODELS="$T/models" LOOP=3) \
   && check_sweep "$PS/results" tiny_mlp 0 >> "$T/ps2.log" 2>&1 && check_sweep "$PS/results" tiny_conv 0 >> "$T/ps2.log" 2>&1; then
  ok "precision_sweep: make NAMES= MODELS= sweeps every default setting ($(($(wc -l < "$PS/results/tiny_mlp_sweep.csv") - 1)) rows)"
else bad "precision_sweep: make NAMES= MODELS=" "$T/ps2.log"; fi

# README: make NAME SETTINGS="a,b" LOOP=...
rm -f "$PS/results/tiny_mlp_sweep."*
if (cd "$PS" && logged "$T/ps3.log" make tiny_mlp NAMES=tiny_mlp MODELS="$T/models" LOOP=3 \
      SETTINGS="precision_mode=force_fp16,op_select_implmode=high_precision_for_all,precision_mode=must_keep_origin_dtype") \
   && check_sweep "$PS/results" tiny_mlp 3 >> "$T/ps3.log" 2>&1; then
  ok "precision_sweep: make NAME SETTINGS=... sweeps the given settings"
else bad "precision_sweep: make NAME SETTINGS=" "$T/ps3.log"; fi

# README: make clean.
if (cd "$PS" && logged "$T/ps4.log" make clean) && [ ! -e "$PS/results" ]; then
  ok "precision_sweep: make clean removes results/"
else bad "precision_sweep: make clean" "$T/ps4.log"; fi

# README: /usr/bin/python3 sweep.py --model m.onnx --input m.in.npy --ref m.out.npy --bin ../../build/bin --out results
cp "$T/models/tiny_conv.onnx" "$PS/m.onnx"; cp "$T/models/tiny_conv.in.npy" "$PS/m.in.npy"; cp "$T/models/tiny_conv.out.npy" "$PS/m.out.npy"
if (cd "$PS" && logged "$T/ps5.log" "$PY" sweep.py --model m.onnx --input m.in.npy --ref m.out.npy --bin ../../build/bin --out results) \
   && check_sweep "$PS/results" m 0 >> "$T/ps5.log" 2>&1; then
  ok "precision_sweep: sweep.py --bin ../../build/bin --out results"
else bad "precision_sweep: sweep.py command" "$T/ps5.log"; fi

# sweep.py without --bin (the repository's build/bin) from another folder; and with no atc.
if (cd "$T/elsewhere" && logged "$T/ps6.log" "$PY" "$PS/sweep.py" --model "$T/models/tiny_mlp.onnx" --input "$T/models/tiny_mlp.in.npy" \
      --ref "$T/models/tiny_mlp.out.npy" --out "$T/ps6" --settings precision_mode=must_keep_origin_dtype --loop 2) \
   && check_sweep "$T/ps6" tiny_mlp 1 >> "$T/ps6.log" 2>&1; then
  ok "precision_sweep: sweep.py's default --bin is the repository's build/bin"
else bad "precision_sweep: sweep.py default --bin" "$T/ps6.log"; fi
if (cd "$PS" && logged "$T/ps7.log" make NAMES=tiny_mlp MODELS="$T/models" BIN="$T/nobin" OUT="$T/ps7"); then
  bad "precision_sweep: make with a missing bin folder succeeded" "$T/ps7.log"
elif grep -q "no atc/omrun in $T/nobin" "$T/ps7.log" && [ ! -e "$T/ps7" ]; then
  ok "precision_sweep: a missing bin folder fails with a message naming BIN"
else bad "precision_sweep: missing bin message" "$T/ps7.log"; fi

# Nothing was written into the source tree.
written=$({ find "$SRC/samples" "$SRC/bench" -newer "$T/stamp" 2>/dev/null || true; } | head -5)
if [ -z "$written" ]; then ok "source tree untouched"; else bad "files written in the source tree: $written"; fi

echo "$pass passed, $fail failed ($(($(date +%s) - t_start)) s)"
[ "$fail" = 0 ]
