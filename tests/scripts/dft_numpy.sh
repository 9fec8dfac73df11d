#!/usr/bin/env bash
# DFT (opsets 17 and 20) against numpy.fft: real and complex inputs, the axis as an attribute
# (17) or a constant input (20), dft_length zero-padding and truncating, inverse, onesided
# forward (rfft) and onesided inverse (irfft, even and odd lengths); each model compiled with
# atc and run with omrun. An axis on the complex dim and a DFT too long for the direct kernel
# are refused. The axis fed at run time (a two-sided inverse DFT along axes 0, 1 and -2 of one
# .om); a onesided one along a run-time axis sizes its output at run time (run-sized).
# Usage: dft_numpy.sh BIN_DIR SRC_DIR
set -u
BIN=$(cd "$1" && pwd)
if ! /usr/bin/python3 -c "import numpy, onnx" 2>/dev/null; then echo "SKIP: python3 lacks numpy or onnx"; exit 0; fi
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
export ASCEND_CACHE_PATH="$TMP/cache"
cd "$TMP"
/usr/bin/python3 - <<'PY' > make.log 2>&1 || { echo "FAIL: making the models"; cat make.log; exit 1; }
import numpy as np, onnx
from onnx import helper, TensorProto as TP, numpy_helper as nh
rng = np.random.default_rng(5)
def cplx(x):
    return x[..., 0] + 1j * x[..., 1] if x.shape[-1] == 2 else x[..., 0]
def split(c, real_only=False):
    return (np.real(c)[..., None] if real_only else np.stack([np.real(c), np.imag(c)], -1)).astype(np.float32)
# name, input shape, opset, axis, dft_length, inverse, onesided, reference
cases = [
    ("real_fwd", (2, 16, 3, 1), 17, 1, None, 0, 0, lambda c: np.fft.fft(c, axis=1)),
    ("cplx_pad", (2, 5, 6, 2), 20, -2, 8, 0, 0, lambda c: np.fft.fft(c, n=8, axis=2)),
    ("cplx_inv_trunc", (3, 7, 2), 20, 1, 4, 1, 0, lambda c: np.fft.ifft(c, n=4, axis=1)),
    ("rfft", (2, 12, 1), 17, 1, None, 0, 1, lambda c: np.fft.rfft(c, axis=1)),
    ("irfft_even", (2, 7, 4, 2), 17, 1, None, 1, 1, lambda c: np.fft.irfft(c, n=12, axis=1)),
    ("irfft_odd", (2, 5, 2), 20, 1, 9, 1, 1, lambda c: np.fft.irfft(c, n=9, axis=1)),
]
for name, shape, opset, axis, n, inv, one, ref in cases:
    x = rng.standard_normal(shape).astype(np.float32)
    ins, inits, attrs = ["x"], [], {"inverse": inv, "onesided": one}
    if opset == 17:
        attrs["axis"] = axis
        if n is not None:
            ins.append("n"); inits.append(nh.from_array(np.array(n, np.int64), "n"))
    else:
        ins.append("n" if n is not None else "")
        if n is not None:
            inits.append(nh.from_array(np.array(n, np.int64), "n"))
        ins.append("axis"); inits.append(nh.from_array(np.array(axis, np.int64), "axis"))
    node = helper.make_node("DFT", ins, ["y"], **attrs)
    g = helper.make_graph([node], "dft", [helper.make_tensor_value_info("x", TP.FLOAT, shape)],
                          [helper.make_tensor_value_info("y", TP.FLOAT, None)], initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]); m.ir_version = 8
    onnx.save(m, name + ".onnx")
    np.save(name + ".x.npy", x)
    np.save(name + ".ref.npy", split(ref(cplx(x)), real_only=bool(inv and one)))
    print(name)
node = helper.make_node("DFT", ["x"], ["y"], axis=-1)
g = helper.make_graph([node], "dft", [helper.make_tensor_value_info("x", TP.FLOAT, (2, 4, 2))],
                      [helper.make_tensor_value_info("y", TP.FLOAT, None)])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]); m.ir_version = 8
onnx.save(m, "bad_axis.onnx")
node = helper.make_node("DFT", ["x", "n"], ["y"], axis=1)
g = helper.make_graph([node], "dft", [helper.make_tensor_value_info("x", TP.FLOAT, (64, 4096, 1))],
                      [helper.make_tensor_value_info("y", TP.FLOAT, None)],
                      initializer=[nh.from_array(np.array(16384, np.int64), "n")])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]); m.ir_version = 8
onnx.save(m, "too_long.onnx")
# The axis fed at run time (opset 20, two-sided: the output shape does not depend on it).
x = rng.standard_normal((3, 5, 4, 2)).astype(np.float32)
np.save("rt.x.npy", x)
for a in (0, 1, -2):
    np.save("rt.axis%d.npy" % a, np.array(a, np.int64))
    # cplx() drops the complex dim: ONNX's axis -2 of x is axis -1 of the complex array.
    np.save("rt.ref%d.npy" % a, split(np.fft.ifft(cplx(x), axis=a if a >= 0 else a + 1)))
    ax = a if a >= 0 else a + 1  # onesided forward: bins 0..n/2 along the axis
    full = np.fft.fft(cplx(x), axis=ax)
    np.save("rt1.ref%d.npy" % a, split(np.take(full, range(full.shape[ax] // 2 + 1), axis=ax)))
for one, name in ((0, "rt_axis"), (1, "rt_axis_onesided")):
    node = helper.make_node("DFT", ["x", "", "axis"], ["y"], inverse=1 - one, onesided=one)
    g = helper.make_graph([node], "dft", [helper.make_tensor_value_info("x", TP.FLOAT, (3, 5, 4, 2)),
                                          helper.make_tensor_value_info("axis", TP.INT64, [])],
                          [helper.make_tensor_value_info("y", TP.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)]); m.ir_version = 8
    onnx.save(m, name + ".onnx")
PY
# close GOT.npy REF.npy: prints the shape and the largest error relative to the reference's
# range; fails above 1e-5 or on a shape mismatch.
close() {
  /usr/bin/python3 -c "
import sys, numpy as np
a, b = np.load('$1'), np.load('$2')
d = float(np.abs(a - b).max()) / max(float(np.abs(b).max()), 1e-6) if a.shape == b.shape else float('inf')
print('shape %s, max error %.2e of the range' % (a.shape, d)); sys.exit(0 if d <= 1e-5 else 1)"
}
pass=0; fail=0
for k in $(cat make.log); do
  if "$BIN/atc" --model="$k.onnx" --framework=5 --output="$k" --soc_version=native \
       --precision_mode=must_keep_origin_dtype > "$k.atc.log" 2>&1 &&
     "$BIN/omrun" --model="$k.om" --input="$k.x.npy" --output="$k.res" > "$k.run.log" 2>&1 &&
     line=$(close "$k.res/output_0.npy" "$k.ref.npy"); then
    echo "PASS $k: $line"; pass=$((pass + 1))
  else
    echo "FAIL $k: ${line:-}"; tail -3 "$k.atc.log" "$k.run.log" 2>/dev/null; fail=$((fail + 1))
  fi
done
"$BIN/atc" --model=bad_axis.onnx --framework=5 --output=bad --soc_version=native > bad.log 2>&1; rc=$?
if [ $rc -ne 0 ] && grep -q "E19999" bad.log && [ ! -e bad.om ]; then
  echo "PASS an axis on the complex dim is refused (E19999)"; pass=$((pass + 1))
else
  echo "FAIL axis -1 (rc $rc)"; cat bad.log; fail=$((fail + 1))
fi
timeout 60 "$BIN/atc" --model=too_long.onnx --framework=5 --output=long --soc_version=native > long.log 2>&1; rc=$?
if [ $rc -eq 1 ] && grep -q "E19999" long.log && grep -q "multiply-adds" long.log && [ ! -e long.om ]; then
  echo "PASS 64 transforms of length 16384 (2^34 multiply-adds) are refused (E19999)"; pass=$((pass + 1))
else
  echo "FAIL a DFT too long for the direct kernel (rc $rc)"; cat long.log; fail=$((fail + 1))
fi
# Run-time axis: one .om, three axes (-2 is axis 2 of [3, 5, 4, 2] counting the complex dim).
# run_axes MODEL PREFIX LABEL: compiles MODEL.onnx to PREFIX.om, runs it per axis, compares with PREFIX.refA.npy.
run_axes() {
  "$BIN/atc" --model=$1.onnx --framework=5 --output=$2 --soc_version=native \
    --precision_mode=must_keep_origin_dtype > $2.atc.log 2>&1 ||
    { echo "FAIL $3: atc"; cat $2.atc.log; fail=$((fail + 1)); }
  for a in 0 1 -2; do
    if "$BIN/omrun" --model=$2.om --input=rt.x.npy,rt.axis$a.npy --output=$2.res$a > $2.run$a.log 2>&1 &&
       line=$(close "$2.res$a/output_0.npy" "$2.ref$a.npy"); then
      echo "PASS $3 along axis $a fed at run time: $line"; pass=$((pass + 1))
    else
      echo "FAIL $3 axis $a: ${line:-}"; tail -3 $2.run$a.log; fail=$((fail + 1))
    fi
  done
}
run_axes rt_axis rt "inverse DFT"
run_axes rt_axis_onesided rt1 "onesided DFT"  # the output's shape depends on the axis: run-sized
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
